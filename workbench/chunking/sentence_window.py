"""Sentence windows: one chunk per sentence, widened by ``window`` sentences on each side.

Small units make precise matches; the surrounding sentences give the embedding (and the reader)
enough context. Neighbouring chunks therefore overlap by design. The chunk metadata records the
central sentence's offsets so a UI can highlight it.

To keep every chunk within ``size``: a sentence longer than ``size`` is first cut by the recursive
splitter into parts that are treated as sentences, and context sentences are added nearest first,
alternating left and right, only while the window still fits.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.chunking.chunk import Chunk
from workbench.chunking.headings import HeadingIndex
from workbench.chunking.recursive import RecursiveSplitter
from workbench.chunking.sentences import sentence_spans
from workbench.chunking.tokens import LengthMeasure, TokenSpans, measure_for, validate_length_settings
from workbench.config import ChunkingConfig


@dataclass(frozen=True)
class SentenceWindowConfig:
    window: int = 1  # sentences of context on each side
    size: int = 1000  # upper bound on a whole window
    unit: str = "chars"

    def __post_init__(self) -> None:
        if self.window < 0:
            raise ValueError(f"chunking.window must be 0 or more sentences, got {self.window}")
        validate_length_settings(self.size, 0, self.unit)

    @classmethod
    def from_chunking(cls, config: ChunkingConfig) -> SentenceWindowConfig:
        return cls(window=config.window, size=config.size, unit=config.unit)


def window_around(
    sentences: list[tuple[int, int]], centre: int, window: int, size: int, measure: LengthMeasure
) -> tuple[int, int]:
    """Indices ``(first, last)`` of the sentences in the window around ``sentences[centre]``."""
    first = last = centre
    left_open = right_open = True  # a side that once fails to fit stops: windows have no holes
    for distance in range(1, window + 1):
        left, right = centre - distance, centre + distance
        left_open = left_open and left >= 0 and measure.length(sentences[left][0], sentences[last][1]) <= size
        if left_open:
            first = left
        right_open = (
            right_open and right < len(sentences) and measure.length(sentences[first][0], sentences[right][1]) <= size
        )
        if right_open:
            last = right
    return first, last


def split(markdown: str, config: SentenceWindowConfig, *, tokens: TokenSpans | None = None) -> list[Chunk]:
    measure = measure_for(markdown, config.unit, tokens)
    headings = HeadingIndex(markdown)
    splitter = RecursiveSplitter(markdown, config.size, 0, measure, headings)
    sentences = [part for start, end in sentence_spans(markdown) for part in splitter.split_span(start, end)]
    chunks = []
    for index, (sentence_start, sentence_end) in enumerate(sentences):
        first, last = window_around(sentences, index, config.window, config.size, measure)
        start, end = sentences[first][0], sentences[last][1]
        chunks.append(
            Chunk(
                text=markdown[start:end],
                start=start,
                end=end,
                heading_path=headings.path_at(start),
                metadata={"sentence_index": index, "sentence_start": sentence_start, "sentence_end": sentence_end},
            )
        )
    return chunks
