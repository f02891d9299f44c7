"""PDF: the Markdown a person would write from the page, page by page; scanned pages through OCR.

The extractor (``layout.read_pages``) reads every page's glyphs and rules with pdfplumber and
rebuilds what the type shows: reading order (two-column pages read column by column), headings
from font size and weight relative to the body text (``#``, ``##``, ``###``), bullet and numbered
lists (bullets without a Unicode mapping included), tables only where a ruled grid or columns
aligned over several rows make one, lines joined into paragraphs (CJK with no space, Latin with
one, hyphenated line ends mended), running headers, footers and page numbers dropped. Each page
is one part, so ``page_starts`` stay exact. See docs/pdf.md for what it does and its limits.

Pages without any glyph are OCR'd like images (``parsers.images``); on pages with glyphs, pictures
large enough to hold text are OCR'd and their text placed where they stand (``image_text``).
``PARSER_VERSION`` is part of what a document's Markdown depends on: documents parsed by an older
version are parsed again by the next ``sync`` (or re-ingest of the same file).
"""

from __future__ import annotations

import logging

from workbench.config import IngestConfig
from workbench.ingestion.parsers.document import Extraction, ParseError, register_parsers
from workbench.ingestion.parsers.image_notes import ImageNote

log = logging.getLogger(__name__)

#: 1: markitdown (pdfminer's text); 2: the layout extractor of this package; 3: the same, with
#: bullets drawn as shapes, bold painted as an outline, headings in colour, columns under text
#: set across the page, nested items, and paragraphs going on from one column to the next; 4: the
#: text of large pictures on pages with text, OCR'd where the picture stands (``image_text``);
#: 5: what users' PDFs needed (issue 35): paragraphs across lines that end in a Latin word,
#: justified lines with stretched spaces never a table, numbered headings and headings a little
#: larger than the body, numbers without a delimiter as list items, text that runs over a cell's
#: rules kept in its cell; 6: every picture that holds text read (a quick text check, not a share
#: of the page), each within its own OCR budget (issue 48); 7: right-to-left text in reading order,
#: contents entries without dot leaders, italic headings at the body's size, cells spanning rows
#: and columns kept in place (issue 49); 8: the seed-like PDFs of issue 49: Chromium's synthetic bold
#: (a Type 3 copy of the font) is bold, lines that kinsoku or a break after punctuation only ended
#: short go on, the prose's right edge leaves lines of code out, list numbers drawn inside the text
PARSER_VERSION = 8


class PdfReadError(Exception):
    """pdfplumber/pdfminer could not read the file; ``cause`` is their exception."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


def extract_pdf(data: bytes, source: str, limits: IngestConfig) -> Extraction:
    # The PDF specification allows junk before the header, within the first 1024 bytes.
    if b"%PDF-" not in data[:1024]:
        raise ParseError(
            source,
            "not a PDF file (no PDF header; it may be another format renamed to .pdf); "
            "export it as PDF and upload it again",
        )
    from workbench.ingestion.parsers.pdf.layout import read_pages

    try:
        pages = read_pages(data, limits)
    except PdfReadError as error:
        raise ParseError(source, pdf_failure_reason(error.cause)) from error.cause
    if pages.textless:
        return _with_ocr(data, source, pages.markdown, list(pages.textless), limits, pages.images)
    return Extraction(pages.markdown, paged=True, images=pages.images)


def _with_ocr(
    data: bytes,
    source: str,
    texts: tuple[str, ...],
    blank: list[int],
    limits: IngestConfig,
    images: tuple[ImageNote, ...] = (),
) -> Extraction:
    """The pages with text as they are, the pages without any glyph OCR'd (when OCR is here)."""
    from workbench.ingestion.parsers.images import ImageError, ocr_pdf_pages

    try:
        read = ocr_pdf_pages(data, blank, limits)
    except ImageError as error:
        if len(blank) == len(texts):  # a pure scan: without OCR there is nothing to index
            raise ParseError(source, f"no text layer (a scanned document) and {error}") from error
        # some pages are scans; the text pages are still worth having
        return Extraction(texts, paged=True, images=images)
    pages = tuple(read.get(number, text) for number, text in enumerate(texts))
    return Extraction(pages, paged=True, chunk_metadata={"ocr_pages": [n + 1 for n in blank]}, images=images)


def pdf_failure_reason(cause: BaseException | None) -> str:
    from pdfminer.pdfdocument import PDFEncryptionError

    seen = 0
    while cause is not None and seen < 8:  # pdfplumber wraps pdfminer's exception
        if isinstance(cause, PDFEncryptionError):
            return "password-protected PDF; remove the password (export an unprotected copy) and upload it again"
        inner = cause.args[0] if cause.args and isinstance(cause.args[0], BaseException) else None
        cause = inner or cause.__cause__ or cause.__context__
        seen += 1
    return "not a valid PDF (file is corrupt or truncated); re-export it and upload it again"


register_parsers({".pdf": "pdf"}, {"pdf": extract_pdf}, versions={"pdf": PARSER_VERSION})
