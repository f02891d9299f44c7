"""Document parsing: an uploaded file's bytes into one canonical Markdown string.

Each supported type takes one route:

* ``.md``/``.markdown``/``.txt`` are decoded and used as they are (no conversion), so offsets
  stay faithful to what the author wrote.
* ``.json`` is parsed and pretty-printed (2-space indent, non-ASCII kept) inside a fenced
  ``json`` code block: markitdown would pass it through unchanged, and minified JSON is one
  enormous line that neither chunkers nor readers can work with.
* ``.pdf``, ``.docx``, ``.pptx``, ``.xlsx``, ``.html``/``.htm`` and ``.csv`` go through
  markitdown (tables for CSV and XLSX, one ``## sheet`` section per worksheet).

Whatever the route, the text then goes through :func:`canonicalize`, and every offset this
module reports (``page_starts``) refers to that canonical text.

Text decoding (txt, md, json, html, csv) is deliberately predictable, see :func:`decode_text`:
a byte-order mark wins, then strict UTF-8, then Windows-1252 for text that looks like legacy
Western text; anything else is refused with a request to re-save as UTF-8 rather than guessed
(charset detection guesses wrong on short texts and silently produces mojibake).

Pages: PDF page breaks (pdfminer's form feeds) and PPTX slide markers
(``<!-- Slide number: N -->``, removed from the text) become ``page_starts``. Known limit: when
markitdown's PDF converter finds a form- or table-like page it extracts the whole document with
pdfplumber, which joins pages without a break; a multi-page PDF like that gets no page numbers.

Images (``.png .jpg .jpeg .webp .gif .bmp .tiff``) become text through OCR and/or a caption
(``workbench.ingestion.images``); PDF pages without a text layer are OCR'd the same way. Source
code (``.py .js .ts .java .go .rs .c .cpp .h .sh .sql``) becomes one fenced code block, and a
Jupyter notebook (``.ipynb``) its Markdown cells as they are and its code cells as fenced blocks
(``workbench.ingestion.code_files``); the ``code`` chunking strategy cuts them by definition.

Limits (``workbench.config.IngestConfig``): ZIP-based files are checked against
``ingest.max_unzipped_mb``, ``ingest.max_compression_ratio`` and ``ingest.max_zip_members``
before any parser opens them, images against ``ingest.max_image_megapixels``. The per-file time
and memory limits are enforced one level up, by the worker process a file is parsed in
(``workbench.ingestion.workers``).

markitdown runs with only the six converters above registered: none of them reaches the
network (no URL, YouTube, Wikipedia, Azure or LLM paths exist in the instance), and a file
cannot silently fall through to a different converter when its own one fails -- markitdown
otherwise retries with whatever type its content sniffer guesses, and would, say, read a text
file named ``.pdf`` as text. Signature checks before conversion turn the common wrong-file
cases into specific messages.
"""

from __future__ import annotations

import io
import json
import re
import threading
import zipfile
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from types import MappingProxyType
from typing import TYPE_CHECKING, Mapping

from workbench.config import IngestConfig
from workbench.ingestion.code_files import CODE_TYPES, code_document, notebook_document
from workbench.ingestion.images import IMAGE_TYPES

if TYPE_CHECKING:  # markitdown is imported lazily: it pulls in pandas, pdfminer, magika, ...
    from markitdown import DocumentConverterResult, MarkItDown

#: file extension (lower case, with the dot) -> document type recorded for the document
SUPPORTED_TYPES: Mapping[str, str] = MappingProxyType(
    {
        ".pdf": "pdf",
        ".docx": "docx",
        ".pptx": "pptx",
        ".xlsx": "xlsx",
        ".html": "html",
        ".htm": "html",
        ".md": "md",
        ".markdown": "md",
        ".txt": "txt",
        ".csv": "csv",
        ".json": "json",
        **{extension: doc_type for extension, (doc_type, _) in IMAGE_TYPES.items()},
        **{extension: doc_type for extension, (doc_type, _) in CODE_TYPES.items()},
        ".ipynb": "ipynb",
    }
)


