"""Markdown-aware recursive splitting.

A span longer than ``size`` is cut at the coarsest separator it contains, in this order: heading
lines of level 1 to 6, fenced code block edges, blank lines, line breaks, sentence ends, spaces,
and finally single units (characters, or tokens). Pieces that still do not fit are split again
with the finer separators. Runs of pieces that fit are packed into chunks:

* Evenly. A run is packed into as few chunks as greedy packing at ``size`` needs, but with the
  smallest size limit that still needs no more, so a 1100-character paragraph becomes two chunks
  of about 550 rather than 1000 and a stub of 100. A stub has little context of its own, yet
  length normalisation (BM25's, for one) favours it whenever it happens to hold a query word.
* With overlap. Each new chunk starts with the longest run of whole trailing pieces of the
  previous one that fits in ``overlap``. When even the last piece is longer than that (prose
  sentences usually are), the overlap starts inside it at the coarsest finer separator (a
  sentence end, else a space) that keeps it within ``overlap``; otherwise an overlap of 100
  characters would almost never happen.

Rules that keep a heading (or a short lead-in) with the text it introduces:

* The fitting pieces just before an oversized piece are not packed on their own: they are carried
  into the split of the oversized piece and packed together with its first parts. Packing
  restarts after an oversized piece, so what follows it is never pulled back into its last chunk.
* A chunk does not end with a heading line when body text follows:

  - Heading lines that end a piece (an empty subsection before the next section) become a piece
    of their own, and consecutive heading pieces merge into one run.
  - A piece that fits alone but not after the heading run before it is split with the finer
    separators, as if oversized, so that its first parts can join the headings.
  - When packing closes a chunk, its trailing headings open the next chunk instead, if they fit
    there with the piece that comes next; the evening-out limit and the overlap give way to them.

  Runs of headings longer than half of ``size`` (a table of contents, say) are exempt: a chunk
  they open would be mostly headings, and making room for them cuts text into slivers.

Without these rules "# Title" followed by a long paragraph becomes a chunk of its own that holds
nothing to retrieve.

Chunks never exceed ``size`` and never start or end with whitespace: offsets are narrowed, the
text itself is never altered.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass

from workbench.chunking.chunk import Chunk
from workbench.chunking.headings import HeadingIndex
from workbench.chunking.sentences import sentence_spans, trim_whitespace
from workbench.chunking.tokens import LengthConfig, LengthMeasure, TokenSpans, measure_for

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
class RecursiveConfig(LengthConfig):
    """Pieces of at most ``size`` units, cut at the coarsest separator that fits, ``overlap`` shared."""


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

    def __init__(self, markdown: str, size: int, overlap: int, measure: LengthMeasure, headings: HeadingIndex) -> None:
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
        self._word_boundary_cuts_by_piece: dict[Span, list[list[int]]] = {}
        # Where the text of each heading line ends: a trimmed piece ending there ends with a heading.
        self._heading_line_ends = frozenset(self._heading_line_end(h.offset) for h in headings.headings)

    def split_span(self, start: int, end: int) -> list[Span]:
        """Chunks of ``markdown[start:end]``, each trimmed and at most ``size`` long."""
        start, end = trim_whitespace(self.markdown, start, end)
        if end <= start:
            return []
        if self.measure.length(start, end) <= self.size:
            return [(start, end)]
        return self._split(start, end, first_separator=0, carried=[])

    def _split(self, start: int, end: int, first_separator: int, carried: list[Span]) -> list[Span]:
        """Chunks of ``markdown[start:end]``, the first ones packed after ``carried``.

        ``carried`` are fitting pieces that come right before ``start``; they are packed in front
        of this span's first parts, so they share a chunk with them when that fits in ``size``.
        """
        for separator in range(first_separator, len(self._separators)):
            cuts = self._cuts(separator, start, end)
            if cuts:
                break
        else:
            # A single unit: it fits (and was only split for the heading before it), or it is one
            # character longer than `size` tokens, which nothing can cut.
            return self._pack([*carried, (start, end)])
        chunks: list[Span] = []
        fitting: list[Span] = list(carried)
        for piece_start, piece_end in zip([start, *cuts], [*cuts, end], strict=False):
            piece_start, piece_end = trim_whitespace(self.markdown, piece_start, piece_end)
            if piece_end <= piece_start:
                continue
            for piece in self._detach_trailing_headings((piece_start, piece_end)):
                if self._joins_heading_run(fitting, piece):
                    fitting[-1] = (fitting[-1][0], piece[1])
                elif self.measure.length(*piece) <= self.size and not self._crowds_out_heading(fitting, piece):
                    fitting.append(piece)
                else:
                    chunks.extend(self._split(*piece, separator + 1, carried=fitting))
                    fitting = []
        chunks.extend(self._pack(fitting))
        return chunks

    # Packing

    def _pack(self, pieces: list[Span]) -> list[Span]:
        """Chunks of consecutive ``pieces``: as few as packing at ``size`` gives, and as even as possible.

        Packing at a limit caps the new text of each chunk (what it adds after its overlap) at
        that limit, and the whole chunk at ``size``. A smaller limit needs more chunks (nearly
        always: the overlap can now and then make it need one fewer), so a binary search finds
        about the smallest limit that keeps the count of packing at ``size``, which divides the
        text evenly. No limit below the longest piece or an equal share of the text can keep the
        count, which bounds the search from below; the search only settles on a limit whose
        packing it has seen keep the count, so the result never has an extra chunk.
        """
        chunks = self._pack_within(pieces, self.size)
        if len(chunks) <= 1:
            return chunks
        length = self.measure.length
        equal_share = -(-length(pieces[0][0], pieces[-1][1]) // len(chunks))
        low = max(equal_share, *(length(start, end) for start, end in pieces))
        high = self.size
        while low < high:
            limit = (low + high) // 2
            if len(self._pack_within(pieces, limit)) <= len(chunks):
                high = limit
            else:
                low = limit + 1
        # `high` only ever takes limits whose packing kept the count, `size` included.
        return chunks if high >= self.size else self._pack_within(pieces, high)

    def _pack_within(self, pieces: list[Span], limit: int) -> list[Span]:
        """Greedy packing: each chunk adds at most ``limit`` of new text to the overlap it starts
        with, and is at most ``size`` long. At ``limit == size`` the second cap is the only one.
        ``limit`` gives way (``size`` never does) where keeping it would end a chunk on a heading."""
        length = self.measure.length
        chunks: list[Span] = []
        window: list[Span] = []
        fresh = 0  # window[:fresh] repeats the end of the previous chunk; window[fresh:] is new text
        for piece in pieces:
            if fresh and length(window[0][0], piece[1]) > self.size and self._only_headings(window[fresh:]):
                # The overlap gives way rather than make a chunk of itself and a heading.
                window, fresh = window[fresh:], 0
            over_size = bool(window) and length(window[0][0], piece[1]) > self.size
            if over_size or (window and length(window[fresh][0], piece[1]) > limit):
                lead = self._heading_lead(window[fresh:], piece)
                if not (lead or over_size) and self._ends_with_heading(window[-1]):
                    # Evening out chunk lengths is not worth a chunk that ends on a heading.
                    window.append(piece)
                    continue
                closed = window[: len(window) - len(lead)]
                chunks.append((closed[0][0], closed[-1][1]))
                tail = self._overlap_tail(closed, piece[1])
                window, fresh = [*tail, *lead], len(tail)
            window.append(piece)
        if window:
            chunks.append((window[0][0], window[-1][1]))
        return chunks

    def _overlap_tail(self, closed: list[Span], next_end: int) -> list[Span]:
        """What the next chunk repeats of ``closed``: at most ``overlap`` long, and short enough
        for that chunk to still reach ``next_end`` within ``size``.

        Whole trailing pieces when at least the last one fits; otherwise the end of the last
        piece, from the coarsest separator inside it that makes it fit. Never from inside a word
        (the finest separator, single units) or a heading line: such a fragment matches nothing.
        """
        if self.overlap == 0:
            return []
        length = self.measure.length
        closed_end = closed[-1][1]

        def whole_tail_fits(first: int) -> bool:
            tail_start = closed[first][0]
            return length(tail_start, closed_end) <= self.overlap and length(tail_start, next_end) <= self.size

        # Tails that start later are shorter, so the ones that fit are a suffix: bisect for the longest.
        first_piece = bisect_left(range(len(closed)), True, key=whole_tail_fits)
        if first_piece < len(closed):
            return closed[first_piece:]
        if self._ends_with_heading(closed[-1]):
            return []

        def partial_tail_fits(cut: int) -> bool:
            return length(cut, closed_end) <= self.overlap and length(cut, next_end) <= self.size

        for cuts in self._word_boundary_cuts(closed[-1]):
            first_cut = bisect_left(cuts, True, key=partial_tail_fits)
            if first_cut < len(cuts):
                tail_start, tail_end = trim_whitespace(self.markdown, cuts[first_cut], closed_end)
                return [(tail_start, tail_end)] if tail_end > tail_start else []
        return []

    # Headings stay with the text they introduce

    def _heading_lead(self, new_text: list[Span], piece: Span) -> list[Span]:
        """Trailing heading pieces of a full window's ``new_text`` that should open the chunk of
        ``piece`` instead of ending the chunk being closed.

        Only body text pulls headings forward (a run of headings, like a table of contents, packs
        as usual), only as many as fit with ``piece`` in ``size`` (the evening-out limit gives
        way to them), and only when the closed chunk keeps some new body text: moving headings
        from a chunk that adds nothing but headings would only strand the ones left behind.
        """
        if self._ends_with_heading(piece):
            return []
        first = len(new_text)
        while (
            first > 0
            and self._ends_with_heading(new_text[first - 1])
            and self.measure.length(new_text[first - 1][0], piece[1]) <= self.size
        ):
            first -= 1
        return [] if self._only_headings(new_text[:first]) else new_text[first:]

    def _joins_heading_run(self, fitting: list[Span], piece: Span) -> bool:
        """True when ``piece`` is heading lines right after heading lines, and the two together
        take at most half of ``size``: such a run (a title over a subtitle) moves as one piece.

        Longer runs, like a table of contents, stay separate pieces and pack as usual.
        """
        return (
            bool(fitting)
            and self._ends_with_heading(piece)
            and self._ends_with_heading(fitting[-1])
            and 2 * self.measure.length(fitting[-1][0], piece[1]) <= self.size
        )

    def _crowds_out_heading(self, fitting: list[Span], piece: Span) -> bool:
        """True when ``piece`` fits alone but not after the heading lines that end ``fitting``.

        Packing it whole would close a chunk on those headings, so it is split finer instead and
        its first parts join them. Only for headings that take at most half of ``size``: a chunk
        they open should still be mostly the text they introduce, and making room next to longer
        ones would cut the text into slivers (down to single characters).
        """
        if self._ends_with_heading(piece):
            return False
        first = len(fitting)
        while first > 0 and self._ends_with_heading(fitting[first - 1]):
            first -= 1
        if first == len(fitting):
            return False
        length = self.measure.length
        headings_start = fitting[first][0]
        return length(headings_start, piece[1]) > self.size and 2 * length(headings_start, fitting[-1][1]) <= self.size

    def _detach_trailing_headings(self, piece: Span) -> list[Span]:
        """``piece`` split into its body and the heading lines it ends with, when it has both."""
        start, end = piece
        if end not in self._heading_line_ends:
            return [piece]
        headings_start = end
        for offset in reversed(self.headings.heading_offsets_between(start - 1, end)):
            if self.markdown[self._heading_line_end(offset) : headings_start].strip():
                break  # body text between this heading and the ones after it
            headings_start = offset
        body_start, body_end = trim_whitespace(self.markdown, start, headings_start)
        return [(body_start, body_end), (headings_start, end)] if body_end > body_start else [piece]

    def _only_headings(self, pieces: list[Span]) -> bool:
        return all(self._ends_with_heading(piece) for piece in pieces)

    def _ends_with_heading(self, piece: Span) -> bool:
        return piece[1] in self._heading_line_ends

    def _heading_line_end(self, heading_start: int) -> int:
        line_end = self.markdown.find("\n", heading_start)
        return trim_whitespace(self.markdown, heading_start, len(self.markdown) if line_end < 0 else line_end)[1]

    # Separators, coarsest first

    def _cuts(self, separator: int, start: int, end: int) -> list[int]:
        """Sorted offsets strictly inside ``(start, end)`` where ``separator`` allows a cut."""
        return sorted(set(self._separators[separator](start, end)))

    def _word_boundary_cuts(self, piece: Span) -> list[list[int]]:
        """The cuts inside ``piece`` of each separator coarser than single units that has any,
        coarsest first. Kept per piece: packing at several size limits asks for the same again."""
        levels = self._word_boundary_cuts_by_piece.get(piece)
        if levels is None:
            all_levels = (self._cuts(separator, *piece) for separator in range(len(self._separators) - 1))
            levels = self._word_boundary_cuts_by_piece[piece] = [cuts for cuts in all_levels if cuts]
        return levels

    def _heading_cuts(self, level: int) -> Callable[[int, int], list[int]]:
        return lambda start, end: self.headings.heading_offsets_between(start, end, level)

    def _fence_cuts(self, start: int, end: int) -> list[int]:
        cuts: list[int] = []
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
