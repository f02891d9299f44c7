"""HTML pages, through markitdown, decoded by the same policy as every text format."""

from __future__ import annotations

from workbench.config import IngestConfig
from workbench.ingestion.parsers.converter import convert
from workbench.ingestion.parsers.document import Extraction, register_parsers
from workbench.ingestion.parsers.text import decode_text


def extract_html(data: bytes, source: str, limits: IngestConfig) -> Extraction:
    # Decoded here (not by markitdown's charset sniffing) so every text format follows one policy.
    html = decode_text(data, source)
    result = convert(html.encode("utf-8"), source, "html", charset="utf-8")
    return Extraction((result.markdown,), title_hint=result.title)


register_parsers(
    {".html": "html", ".htm": "html"},
    {"html": extract_html},
)