@dataclass(frozen=True)
class ParsedDocument:
    """A document as canonical Markdown.

    ``page_starts[i]`` is the offset in ``markdown`` where page (or slide) ``i + 1`` begins; it
    is empty when the source has no pages or they are unknown. A page without text starts where
    the next page's text starts (or at ``len(markdown)`` when no text follows).
    """

    markdown: str
    doc_type: str
    title: str
    page_starts: tuple[int, ...] = ()
    #: stored with every chunk of the document (an image's caption, say)
    chunk_metadata: Mapping = field(default_factory=dict)

    def __post_init__(self) -> None:
        starts = self.page_starts
        if starts and (
            starts[0] != 0
            or any(a > b for a, b in zip(starts, starts[1:]))
            or starts[-1] > len(self.markdown)
        ):
            raise ValueError(
                f"page_starts {starts} must start at 0, never decrease and stay within the "
                f"{len(self.markdown)}-character markdown"
            )

    def page_at(self, offset: int) -> int | None:
        """The 1-based page holding character ``offset``, or None when pages are unknown.

        ``offset == len(markdown)`` (an end offset) maps to the last page.
        """
        if not self.page_starts:
            return None
        if not 0 <= offset <= len(self.markdown):
            raise ValueError(f"offset {offset} is outside the document's markdown [0, {len(self.markdown)}]")
        return bisect_right(self.page_starts, offset)


class ParseError(Exception):
    """A file that cannot become a document; ``reason`` says why and what to do about it."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason

    def __reduce__(self):  # the default pickling would call __init__ with the message alone
        return (type(self), (self.source, self.reason))


# ---------------------------------------------------------------------------------------------
# Canonical Markdown

# Characters that Python's str.splitlines() treats as line boundaries: deleting them would glue
# the words on either side together, so they become newlines instead.
_LINE_BREAK_LIKE = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
# Every other control character (C0, DEL, C1) except tab and newline, plus stray byte-order
# marks, which are invisible and would only split words for search.
_INVISIBLE_JUNK = re.compile("[\x00-\x08\x0e-\x1b\x1f\x7f-\x84\x86-\x9f\ufeff]")
_MAX_BLANK_LINES = 2


def canonicalize(text: str) -> str:
    """The canonical form every parsed document is stored in.

    * ``"\\r\\n"`` and ``"\\r"`` become ``"\\n"``; other line/page separators (``\\f``, ``\\v``,
      ``\\x1c``-``\\x1e``, ``\\x85``, U+2028, U+2029) become ``"\\n"`` as well;
    * NUL and every other control character except ``\\n`` and ``\\t`` is removed, as are
      byte-order marks (U+FEFF);
    * trailing whitespace is stripped from every line;
    * runs of three or more blank lines become two;
    * leading and trailing blank lines are removed, and non-empty text ends with exactly one
      ``"\\n"``. Text with nothing left becomes ``""``.

    The function is idempotent: ``canonicalize(canonicalize(t)) == canonicalize(t)``.
    """
    body = _canonical_body(text)
    return body + "\n" if body else ""


def _canonical_body(text: str) -> str:
    """``canonicalize`` without the final newline (the unit pages are joined from)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _LINE_BREAK_LIKE.sub("\n", text)
    text = _INVISIBLE_JUNK.sub("", text)
    kept: list[str] = []
    blank_run = 0
    for line in text.split("\n"):
        line = line.rstrip()
        if line:
            blank_run = 0
        elif not kept:  # leading blank lines
            continue
        else:
            blank_run += 1
            if blank_run > _MAX_BLANK_LINES:
                continue
        kept.append(line)
    while kept and not kept[-1]:
        kept.pop()
    return "\n".join(kept)


_PAGE_SEPARATOR = "\n\n"


def _join_pages(pages: tuple[str, ...]) -> tuple[str, tuple[int, ...]]:
    """Canonicalize page by page and join them, tracking where each page starts.

    Pages are normalised separately (then joined by one blank line) so that no normalisation
    step can move text across a page boundary and offsets are exact by construction.
    """
    bodies: list[str] = []
    starts: list[int] = []
    textless_pages = 0  # pages waiting to learn where the next text starts
    length = 0
    for page in pages:
        body = _canonical_body(page)
        if not body:
            textless_pages += 1
            continue
        if bodies:
            length += len(_PAGE_SEPARATOR)
        starts.extend([length] * (textless_pages + 1))
        textless_pages = 0
        bodies.append(body)
        length += len(body)
    markdown = _PAGE_SEPARATOR.join(bodies) + "\n" if bodies else ""
    starts.extend([len(markdown)] * textless_pages)
    return markdown, tuple(starts)


