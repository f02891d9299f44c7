"""Glyphs to rows: the glyphs that share a baseline, left to right, with their text and pieces.

A row may still span several columns of a page (``columns`` splits it); ``pieces`` are its runs
of glyphs separated by gaps wider than ``PIECE_GAP_EM`` (column gutters, table cells). A line of
justified text whose spaces are stretched that wide is one piece: each of its wide gaps has a
space glyph in it, and justification widens all of a line's spaces alike.

Spaces come from gaps, not from space glyphs: a gap wider than ``SPACE_GAP_EM`` of the font size
is a space, except between two CJK characters, where only a gap as wide as a character is
(justified Chinese stretches every gap, and has no spaces); and a space glyph drawn between two
glyphs is a space.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from workbench.ingestion.parsers.pdf.bidi import is_rtl, logical_order
from workbench.ingestion.parsers.pdf.glyphs import UNMAPPED, Colour, Glyph, is_cjk

SPACE_GAP_EM = 0.15
CJK_SPACE_GAP_EM = 1.0
PIECE_GAP_EM = 1.0
#: glyphs whose middles are this close (in ems of the smaller size) sit on one baseline
SAME_LINE_EM = 0.4
#: the spaces of a justified line are as wide as each other within this many points and this share
SAME_SPACE = (0.5, 0.05)


@dataclass(frozen=True)
class Row:
    """Glyphs on one baseline, sorted left to right."""

    glyphs: tuple[Glyph, ...]

    @cached_property
    def x0(self) -> float:
        return self.glyphs[0].x0

    @cached_property
    def x1(self) -> float:
        return max(glyph.x1 for glyph in self.glyphs)

    @cached_property
    def top(self) -> float:
        return min(glyph.top for glyph in self.glyphs)

    @cached_property
    def bottom(self) -> float:
        return max(glyph.bottom for glyph in self.glyphs)

    @cached_property
    def size(self) -> float:
        """The font size most of the row's characters are set in."""
        return Counter(glyph.size for glyph in self.glyphs).most_common(1)[0][0]

    @cached_property
    def bold(self) -> bool:
        letters = [glyph for glyph in self.glyphs if glyph.text != UNMAPPED]
        return bool(letters) and sum(glyph.bold for glyph in letters) * 2 > len(letters)

    @cached_property
    def italic(self) -> bool:
        letters = [glyph for glyph in self.glyphs if glyph.text != UNMAPPED]
        return bool(letters) and sum(glyph.italic for glyph in letters) * 2 > len(letters)

    @cached_property
    def colour(self) -> Colour:
        """The colour most of the row's characters are painted in."""
        return Counter(glyph.colour for glyph in self.glyphs).most_common(1)[0][0]

    @cached_property
    def text(self) -> str:
        return glyph_run_text(self.glyphs)

    @cached_property
    def pieces(self) -> tuple[Row, ...]:
        return tuple(Row(run) for run in split_at_gaps(self.glyphs, PIECE_GAP_EM, self.stretched_spaces))

    @cached_property
    def stretched_spaces(self) -> bool:
        """A line of justified text with its spaces stretched to a piece gap or more: every gap that
        a space glyph was drawn in is as wide as every other (within ``SAME_SPACE``). A table
        row whose cells end in a space has narrow spaces inside its cells and a wide one between."""
        spaces = [
            right.x0 - left.x1
            for left, right in zip(self.glyphs, self.glyphs[1:], strict=False)
            if right.space_before and right.x0 > left.x1
        ]
        if not spaces or max(spaces) <= PIECE_GAP_EM * self.size:
            return False
        return max(spaces) - min(spaces) <= SAME_SPACE[0] + SAME_SPACE[1] * max(spaces)

    def left_of(self, x: float) -> Row | None:
        kept = tuple(glyph for glyph in self.glyphs if glyph.x1 <= x)
        return Row(kept) if kept else None

    def right_of(self, x: float) -> Row | None:
        kept = tuple(glyph for glyph in self.glyphs if glyph.x0 >= x)
        return Row(kept) if kept else None


