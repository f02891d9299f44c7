"""PDF: text through markitdown (pdfminer), pages from its form feeds, scanned pages through OCR.

pdfminer ends every page with a form feed, which become ``page_starts``. Known limit: when
markitdown's PDF converter finds a form- or table-like page it extracts the whole document with
pdfplumber, which joins pages without a break; a multi-page PDF like that gets no page numbers.
Pages without a text layer are OCR'd like images (``parsers.images``).
"""

from __future__ import annotations

import io

from workbench.config import IngestConfig
from workbench.ingestion.parsers.converter import convert
from workbench.ingestion.parsers.document import Extraction, ParseError, register_parsers


def extract_pdf(data: bytes, source: str, limits: IngestConfig) -> Extraction:
    # The PDF specification allows junk before the header, within the first 1024 bytes.
    if b"%PDF-" not in data[:1024]:
        raise ParseError(
            source,
            "not a PDF file (no PDF header; it may be another format renamed to .pdf); "
            "export it as PDF and upload it again",
        )
    markdown = convert(data, source, "pdf", failure_reason=pdf_failure_reason).markdown
    scanned = _ocr_scanned_pages(data, source, markdown, limits)
    if scanned is not None:
        return scanned
    if "\f" in markdown:
        # pdfminer ends every page with a form feed. markitdown's per-line rstrip() drops the
        # ones that end up alone on the last line, i.e. after the final page with text, so the
        # split yields exactly the pages up to the last one that has text.
        return Extraction(tuple(markdown.split("\f")), paged=True)
    if _pdf_page_count(data) == 1:
        return Extraction((markdown,), paged=True)
    return Extraction((markdown,))  # several pages joined without breaks: pages unknown


def _ocr_scanned_pages(data: bytes, source: str, markdown: str, limits: IngestConfig) -> Extraction | None:
    """Pages with no text layer, OCR'd; None when every page has text (nothing to do)."""
    from workbench.ingestion.parsers.images import ImageError, ocr_pdf_pages, pdf_page_texts

    texts = pdf_page_texts(data)
    if not texts:
        return None
    blank = [number for number, text in enumerate(texts) if not text.strip()]
    if not blank:
        return None
    if len(blank) < len(texts) and "\f" in markdown:
        # pdfminer's page split is what the rest of parsing trusts; fill in only the blanks
        pages = markdown.split("\f")
        texts = [pages[i] if i < len(pages) else "" for i in range(len(texts))]
    try:
        read = ocr_pdf_pages(data, blank, limits)
    except ImageError as error:
        if len(blank) == len(texts):  # a pure scan: without OCR there is nothing to index
            raise ParseError(source, f"no text layer (a scanned document) and {error}") from error
        return None  # some pages are scans; the text pages are still worth having
    pages = tuple(read.get(i, text) for i, text in enumerate(texts))
    return Extraction(pages, paged=True, chunk_metadata={"ocr_pages": [n + 1 for n in blank]})


def _pdf_page_count(data: bytes) -> int | None:
    from pdfminer.pdfpage import PDFPage

    try:
        return sum(1 for _ in PDFPage.get_pages(io.BytesIO(data)))
    except Exception:  # the text is already extracted; an unreadable page tree only costs page numbers
        return None


def pdf_failure_reason(cause: BaseException | None) -> str:
    from pdfminer.pdfdocument import PDFEncryptionError

    if isinstance(cause, PDFEncryptionError):
        return "password-protected PDF; remove the password (export an unprotected copy) and upload it again"
    return "not a valid PDF (file is corrupt or truncated); re-export it and upload it again"


register_parsers(
    {".pdf": "pdf"},
    {"pdf": extract_pdf},
)
