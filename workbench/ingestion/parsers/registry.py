"""The one entry point: a file's extension picks its parser from ``PARSERS``.

A new format is one extractor (``(bytes, source, limits) -> Extraction``) in its family's
module and one ``register_parsers`` call there (extension -> document type -> extractor); a new
family is a module imported below. An extractor that changes its output registers a new version
(``register_parsers(..., versions={doc_type: 2})``): documents written by an older version are
parsed again (see ``parser_version``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePath
from types import MappingProxyType

from workbench.config import IngestConfig
from workbench.ingestion.parsers import code, images, office, pdf, text, web  # noqa: F401  (each registers its parsers)
from workbench.ingestion.parsers.canonical import canonicalize, first_heading, join_pages
from workbench.ingestion.parsers.document import PARSERS, ParsedDocument, ParseError

#: file extension (lower case, with the dot) -> document type recorded for the document
SUPPORTED_TYPES: Mapping[str, str] = MappingProxyType({extension: p.doc_type for extension, p in PARSERS.items()})

#: document type -> the version of the parser that writes its Markdown now (types not listed: 1)
PARSER_VERSIONS: Mapping[str, int] = MappingProxyType({p.doc_type: p.version for _, p in PARSERS.items()})


def parser_version(doc_type: str) -> int:
    """The version of the parser that writes ``doc_type`` documents now.

    A stored document records the version that wrote its Markdown; one written by an older
    version is outdated: ``sync`` parses it again from its kept original, and ingesting the same
    file again parses it instead of skipping it as unchanged.
    """
    return PARSER_VERSIONS.get(doc_type, 1)


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
    if extension not in PARSERS:
        supported = ", ".join(sorted(SUPPORTED_TYPES))
        what = f"unsupported file type '{extension}'" if extension else "no file extension"
        raise ParseError(filename, f"{what}; supported types: {supported}. Convert the file to one of them")
    if not data:
        raise ParseError(filename, "empty file (0 bytes); check the original and upload it again")

    parser = PARSERS.get(extension)
    doc_type = parser.doc_type
    extraction = parser.extract(data, filename, limits)
    if extraction.paged:
        markdown, page_starts = join_pages(extraction.parts)
    else:
        markdown, page_starts = canonicalize("\n\n".join(extraction.parts)), ()

    if not _has_text(markdown, doc_type):
        raise ParseError(filename, _NO_TEXT_REASONS.get(doc_type, _NO_TEXT_REASON))

    # Worksheet headings are sheet names ("Sheet1"), not titles.
    heading = first_heading(markdown) if doc_type != "xlsx" else None
    title = heading or (extraction.title_hint or "").strip() or PurePath(filename).stem or filename
    return ParsedDocument(
        markdown=markdown,
        doc_type=doc_type,
        title=title,
        page_starts=page_starts,
        chunk_metadata=dict(extraction.chunk_metadata),
        parser_version=parser_version(doc_type),
        images=extraction.images,
    )


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
