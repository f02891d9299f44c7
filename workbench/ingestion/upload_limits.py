"""The upload box's size limit: the one ingest enforces, what raising it costs, and the server's cap.

Two limits meet at the upload box. ``ingest.max_file_mb`` (default 20 MB) is what ingest
enforces on every file; Streamlit's ``server.maxUploadSize`` (default 200 MB) caps what the
browser may send at all. The box shows the lower of the two, so it never promises a size that
ingest then refuses; raising the ingest limit shows what a file that large costs to embed, and
past the server's cap says how to start the app with a higher one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from workbench.config import ChunkingConfig, key_default
from workbench.ingestion.estimates import describe_estimate, estimate_chunks, estimated_text_characters

MB = 1_000_000
#: the kinds of file whose text per MB differs most: plain text holds the most, a PDF far less
COST_EXAMPLES = (
    ("a text or Markdown file", "notes.md"),
    ("a Word, PowerPoint or Excel file", "slides.pptx"),
    ("a PDF", "paper.pdf"),
)


@dataclass(frozen=True)
class UploadLimit:
    file_mb: float  # ingest.max_file_mb in force
    server_mb: int  # server.maxUploadSize

    @property
    def box_mb(self) -> int:
        """What the upload box accepts per file (whole MB, as Streamlit takes it)."""
        return max(1, min(math.ceil(self.file_mb), self.server_mb))

    @property
    def capped_by_server(self) -> bool:
        return self.file_mb > self.server_mb

    def describe(self) -> str:
        default = key_default("ingest.max_file_mb")
        text = f"Files up to {self.box_mb} MB each (ingest.max_file_mb, default {default:g} MB)."
        if self.capped_by_server:
            text += (
                f" The server takes at most {self.server_mb} MB per upload (server.maxUploadSize); to go "
                f"higher, start it with: streamlit run app.py --server.maxUploadSize={math.ceil(self.file_mb)}"
            )
        return text


def raise_cost(
    file_mb: float,
    chunking: ChunkingConfig,
    chunk_rate: float | None,
    max_chunks: int | None = None,
    measured_for: str | None = None,
) -> list[str]:
    """What one file at the limit costs, per kind of file: "a PDF: about 3,100 chunks, roughly 2 min to
    embed here"; a file over ``ingest.max_chunks`` is refused on that limit, which the line says."""
    size = int(file_mb * MB)
    lines = []
    for what, name in COST_EXAMPLES:
        chunks = estimate_chunks(estimated_text_characters(name, size), chunking)
        line = f"{what}: {describe_estimate(chunks, chunk_rate, measured_for=measured_for)}"
        if max_chunks is not None and chunks > max_chunks:
            line += f" (over ingest.max_chunks = {max_chunks:,}: refused unless you raise that too)"
        lines.append(line)
    return lines