# ---------------------------------------------------------------------------------------------
# Titles

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_LINK_OR_IMAGE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*{1,3}|_{2,3})(.+?)\1")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")


def first_heading(markdown: str) -> str | None:
    """The plain text of the first ATX heading (``# Title``) outside fenced code, if any."""
    fence: str | None = None
    for line in markdown.split("\n"):
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            continue
        if opening:
            fence = opening.group(1)
            continue
        heading = _ATX_HEADING.match(line)
        if heading:
            text = _LINK_OR_IMAGE.sub(r"\1", heading.group(1))
            text = _EMPHASIS.sub(r"\2", text)
            text = _ESCAPE.sub(r"\1", text).strip()
            if text:
                return text
    return None


# ---------------------------------------------------------------------------------------------
# Entry points


def parse_file(path: Path, *, source_name: str | None = None, limits: IngestConfig | None = None) -> ParsedDocument:
    """Parse a file on disk.

    ``source_name`` (default ``path.name``) is the user-facing name: it picks the type from its
    extension, names the file in errors and gives the fallback title. Use it when the bytes sit
    in a temporary file.
    """
    return parse_bytes(Path(path).read_bytes(), source_name or Path(path).name, limits=limits)


def parse_bytes(data: bytes, filename: str, *, limits: IngestConfig | None = None) -> ParsedDocument:
    """Parse a file's bytes; ``filename``'s extension picks the type (see ``SUPPORTED_TYPES``).

    Raises ParseError, naming ``filename``, for anything that cannot become a useful document
    (including a file over one of ``limits``; the defaults when None).
    """
    limits = limits or IngestConfig()
    extension = PurePath(filename).suffix.lower()
    doc_type = SUPPORTED_TYPES.get(extension)
    if doc_type is None:
        supported = ", ".join(sorted(SUPPORTED_TYPES))
        what = f"unsupported file type '{extension}'" if extension else "no file extension"
        raise ParseError(filename, f"{what}; supported types: {supported}. Convert the file to one of them")
    if not data:
        raise ParseError(filename, "empty file (0 bytes); check the original and upload it again")

    extraction = _EXTRACTORS.get(doc_type, _extract_code)(data, filename, limits)
    if extraction.paged:
        markdown, page_starts = _join_pages(extraction.parts)
    else:
        markdown, page_starts = canonicalize("\n\n".join(extraction.parts)), ()

    if not _has_text(markdown, doc_type):
        raise ParseError(filename, _NO_TEXT_REASONS.get(doc_type, _NO_TEXT_REASON))

    # Worksheet headings are sheet names ("Sheet1"), not titles.
    heading = first_heading(markdown) if doc_type != "xlsx" else None
    title = heading or (extraction.title_hint or "").strip() or PurePath(filename).stem or filename
    return ParsedDocument(markdown=markdown, doc_type=doc_type, title=title, page_starts=page_starts,
                          chunk_metadata=dict(extraction.chunk_metadata))


_NO_TEXT_REASON = "no text (the document is empty); add content and upload it again"
_NO_TEXT_REASONS = {
    "pdf": "no extractable text (probably a scanned image or an empty document); "
    "run OCR on it, or export a PDF with real text, and upload it again",
    "xlsx": "no cell values (every worksheet is empty); add content and upload it again",
}
# Characters that are pure table or heading scaffolding: a document made only of them is empty.
_SCAFFOLDING = " \t\n|-:#"


def _has_text(markdown: str, doc_type: str) -> bool:
    if doc_type == "xlsx":  # the converter writes a "## <sheet name>" line even for empty sheets
        markdown = "\n".join(line for line in markdown.split("\n") if not line.startswith("## "))
    return bool(markdown.strip(_SCAFFOLDING))


@dataclass(frozen=True)
class _Extraction:
    """Raw text from one format: ``parts`` are pages/slides when ``paged``, else joined as one."""

    parts: tuple[str, ...]
    paged: bool = False
    title_hint: str | None = None
    chunk_metadata: Mapping = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# Text formats

