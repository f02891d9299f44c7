"""What a chunking would make of one document, before anything is stored or embedded.

The Chunking lab draws these spans over the document and plots the token counts against the
embedding model's maximum sequence length: a chunk longer than that is silently truncated when
it is embedded, so its tail is invisible to vector search.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from workbench.chunking.preparation import indexed_text, split_document
from workbench.chunking.window import Overflow
from workbench.config import ChunkingConfig
from workbench.embedding import Embedder


@dataclass(frozen=True)
class ChunkPreview:
    spans: tuple[tuple[int, int], ...]  # (start, end) offsets into the document's Markdown
    heading_paths: tuple[tuple[str, ...], ...]
    token_counts: tuple[int, ...]  # of the indexed text (heading path + chunk), as the model sees it
    max_tokens: int | None

    @property
    def count(self) -> int:
        return len(self.spans)

    @property
    def over_limit(self) -> int:
        if self.max_tokens is None:
            return 0
        return sum(1 for tokens in self.token_counts if tokens > self.max_tokens)

    @property
    def overlap_chars(self) -> int:
        """Characters shared by consecutive chunks (each shared stretch counted once per pair)."""
        return sum(max(0, previous_end - start) for (_, previous_end), (start, _) in pairwise(self.spans))

    @property
    def covered_chars(self) -> int:
        """Characters inside at least one chunk."""
        covered, reach = 0, 0
        for start, end in sorted(self.spans):
            start = max(start, reach)
            if end > start:
                covered += end - start
                reach = end
        return covered

    @property
    def overflow(self) -> Overflow | None:
        """The chunks over the model's window and by how much (None: window unknown)."""
        return Overflow.of(self.token_counts, self.max_tokens)

    def token_stats(self) -> dict[str, float]:
        if not self.token_counts:
            return {"mean": 0.0, "median": 0.0, "max": 0.0}
        counts = np.asarray(self.token_counts, dtype=np.float64)
        return {"mean": float(counts.mean()), "median": float(np.median(counts)), "max": float(counts.max())}


def preview_chunking(markdown: str, chunking: ChunkingConfig, embedder: Embedder) -> ChunkPreview:
    """Chunk ``markdown`` as ingestion would and count each indexed text's tokens.

    Raises ``ValueError`` naming the ``chunking.*`` key to fix for settings no splitter honours.
    """
    chunks = split_document(markdown, chunking, embedder)
    texts = [indexed_text(chunk, chunking.context_headers) for chunk in chunks]
    counts = embedder.token_counts(texts) if texts else []
    return ChunkPreview(
        spans=tuple((chunk.start, chunk.end) for chunk in chunks),
        heading_paths=tuple(tuple(chunk.heading_path) for chunk in chunks),
        token_counts=tuple(int(c) for c in counts or ()),
        max_tokens=embedder.max_tokens,
    )
