"""Reading order: a page's rows and tables, split into its columns where it has two.

A gutter is a vertical strip near the middle of the page that no glyph of a run of rows
crosses, with text on both sides. Rows that cross it (a title over both columns, a paragraph set
across the page above or below the columns, a centred footer) end one band of columns and start
the next; the gutter is the strip that puts the most rows into two-column bands. Within a
two-column band the left column is read before the right. Narrow "columns" (table cells) are
not columns: each side must be at least ``MIN_COLUMN_SHARE`` of the page wide, and neither side may
be cut by wide gaps in most of its rows (a borderless table's columns). A band's first
and last rows may belong to the text above or below it (``_peel_head``, ``_peel_tail``), and
so may rows of a table that leave the gutter free (``_foreign_ends``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from workbench.ingestion.parsers.pdf.rows import Row
from workbench.ingestion.parsers.pdf.tables import TableBlock

Item = Row | TableBlock

#: the gutter's middle lies in this share of the page width
GUTTER_ZONE = (0.3, 0.7)
#: each column's text spans at least this share of the page width
MIN_COLUMN_SHARE = 0.25
#: a gutter needs this many rows on either side
MIN_SPLIT_ROWS = 4
#: and is at least this wide (points)
MIN_GUTTER_PT = 6
#: the strips of least cover tried as the gutter
MAX_CANDIDATES = 6
#: a row of a table under or over the columns: its left part ends this many ems short of the left
#: column's edge, and its right part starts this many ems right of the right column's lines
FOREIGN_SHORT_EM = 2.0
FOREIGN_INDENT_EM = 4.0
#: rows whose sizes differ by more than this (points) are set in another type
SAME_TYPE_PT = 0.6
#: a strip takes in neighbouring points covered by at most this many more rows
COVER_SLACK = 2


@dataclass(frozen=True)
class Region:
    """Items read one after another, top to bottom (one column of a band, or a whole band)."""

    items: tuple[Item, ...]
    column: bool = False  # one column of a two-column band


def _cover(rows: Sequence[Row], low: int, high: int) -> list[int]:
    """For every whole point from ``low`` to ``high``: how many rows have text across it."""
    cover = [0] * (high - low + 1)
    for row in rows:
        for piece in row.pieces:
            for x in range(max(int(piece.x0) + 1, low), min(math.ceil(piece.x1) - 1, high) + 1):
                cover[x - low] += 1
    return cover


def _candidates(cover: list[int], low: int) -> list[float]:
    """Middles of the strips whose cover is lower than on either side of them (a strip that runs
    to the zone's edge does not count), least covered first. A strip is a run of equal cover
    widened while the cover stays within ``COVER_SLACK`` of it (a row ending in the gutter, or a
    glyph reaching into it, should not cut a gutter in two), and is at least ``MIN_GUTTER_PT``."""
    strips: set[tuple[int, int, float]] = set()
    start = 0
    for index in range(1, len(cover) + 1):
        if index < len(cover) and cover[index] == cover[start]:
            continue
        value = cover[start]
        if start > 0 and index < len(cover) and cover[start - 1] > value < cover[index]:
            left, right = start, index
            while left > 0 and cover[left - 1] <= value + COVER_SLACK:
                left -= 1
            while right < len(cover) and cover[right] <= value + COVER_SLACK:
                right += 1
            if right - left >= MIN_GUTTER_PT and left > 0 and right < len(cover):
                strips.add((value, left - right, low + (left + right) / 2))
        start = index
    return [middle for _value, _width, middle in sorted(strips)[:MAX_CANDIDATES]]


def _two_column_rows(items: Sequence[Item], x: float, width: float) -> int:
    """How many items fall in bands that read as two columns when split at ``x``."""
    total = 0
    band: list[Item] = []
    for item in [*items, None]:
        if item is None or _crosses(item, x):
            if band and _is_two_columns(band, x, width):
                total += len(band)
            band = []
        else:
            band.append(item)
    return total


def _gutter(items: Sequence[Item], width: float) -> float | None:
    """The middle of the strip near the middle of the page that splits the most rows into two
    columns: a strip that rows of text cross less than on either side of it, so the rows that
    do not cross it form bands with text on both sides. The rows that cross it (a title or a
    paragraph over both columns) only end a band; None when no band reads as two columns."""
    rows = [item for item in items if isinstance(item, Row)]
    low, high = int(GUTTER_ZONE[0] * width), int(GUTTER_ZONE[1] * width)
    if len(rows) < 2 * MIN_SPLIT_ROWS or high <= low:
        return None
    best: tuple[int, float] | None = None
    for middle in _candidates(_cover(rows, low, high), low):
        split = _two_column_rows(items, middle, width)
        if split and (best is None or split > best[0]):
            best = (split, middle)
    return best[1] if best else None


def _crosses(item: Item, x: float) -> bool:
    if isinstance(item, TableBlock):
        return item.x0 < x < item.x1
    return any(glyph.x0 < x < glyph.x1 for glyph in item.glyphs) or any(
        piece.x0 < x < piece.x1 for piece in item.pieces
    )


def _split(item: Item, x: float) -> tuple[Item | None, Item | None]:
    if isinstance(item, TableBlock):
        return (item, None) if item.x1 <= x else (None, item)
    return item.left_of(x), item.right_of(x)


def _is_two_columns(band: Sequence[Item], x: float, width: float) -> bool:
    halves = [_split(item, x) for item in band]
    lefts = [left for left, _ in halves if left is not None]
    rights = [right for _, right in halves if right is not None]
    if min(len(lefts), len(rights)) < MIN_SPLIT_ROWS:
        return False
    span_left = max(item.x1 for item in lefts) - min(item.x0 for item in lefts)
    span_right = max(item.x1 for item in rights) - min(item.x0 for item in rights)
    return min(span_left, span_right) >= MIN_COLUMN_SHARE * width and not (_tabular(lefts) or _tabular(rights))


def _tabular(side: Sequence[Item]) -> bool:
    """Most of a side's rows are cut by wide gaps: it is part of a table (a borderless table whose
    columns leave a strip free), not a column of text, whose lines are one piece each."""
    rows = [item for item in side if isinstance(item, Row)]
    return sum(len(row.pieces) > 1 for row in rows) * 2 > len(rows)


def _side(item: Item, x: float) -> int | None:
    """0 when ``item`` has text left of ``x`` only, 1 when right of it only, None when both."""
    left, right = _split(item, x)
    if right is None:
        return 0
    return 1 if left is None else None


def _has_side(item: Item, x: float, side: int) -> bool:
    return _split(item, x)[side] is not None


def _peel_head(band: Sequence[Item], x: float, before: Item | None) -> int:
    """How many rows at the top of ``band`` belong to the text above it: rows on one side only,
    above the other column's first row, and nearer to the item above than to the next row on
    their side (the last line of a paragraph set across the page is short, so it crosses no
    gutter)."""
    peeled = 0
    while before is not None and peeled < len(band) - 1:
        item, rest = band[peeled], band[peeled + 1 :]
        side = _side(item, x)
        other = next((later for later in rest if _side(later, x) != side), None)
        same = next((later for later in rest if _has_side(later, x, side or 0)), None)
        if side is None or other is None or same is None or item.bottom > other.top:
            break
        if item.top - before.bottom > same.top - item.bottom:
            break
        before = item
        peeled += 1
    return peeled


def _peel_tail(band: Sequence[Item], x: float, after: Item | None) -> int:
    """How many rows at the bottom of ``band`` belong to the text below it: rows on one side only,
    below the other column's last row, and nearer to the item below than to the row above them on
    their side, or set in another type than that row (a heading never ends a column: a short
    heading over a paragraph set across the page crosses no gutter)."""
    peeled = 0
    while after is not None and peeled < len(band) - 1:
        item, rest = band[len(band) - 1 - peeled], band[: len(band) - 1 - peeled]
        side = _side(item, x)
        other = next((earlier for earlier in reversed(rest) if _side(earlier, x) != side), None)
        same = next((earlier for earlier in reversed(rest) if _has_side(earlier, x, side or 0)), None)
        if side is None or other is None or same is None or item.top < other.bottom:
            break
        if after.top - item.bottom > item.top - same.bottom and not _other_type(item, same):
            break
        after = item
        peeled += 1
    return peeled


def _foreign_ends(band: Sequence[Item], x: float) -> tuple[int, int]:
    """How many rows at the top and at the bottom of ``band`` have text on both sides of ``x`` but
    follow neither column: the left part ends well short of the left column's right edge, and
    the right part starts well right of where the right column's lines start. They are rows of a
    table above or below the columns whose cells happen to leave the gutter free."""
    halves = [_split(item, x) for item in band]
    left_ends = [left.x1 for left, _ in halves if left is not None]
    right_starts = Counter(round(right.x0) for _, right in halves if right is not None)
    if not left_ends or not right_starts:
        return 0, 0
    left_edge, right_edge = max(left_ends), right_starts.most_common(1)[0][0]

    def foreign(index: int) -> bool:
        item, (left, right) = band[index], halves[index]
        if not isinstance(item, Row) or left is None or right is None:
            return False
        size = item.size
        return left.x1 < left_edge - FOREIGN_SHORT_EM * size and right.x0 > right_edge + FOREIGN_INDENT_EM * size

    head = 0
    while head < len(band) and foreign(head):
        head += 1
    tail = 0
    while tail < len(band) - head and foreign(len(band) - 1 - tail):
        tail += 1
    return head, tail


def _other_type(item: Item, reference: Item) -> bool:
    if isinstance(item, TableBlock) or isinstance(reference, TableBlock):
        return False
    return (
        abs(item.size - reference.size) > SAME_TYPE_PT or item.bold != reference.bold or item.colour != reference.colour
    )


def reading_order(items: Sequence[Item], width: float) -> list[Region]:
    """The page's items as regions in reading order (``items`` sorted top to bottom)."""
    gutter = _gutter(items, width)
    if gutter is None:
        return [Region(tuple(items))]
    regions: list[Region] = []
    band: list[Item] = []

    def close_band(after: Item | None) -> None:
        if not band:
            return
        before = regions[-1].items[-1] if regions and not regions[-1].column else None
        foreign_head, foreign_tail = _foreign_ends(band, gutter)
        core = band[foreign_head : len(band) - foreign_tail]
        if foreign_head:
            before = band[foreign_head - 1]
        if foreign_tail:
            after = band[len(band) - foreign_tail]
        head = _peel_head(core, gutter, before)
        tail = _peel_tail(core[head:], gutter, after)
        middle = core[head : len(core) - tail]
        if foreign_head + head:
            regions.append(Region(tuple(band[: foreign_head + head])))
        if _is_two_columns(middle, gutter, width):
            halves = [_split(item, gutter) for item in middle]
            regions.append(Region(tuple(left for left, _ in halves if left is not None), column=True))
            regions.append(Region(tuple(right for _, right in halves if right is not None), column=True))
        elif middle:
            regions.append(Region(tuple(middle)))
        if tail + foreign_tail:
            regions.append(Region(tuple(band[len(band) - tail - foreign_tail :])))
        band.clear()

    for item in items:
        if _crosses(item, gutter):
            close_band(item)
            regions.append(Region((item,)))
        else:
            band.append(item)
    close_band(None)
    return _merged(regions)


def _merged(regions: list[Region]) -> list[Region]:
    """Neighbouring full-width regions read as one (so a paragraph can continue across them)."""
    merged: list[Region] = []
    for region in regions:
        if merged and not merged[-1].column and not region.column:
            merged[-1] = Region(merged[-1].items + region.items)
        else:
            merged.append(region)
    return merged
