"""Fixed-size windows: every ``size - overlap`` units a new window of ``size`` units begins.

The baseline strategy: it ignores document structure entirely. With ``unit="tokens"`` windows
are counted in tokens of the embedding model and cut only between tokens. Whitespace at a
window's edges is trimmed off its offsets, and windows of whitespace alone are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.chunking.chunk import Chunk
from workbench.chunking.headings import HeadingIndex
from workbench.chunking.sentences import trim_whitespace
from workbench.chunking.tokens import LengthConfig, TokenSpans, require_token_spans


@dataclass(frozen=True)
class FixedSizeConfig(LengthConfig):
    """Fixed windows of ``size`` units, ``overlap`` units shared between neighbours."""


def window_bounds(total: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """``[start, end)`` unit indices of the windows covering ``total`` units.

    The last window ends exactly at ``total``; no window lies wholly inside its predecessor.
    """
    if total <= 0:
        return []
    step = size - overlap
    bounds = []
    start = 0
    while True:
        end = min(start + size, total)
        bounds.append((start, end))
        if end >= total:
            return bounds
        start += step


def split(markdown: str, config: FixedSizeConfig, *, tokens: TokenSpans | None = None) -> list[Chunk]:
    if config.unit == "tokens":
        token_spans = require_token_spans(tokens).spans(markdown)
        spans = [
            (token_spans[first][0], token_spans[last - 1][1])
            for first, last in window_bounds(len(token_spans), config.size, config.overlap)
        ]
    else:
        spans = window_bounds(len(markdown), config.size, config.overlap)
    headings = HeadingIndex(markdown)
    chunks = []
    for start, end in spans:
        start, end = trim_whitespace(markdown, start, end)
        if end > start:
            chunks.append(Chunk(text=markdown[start:end], start=start, end=end, heading_path=headings.path_at(start)))
    return chunks
