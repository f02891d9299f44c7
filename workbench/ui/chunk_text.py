"""A chunk's text as a reader expects to see it: its Markdown tables drawn as tables, the rest as
written.

Chunk text is canonical Markdown (the parsers write PDF and Office tables as pipe tables), but
it comes from the user's documents, so it is never rendered as Markdown wholesale: a link or an
image in it would be followed. Only the table rows are rebuilt, each cell escaped
(``md_escape``), and every other line shows as plain text. A chunk cut inside a table has rows
without the header and its ``---`` line; they are drawn under an empty header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import streamlit as st

from workbench.ui.text import md_escape

_SEPARATOR_CELL = re.compile(r"^\s*:?-{3,}:?\s*$")
_CELL_BORDER = re.compile(r"(?<!\\)\|")


@dataclass(frozen=True)
class TextPiece:
    #: "text" (shown as written) or "table" (``markdown`` holds the table, its cells escaped)
    kind: str
    text: str


def _is_row(line: str) -> bool:
    stripped = line.strip()
    return len(stripped) > 1 and stripped.startswith("|") and stripped.endswith("|")


def _cells(line: str) -> list[str]:
    inner = line.strip()[1:-1]
    return [cell.strip().replace("\\|", "|") for cell in _CELL_BORDER.split(inner)]


def _is_separator(cells: list[str]) -> bool:
    return all(_SEPARATOR_CELL.match(cell) for cell in cells)


def table_markdown(rows: list[str]) -> str:
    """Pipe-table ``rows`` (their ``---`` line included, if any) as a Markdown table whose cells
    render exactly as written."""
    parsed = [_cells(row) for row in rows]
    header: list[str] = []
    if len(parsed) > 1 and _is_separator(parsed[1]):
        header, body = parsed[0], parsed[2:]
    else:
        body = [cells for cells in parsed if not _is_separator(cells)]
    width = max(len(cells) for cells in [header, *body])
    header = header + [""] * (width - len(header))

    def line(cells: list[str]) -> str:
        padded = cells + [""] * (width - len(cells))
        return "| " + " | ".join(md_escape(cell) for cell in padded) + " |"

    return "\n".join([line(header), "| " + " | ".join(["---"] * width) + " |", *(line(cells) for cells in body)])


def pieces(text: str) -> list[TextPiece]:
    """``text`` cut into runs of plain lines and pipe tables (two or more consecutive rows)."""
    lines = text.split("\n")
    found: list[TextPiece] = []
    plain: list[str] = []
    index = 0
    while index < len(lines):
        end = index
        while end < len(lines) and _is_row(lines[end]):
            end += 1
        if end - index >= 2:
            if "\n".join(plain).strip():
                found.append(TextPiece("text", "\n".join(plain).strip("\n")))
            plain = []
            found.append(TextPiece("table", table_markdown(lines[index:end])))
            index = end
            continue
        plain.append(lines[index])
        index += 1
    if "\n".join(plain).strip():
        found.append(TextPiece("text", "\n".join(plain).strip("\n")))
    return found


def show_chunk_text(text: str) -> None:
    """Draw ``text``: plain runs as ``st.text``, tables as Markdown tables."""
    for piece in pieces(text) or [TextPiece("text", text)]:
        if piece.kind == "table":
            st.markdown(piece.text)
        else:
            st.text(piece.text)
