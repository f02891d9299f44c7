"""Blocks to Markdown: ``#`` headings, ``-`` and ``1.`` list items, pipe tables, paragraphs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from workbench.ingestion.parsers.pdf.blocks import Block, Style
from workbench.ingestion.parsers.pdf.headings import is_heading
from workbench.ingestion.parsers.pdf.tables import TableBlock


def table_markdown(table: TableBlock) -> str:
    width = max(len(row) for row in table.cells)

    def line(cells: Sequence[str]) -> str:
        padded = list(cells) + [""] * (width - len(cells))
        return "| " + " | ".join(cell.replace("|", "\\|").replace("\n", " ") for cell in padded) + " |"

    header, *body = table.cells
    return "\n".join([line(header), "| " + " | ".join(["---"] * width) + " |", *(line(row) for row in body)])


def page_markdown(blocks: Sequence[Block], style: Style, levels: Mapping[float, int]) -> str:
    parts: list[str] = []
    previous_item = False
    for block in blocks:
        if isinstance(block, TableBlock):
            text, item = table_markdown(block), False
        elif block.kind == "item":
            text, item = f"{block.marker} {block.text}", True
        elif is_heading(block, style) and block.size in levels:
            text, item = f"{'#' * levels[block.size]} {block.text}", False
        else:
            text, item = block.text, False
        separator = "\n" if item and previous_item else "\n\n"
        parts.append(separator + text if parts else text)
        previous_item = item
    return "".join(parts)
