"""Reading order: a page's rows and tables, split into its columns where it has two.

A gutter is a vertical strip near the middle of the page that no glyph of a run of rows
crosses, with text on both sides. Rows that cross it (a title over both columns, a centred
footer) end one band of columns and start the next. Within a two-column band the left column
is read before the right. Narrow "columns" (table cells) are not columns: each side must be at
least ``MIN_COLUMN_SHARE`` of the page wide.
"""

from __future__ import annotations

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


@dataclass(frozen=True)
class Region:
    """Items read one after another, top to bottom (one column of a band, or a whole band)."""

    items: tuple[Item, ...]
    column: bool = False  # one column of a two-column band


def _gutter(rows: Sequence[Row], width: float) -> float | None:
    """The middle of the widest strip in the gutter zone that (almost) no row's text covers, with
    enough rows on either side of it; None when the page has no such strip."""
    low, high = int(GUTTER_ZONE[0] * width), int(GUTTER_ZONE[1] * width)
    cover = [0] * (high - low + 1)
    for row in rows:
        for piece in row.pieces:
            for x in range(max(int(piece.x0), low), min(int(piece.x1), high) + 1):
                cover[x - low] += 1
    least = min(cover, default=0)
    if not cover or least > max(2, len(rows) // 10):
        return None
    widest: tuple[int, int] = (0, 0)
    start: int | None = None
    for index, count in enumerate([*cover, least + 1]):
        if count == least and start is None:
            start = index
        elif count != least and start is not None:
            widest = max(widest, (index - start, start))
            start = None
    run, first = widest
    if run < MIN_GUTTER_PT:
        return None
    middle = low + first + run / 2
    left = sum(1 for row in rows if row.left_of(middle) is not None)
    right = sum(1 for row in rows if row.right_of(middle) is not None)
    return middle if min(left, right) >= MIN_SPLIT_ROWS else None


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
    return min(span_left, span_right) >= MIN_COLUMN_SHARE * width


def reading_order(items: Sequence[Item], width: float) -> list[Region]:
    """The page's items as regions in reading order (``items`` sorted top to bottom)."""
    rows = [item for item in items if isinstance(item, Row)]
    gutter = _gutter(rows, width)
    if gutter is None:
        return [Region(tuple(items))]
    regions: list[Region] = []
    band: list[Item] = []

    def close_band() -> None:
        if not band:
            return
        if _is_two_columns(band, gutter, width):
            halves = [_split(item, gutter) for item in band]
            regions.append(Region(tuple(left for left, _ in halves if left is not None), column=True))
            regions.append(Region(tuple(right for _, right in halves if right is not None), column=True))
        else:
            regions.append(Region(tuple(band)))
        band.clear()

    for item in items:
        if _crosses(item, gutter):
            close_band()
            regions.append(Region((item,)))
        else:
            band.append(item)
    close_band()
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
