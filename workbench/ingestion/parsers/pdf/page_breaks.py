"""Tables cut by a page break: a header (or first rows) left alone at the foot of a page joins the
table that heads the next page.

Producers break a table between rows, and nothing keeps its header with the first row: a page can
end with the header alone, which was read as a heading (a bold short line) or a paragraph. When
the next page starts with a table, and each of the last rows' pieces falls within one of that
table's columns (none across a column's edge), those rows are that table's first rows. They are
written on the next page, with the table, so that page's Markdown holds a few words that the
page before it shows.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

from workbench.ingestion.parsers.pdf.blocks import Block, TextBlock
from workbench.ingestion.parsers.pdf.rows import Row
from workbench.ingestion.parsers.pdf.tables import TableBlock


def tables_across_pages(pages: list[list[Block]]) -> None:
    """Move the rows a table left at the foot of a page to the table heading the next page (in place)."""
    for this, following in pairwise(pages):
        if not this or not following or not isinstance(following[0], TableBlock) or not following[0].cuts:
            continue
        table = following[0]
        moved: list[tuple[str, ...]] = []
        while this and (cells := _row_cells(this[-1], table)) is not None:
            moved.insert(0, cells)
            this.pop()
        if moved:
            following[0] = replace(table, cells=(*moved, *table.cells))


def _row_cells(block: Block, table: TableBlock) -> tuple[str, ...] | None:
    """The cells of ``block`` in ``table``'s columns, when it is a one-line row of them."""
    if not isinstance(block, TextBlock) or block.kind != "paragraph" or block.rows != 1 or block.first is None:
        return None
    row: Row = block.first
    pieces = row.pieces
    if len(pieces) < 2 or any(piece.x0 < cut < piece.x1 for piece in pieces for cut in table.cuts):
        return None
    cells = [""] * (len(table.cuts) + 1)
    for piece in pieces:
        column = sum(piece.x0 > cut for cut in table.cuts)
        cells[column] = f"{cells[column]} {piece.text}".strip()
    width = max(len(cells_row) for cells_row in table.cells)
    return tuple(cells) if len(cells) == width and sum(bool(cell) for cell in cells) >= 2 else None