# Byte-order marks, longest first: the UTF-32-LE mark begins with the UTF-16-LE one.
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
# Legacy Western text is mostly ASCII with scattered accented letters; Cyrillic, Greek and East
# Asian legacy encodings are mostly bytes >= 0x80, and reading those as Windows-1252 gives
# mojibake that would poison the index, so they are refused instead.
_MAX_HIGH_BYTE_SHARE_FOR_CP1252 = 0.3
_RESAVE_AS_UTF8 = "re-save it as UTF-8 (e.g. 'Save As' > Encoding: UTF-8) and upload it again"


def decode_text(data: bytes, source: str) -> str:
    """Decode a text file: a byte-order mark (UTF-8/16/32) wins, then strict UTF-8, then
    Windows-1252 if the bytes look like legacy Western text; anything else is a ParseError.

    Files with NUL bytes and no UTF-16/32 mark are treated as binary rather than text.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError as exc:
                raise ParseError(source, f"not valid {encoding.upper()} text despite its byte-order mark; "
                                 f"{_RESAVE_AS_UTF8}") from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    if b"\x00" in data:
        raise ParseError(source, "binary data, not text; check that you picked the right file")
    high_share = sum(byte >= 0x80 for byte in data) / len(data)
    if high_share <= _MAX_HIGH_BYTE_SHARE_FOR_CP1252:
        try:
            return data.decode("cp1252")
        except UnicodeDecodeError:
            pass
    raise ParseError(source, f"not UTF-8 text, and its encoding could not be determined reliably; {_RESAVE_AS_UTF8}")


def _extract_plain(data: bytes, source: str, limits: IngestConfig) -> _Extraction:
    return _Extraction((decode_text(data, source),))


def _extract_json(data: bytes, source: str, limits: IngestConfig) -> _Extraction:
    text = decode_text(data, source)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(source, f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                         "fix it, or rename it to .txt to index it as plain text") from exc
    except RecursionError as exc:
        raise ParseError(source, "JSON nested too deeply to read; flatten it or rename it to .txt") from exc
    pretty = json.dumps(value, indent=2, ensure_ascii=False)
    # A fence longer than any backtick run inside cannot be closed early by the content.
    longest_run = max((len(run) for run in re.findall(r"`+", pretty)), default=0)
    fence = "`" * max(3, longest_run + 1)
    return _Extraction((f"{fence}json\n{pretty}\n{fence}",))


def _extract_html(data: bytes, source: str, limits: IngestConfig) -> _Extraction:
    # Decoded here (not by markitdown's charset sniffing) so every text format follows one policy.
    html = decode_text(data, source)
    result = _convert(html.encode("utf-8"), source, "html", charset="utf-8")
    return _Extraction((result.markdown,), title_hint=result.title)


def _extract_csv(data: bytes, source: str, limits: IngestConfig) -> _Extraction:
    text = decode_text(data, source)
    return _Extraction((_convert(text.encode("utf-8"), source, "csv", charset="utf-8").markdown,))


# ---------------------------------------------------------------------------------------------
# PDF


def _extract_pdf(data: bytes, source: str, limits: IngestConfig) -> _Extraction:
    # The PDF specification allows junk before the header, within the first 1024 bytes.
    if b"%PDF-" not in data[:1024]:
        raise ParseError(source, "not a PDF file (no PDF header; it may be another format renamed to .pdf); "
                         "export it as PDF and upload it again")
    markdown = _convert(data, source, "pdf").markdown
    scanned = _ocr_scanned_pages(data, source, markdown, limits)
    if scanned is not None:
        return scanned
    if "\f" in markdown:
        # pdfminer ends every page with a form feed. markitdown's per-line rstrip() drops the
        # ones that end up alone on the last line, i.e. after the final page with text, so the
        # split yields exactly the pages up to the last one that has text.
        return _Extraction(tuple(markdown.split("\f")), paged=True)
    if _pdf_page_count(data) == 1:
        return _Extraction((markdown,), paged=True)
    return _Extraction((markdown,))  # several pages joined without breaks: pages unknown


def _ocr_scanned_pages(data: bytes, source: str, markdown: str, limits: IngestConfig) -> _Extraction | None:
    """Pages with no text layer, OCR'd; None when every page has text (nothing to do)."""
    from workbench.ingestion.images import ImageError, ocr_pdf_pages, pdf_page_texts

    texts = pdf_page_texts(data)
    if not texts:
        return None
    blank = [number for number, text in enumerate(texts) if not text.strip()]
    if not blank:
        return None
    if len(blank) < len(texts) and "\f" in markdown:
        # pdfminer's page split is what the rest of this module trusts; fill in only the blanks
        pages = markdown.split("\f")
        texts = [pages[i] if i < len(pages) else "" for i in range(len(texts))]
    try:
        read = ocr_pdf_pages(data, blank, limits)
    except ImageError as error:
        if len(blank) == len(texts):  # a pure scan: without OCR there is nothing to index
            raise ParseError(source, f"no text layer (a scanned document) and {error}") from error
        return None  # some pages are scans; the text pages are still worth having
    pages = tuple(read.get(i, text) for i, text in enumerate(texts))
    return _Extraction(pages, paged=True, chunk_metadata={"ocr_pages": [n + 1 for n in blank]})