def split_at_gaps(glyphs: Sequence[Glyph], gap_em: float, keep_spaces: bool = False) -> list[tuple[Glyph, ...]]:
    """Runs of ``glyphs`` (sorted by x) broken where a gap exceeds ``gap_em`` of the font size; with
    ``keep_spaces``, never where a space glyph was drawn."""
    runs: list[list[Glyph]] = []
    for glyph in glyphs:
        if runs and (
            keep_spaces
            and glyph.space_before
            or glyph.x0 - runs[-1][-1].x1 <= gap_em * max(glyph.size, runs[-1][-1].size)
        ):
            runs[-1].append(glyph)
        else:
            runs.append([glyph])
    return [tuple(run) for run in runs]


def needs_space(left: Glyph, right: Glyph) -> bool:
    if is_mark(right.text[0]):
        return False  # a combining mark (Persian's hamza above ٔ) drawn apart from its letter
    gap = right.x0 - left.x1
    size = min(left.size, right.size) or 1.0
    if right.space_before and gap > -0.1 * size:
        return True
    if is_cjk(left.text[-1]) and is_cjk(right.text[0]):
        return gap > CJK_SPACE_GAP_EM * size
    return gap > SPACE_GAP_EM * size


def is_mark(character: str) -> bool:
    return unicodedata.category(character).startswith("M")


def _marks_after_letters(glyphs: Sequence[Glyph]) -> Sequence[Glyph]:
    """The glyphs left to right, each combining mark straight after the letter it is drawn over
    (the one whose box holds its middle): sorted by their left edges, a mark wider than its letter
    (an Arabic tanween over an alef) would come before it, or after a space."""

    def placed_over(glyph: Glyph) -> bool:  # Arabic and Hebrew marks (other scripts' keep their order)
        return bool(glyph.text) and is_mark(glyph.text[0]) and is_rtl(glyph.text[0])

    if not any(placed_over(glyph) for glyph in glyphs):
        return glyphs
    letters = [glyph for glyph in glyphs if not placed_over(glyph)]
    after: dict[int, list[Glyph]] = {}
    for glyph in glyphs:
        if placed_over(glyph) and letters:
            middle = (glyph.x0 + glyph.x1) / 2
            base = min(letters, key=lambda letter: abs((letter.x0 + letter.x1) / 2 - middle))
            after.setdefault(id(base), []).append(glyph)
    return [placed for letter in letters for placed in (letter, *after.get(id(letter), []))]


def glyph_run_text(glyphs: Sequence[Glyph]) -> str:
    """The text of glyphs on one line, spaces where the gaps are; unmapped glyphs left out;
    right-to-left words in the order they are read (``bidi``)."""
    parts: list[str] = []
    previous: Glyph | None = None
    for glyph in _marks_after_letters(glyphs):
        if glyph.text == UNMAPPED:
            continue
        if previous is not None and is_mark(previous.text[0]) and not is_mark(glyph.text[0]):
            # a mark sits inside its letter's box: the gap to the next glyph is from the letter
            previous = max((g for g in glyphs if g.x1 <= glyph.x0 + 0.1 and not is_mark(g.text[0])),
                           key=lambda g: g.x1, default=previous)  # fmt: skip
        if previous is not None:
            if glyph.text == previous.text and abs(glyph.x0 - previous.x0) < 0.2 * glyph.size:
                continue  # drawn twice to look bold
            if needs_space(previous, glyph):
                parts.append(" ")
        parts.append(glyph.text)
        previous = glyph
    return logical_order("".join(parts).strip())


def rows_of(glyphs: Iterable[Glyph]) -> list[Row]:
    """Glyphs grouped into rows (top to bottom), each sorted left to right."""
    ordered = sorted(glyphs, key=lambda glyph: (glyph.middle, glyph.x0))
    groups: list[list[Glyph]] = []
    middles: list[float] = []
    for glyph in ordered:
        if groups:
            reference = groups[-1][0]
            tolerance = SAME_LINE_EM * min(glyph.size, reference.size)
            if abs(glyph.middle - middles[-1]) <= tolerance:
                groups[-1].append(glyph)
                continue
        groups.append([glyph])
        middles.append(glyph.middle)
    return [Row(tuple(sorted(group, key=lambda glyph: glyph.x0))) for group in groups]
