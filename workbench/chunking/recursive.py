"""Markdown-aware recursive splitting.

A span longer than ``size`` is cut at the coarsest separator it contains, in this order: heading
lines of level 1 to 6, fenced code block edges, blank lines, line breaks, sentence ends, spaces,
and finally single units (characters, or tokens). Pieces that fit are packed greedily into chunks
of at most ``size``; each new chunk starts with the whole trailing pieces of the previous one that
fit in ``overlap``. Pieces that still do not fit are split again with the finer separators.

The fitting pieces just before an oversized piece are not packed on their own: they are carried
into the split of the oversized piece and packed together with its first parts. Otherwise a
heading (or a short lead-in line) followed by a long paragraph would end up as a chunk by itself,
which holds nothing to retrieve; carried, it opens the first chunk of the text it introduces
whenever the two fit in ``size`` together. Packing restarts after an oversized piece, so what
follows it is never pulled back into its last chunk.

Chunks never exceed ``size`` and never start or end with whitespace: offsets are narrowed, the
text itself is never altered.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from workbench.chunk import Chunk
from workbench.chunking.headings import HeadingIndex
from workbench.chunking.sentences import sentence_spans, trim_whitespace
from workbench.chunking.tokens import LengthMeasure, TokenSpans, measure_for, validate_length_settings
from workbench.config import ChunkingConfig

Span = tuple[int, int]

SEPARATOR_NAMES = (
    *(f"heading level {level}" for level in range(1, 7)),
    "code fence",
    "blank line",
    "line break",
    "sentence end",
    "space",
    "unit",
)

_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_LINE_BREAK = re.compile(r"\n")
_SPACES = re.compile(r" +")


@dataclass(frozen=True)
class RecursiveConfig:
    size: int = 1000
    overlap: int = 100
    unit: str = "chars"

    def __post_init__(self) -> None:
        validate_length_settings(self.size, self.overlap, self.unit)

    @classmethod
    def from_chunking(cls, config: ChunkingConfig) -> "RecursiveConfig":
        return cls(size=config.size, overlap=config.overlap, unit=config.unit)


def split(markdown: str, config: RecursiveConfig, *, tokens: TokenSpans | None = None) -> list[Chunk]:
    measure = measure_for(markdown, config.unit, tokens)
    headings = HeadingIndex(markdown)
    splitter = RecursiveSplitter(markdown, config.size, config.overlap, measure, headings)
    start, end = trim_whitespace(markdown, 0, len(markdown))
    return [
        Chunk(text=markdown[s:e], start=s, end=e, heading_path=headings.path_at(s))
        for s, e in splitter.split_span(start, end)
    ]


class RecursiveSplitter:
    """Splits spans of one Markdown text; shared by the strategies that cut oversized pieces."""

    def __init__(
        self, markdown: str, size: int, overlap: int, measure: LengthMeasure, headings: HeadingIndex
    ) -> None:
        self.markdown = markdown
        self.size = size
        self.overlap = overlap
        self.measure = measure
        self.headings = headings
        self._separators: list[Callable[[int, int], list[int]]] = [
            *(self._heading_cuts(level) for level in range(1, 7)),
            self._fence_cuts,
            self._regex_cuts(_BLANK_LINE),
            self._regex_cuts(_LINE_BREAK),
            self._sentence_cuts,
            self._regex_cuts(_SPACES),
            measure.cut_points,
        ]

    def split_span(self, start: int, end: int) -> list[Span]:
        """Chunks of ``markdown[start:end]``, each trimmed and at most ``size`` long."""
        start, end = trim_whitespace(self.markdown, start, end)
        if end <= start:
            return []
        if self.measure.length(start, end) <= self.size:
            return [(start, end)]
        return self._split(start, end, first_separator=0, carried=[])

    def _split(self, start: int, end: int, first_separator: int, carried: list[Span]) -> list[Span]:
        """Chunks of the oversized ``markdown[start:end]``, the first ones packed after ``carried``.

        ``carried`` are fitting pieces that come right before ``start``; they are packed in front
        of this span's first parts, so they share a chunk with them when that fits in ``size``.
        """
        for separator in range(first_separator, len(self._separators)):
            cuts = self._separators[separator](start, end)
            if cuts:
                break
        else:
            # Only reachable when one character alone is longer than `size` tokens; it cannot be cut.
            return [*self._merge(carried), (start, end)]
        chunks: list[Span] = []
        fitting: list[Span] = list(carried)
        for piece_start, piece_end in zip([start, *cuts], [*cuts, end]):
            piece_start, piece_end = trim_whitespace(self.markdown, piece_start, piece_end)
            if piece_end <= piece_start:
                continue
            if self.measure.length(piece_start, piece_end) <= self.size:
                fitting.append((piece_start, piece_end))
            else:
                chunks.extend(self._split(piece_start, piece_end, separator + 1, carried=fitting))
                fitting = []
        chunks.extend(self._merge(fitting))
        return chunks

    def _merge(self, pieces: list[Span]) -> list[Span]:
        """Pack consecutive pieces into chunks of at most ``size``, carrying ``overlap`` forward."""
        length = self.measure.length
        chunks: list[Span] = []
        window: deque[Span] = deque()
        for piece in pieces:
            if window and length(window[0][0], piece[1]) > self.size:
                chunks.append((window[0][0], window[-1][1]))
                # Keep the longest tail of whole pieces that fits the overlap and leaves room for `piece`.
                while window and (
                    length(window[0][0], window[-1][1]) > self.overlap or length(window[0][0], piece[1]) > self.size
                ):
                    window.popleft()
            window.append(piece)
        if window:
            chunks.append((window[0][0], window[-1][1]))
        return chunks

    def _heading_cuts(self, level: int) -> Callable[[int, int], list[int]]:
        return lambda start, end: self.headings.heading_offsets_between(start, end, level)

    def _fence_cuts(self, start: int, end: int) -> list[int]:
        cuts = []
        for block_start, block_end in self.headings.code_blocks:
            if block_start >= end:
                break
            cuts.extend(cut for cut in (block_start, block_end) if start < cut < end)
        return cuts

    def _regex_cuts(self, pattern: re.Pattern[str]) -> Callable[[int, int], list[int]]:
        return lambda start, end: [m.start() for m in pattern.finditer(self.markdown, start, end) if m.start() > start]

    def _sentence_cuts(self, start: int, end: int) -> list[int]:
        spans = sentence_spans(self.markdown[start:end])
        return [start + sentence_start for sentence_start, _ in spans[1:]]