def _pdf_page_count(data: bytes) -> int | None:
    from pdfminer.pdfpage import PDFPage

    try:
        return sum(1 for _ in PDFPage.get_pages(io.BytesIO(data)))
    except Exception:  # the text is already extracted; an unreadable page tree only costs page numbers
        return None


def _pdf_failure_reason(cause: BaseException | None) -> str:
    from pdfminer.pdfdocument import PDFEncryptionError

    if isinstance(cause, PDFEncryptionError):
        return "password-protected PDF; remove the password (export an unprotected copy) and upload it again"
    return "not a valid PDF (file is corrupt or truncated); re-export it and upload it again"


# ---------------------------------------------------------------------------------------------
# Office Open XML (docx, pptx, xlsx)

_OFFICE_KINDS = {  # doc type -> (the part only that kind of package has, human name)
    "docx": ("word/document.xml", "a Word document"),
    "pptx": ("ppt/presentation.xml", "a PowerPoint presentation"),
    "xlsx": ("xl/workbook.xml", "an Excel workbook"),
}
# Compound File Binary: the container of legacy .doc/.xls/.ppt and of password-protected
# Office files (encryption wraps the zip package in one).
_CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_SLIDE_MARKER = re.compile(r"^<!-- Slide number: \d+ -->$", re.MULTILINE)


def _check_office_package(data: bytes, source: str, doc_type: str, limits: IngestConfig) -> None:
    from workbench.ingestion.containers import container_violation, zip_figures

    extension = f".{doc_type}"
    if data.startswith(_CFB_MAGIC):
        raise ParseError(source, f"password-protected, or a legacy Office file (.doc/.ppt/.xls) renamed to "
                         f"{extension}; remove the password or re-save it as {extension} and upload it again")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            names = set(package.namelist())
        violation = container_violation(zip_figures(data), limits)
    except (zipfile.BadZipFile, ValueError, EOFError) as exc:  # ValueError/EOFError: mangled headers
        raise ParseError(source, _office_corrupt_reason(doc_type)) from exc
    if violation:
        raise ParseError(source, violation)
    required_part, name = _OFFICE_KINDS[doc_type]
    if required_part in names:
        return
    for other_type, (other_part, other_name) in _OFFICE_KINDS.items():
        if other_part in names:
            raise ParseError(source, f"{other_name}, not {name}; rename it to .{other_type} "
                             "and upload it again")
    raise ParseError(source, f"a ZIP archive but not {name} (no {required_part}); "
                     f"open it in Office, save it as {extension} and upload it again")


def _office_corrupt_reason(doc_type: str) -> str:
    return (f"not a valid {doc_type.upper()} (file is corrupt or truncated); "
            f"re-save it as .{doc_type} and upload it again")


def _extract_docx(data: bytes, source: str, limits: IngestConfig) -> _Extraction:
    _check_office_package(data, source, "docx", limits)
    return _Extraction((_convert(data, source, "docx").markdown,))


def _extract_xlsx(data: bytes, source: str, limits: IngestConfig) -> _Extraction:
    _check_office_package(data, source, "xlsx", limits)
    return _Extraction((_convert(data, source, "xlsx").markdown,))


