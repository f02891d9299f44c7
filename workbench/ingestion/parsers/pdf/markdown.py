"""Blocks to Markdown: ``#`` headings, ``-`` and ``1.`` list items, pipe tables, fenced code, paragraphs.

An item whose marker stands at least ``NEST_EM`` right of the item before it is nested under it,
indented to that item's text as CommonMark wants.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from workbench.ingestion.parsers.pdf.bidi import rtl_share
from workbench.ingestion.parsers.pdf.blocks import Block, Style, TextBlock
from workbench.ingestion.parsers.pdf.headings import is_heading
from workbench.ingestion.parsers.pdf.tables import TableBlock


def table_markdown(table: TableBlock) -> str:
    width = max(len(row) for row in table.cells)

    def line(cells: Sequence[str]) -> str:
        padded = list(cells) + [""] * (width - len(cells))
        return "| " + " | ".join(cell.replace("|", "\\|").replace("\n", " ") for cell in padded) + " |"

    rows = [list(row) + [""] * (width - len(row)) for row in table.cells]
    if rtl_share(" ".join(cell for row in rows for cell in row)) > 0.5:
        # a right-to-left table's first column is its rightmost: cells are found left to right
        rows = [row[::-1] for row in rows]
    header, *body = rows
    return "\n".join([line(header), "| " + " | ".join(["---"] * width) + " |", *(line(row) for row in body)])


#: a marker this many ems right of the open item's marker nests under it
NEST_EM = 1.0


def _item_line(block: TextBlock, open_items: list[tuple[float, int]]) -> str:
    """The item as a Markdown line, indented under the open item it nests in; updates
    ``open_items`` ((marker x, where the item's text starts) of the items still open)."""
    reach = NEST_EM * block.size
    while open_items and block.x0 < open_items[-1][0] + reach:
        open_items.pop()
    indent = open_items[-1][1] if open_items else 0
    open_items.append((block.x0, indent + len(block.marker) + 1))
    return f"{' ' * indent}{block.marker} {block.text}"


def page_markdown(blocks: Sequence[Block], style: Style, levels: Mapping[float, int]) -> str:
    parts: list[str] = []
    previous_item = False
    open_items: list[tuple[float, int]] = []
    for block in blocks:
        if not isinstance(block, TextBlock) or block.kind != "item":
            open_items.clear()
        if isinstance(block, TableBlock):
            text, item = table_markdown(block), False
        elif block.kind == "item":
            text, item = _item_line(block, open_items), True
        elif block.kind == "code":
            text, item = f"```\n{block.text}\n```", False
        elif is_heading(block, style) and block.size in levels:
            text, item = f"{'#' * levels[block.size]} {block.text}", False
        else:
            text, item = block.text, False
        separator = "\n" if item and previous_item else "\n\n"
        parts.append(separator + text if parts else text)
        previous_item = item
    return "".join(parts)