def _extract_pptx(data: bytes, source: str, limits: IngestConfig) -> _Extraction:
    _check_office_package(data, source, "pptx", limits)
    markdown = _convert(data, source, "pptx").markdown
    # markitdown opens every slide with a marker line; the text before the first one is empty.
    preamble, *slides = _SLIDE_MARKER.split(markdown)
    if not slides:
        return _Extraction((markdown,))
    slides[0] = preamble + slides[0]
    return _Extraction(tuple(slides), paged=True)


def _extract_image(data: bytes, source: str, limits: IngestConfig) -> _Extraction:
    from workbench.ingestion.images import ImageError, describe_image, image_markdown

    _, mime = IMAGE_TYPES[PurePath(source).suffix.lower()]
    try:
        described = describe_image(data, mime, limits)
    except ImageError as error:
        raise ParseError(source, str(error)) from error
    return _Extraction((image_markdown(PurePath(source).name, described),), title_hint=PurePath(source).stem,
                       chunk_metadata=described.metadata)


def _extract_code(data: bytes, source: str, limits: IngestConfig) -> _Extraction:
    _, language = CODE_TYPES[PurePath(source).suffix.lower()]
    return _Extraction((code_document(decode_text(data, source), language),), title_hint=PurePath(source).name)


def _extract_notebook(data: bytes, source: str, limits: IngestConfig) -> _Extraction:
    try:
        markdown = notebook_document(decode_text(data, source))
    except ValueError as error:
        raise ParseError(source, str(error)) from error
    return _Extraction((markdown,), title_hint=PurePath(source).stem)


_EXTRACTORS = {
    "pdf": _extract_pdf,
    "docx": _extract_docx,
    "pptx": _extract_pptx,
    "xlsx": _extract_xlsx,
    "html": _extract_html,
    "md": _extract_plain,
    "txt": _extract_plain,
    "csv": _extract_csv,
    "json": _extract_json,
    "ipynb": _extract_notebook,
    **{doc_type: _extract_image for doc_type, _ in IMAGE_TYPES.values()},
}


# ---------------------------------------------------------------------------------------------
# markitdown

_markitdown_instance: MarkItDown | None = None
_markitdown_lock = threading.Lock()


def _markitdown() -> MarkItDown:
    """The one MarkItDown instance, built on first use with only the converters we route to."""
    global _markitdown_instance
    with _markitdown_lock:
        if _markitdown_instance is None:
            from markitdown import PRIORITY_GENERIC_FILE_FORMAT, MarkItDown
            from markitdown.converters import (
                CsvConverter,
                DocxConverter,
                HtmlConverter,
                PdfConverter,
                PptxConverter,
                XlsxConverter,
            )

            instance = MarkItDown(enable_builtins=False, enable_plugins=False)
            instance.register_converter(HtmlConverter(), priority=PRIORITY_GENERIC_FILE_FORMAT)
            for converter in (PdfConverter(), DocxConverter(), PptxConverter(), XlsxConverter(), CsvConverter()):
                instance.register_converter(converter)
            _markitdown_instance = instance
        return _markitdown_instance


def _convert(data: bytes, source: str, doc_type: str, *, charset: str | None = None) -> DocumentConverterResult:
    """Run markitdown on ``data`` as ``doc_type``; library failures become ParseErrors."""
    from markitdown import FileConversionException, MissingDependencyException, StreamInfo

    info = StreamInfo(extension=f".{doc_type}", filename=source, charset=charset)
    try:
        return _markitdown().convert_stream(io.BytesIO(data), stream_info=info)
    except FileConversionException as exc:
        attempts = exc.attempts or []
        cause = next((a.exc_info[1] for a in attempts if a.exc_info is not None), None)
        if isinstance(cause, MissingDependencyException):  # a broken install, not a bad file
            raise RuntimeError(f"markitdown cannot read .{doc_type} files here: {cause}") from cause
        if doc_type == "pdf":
            reason = _pdf_failure_reason(cause)
        elif doc_type in _OFFICE_KINDS:
            reason = _office_corrupt_reason(doc_type)
        else:
            reason = f"unreadable {doc_type.upper()} ({type(cause).__name__}); check the file and upload it again"
        raise ParseError(source, reason) from (cause or exc)
