"""Rows of one region into blocks: heading candidates, list items, paragraphs and tables.

Consecutive rows belong to one block while they share a style (size and weight), follow at the
usual line pitch and start where the block's lines start. A row that starts with a bullet or a
number followed by a gap starts a list item; rows indented to the item's text continue it. A
line ends its paragraph when the next line's first word would have fit after it (ragged or
justified, the writer broke there on purpose).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from workbench.ingestion.parsers.pdf.columns import Item, Region
from workbench.ingestion.parsers.pdf.glyphs import UNMAPPED, is_cjk
from workbench.ingestion.parsers.pdf.paragraphs import join_lines
from workbench.ingestion.parsers.pdf.rows import Row, glyph_run_text, needs_space
from workbench.ingestion.parsers.pdf.tables import TableBlock, is_marker, unruled_table, unruled_table_runs

#: a paragraph ends when the next row is further than this many of its usual pitches below
PARAGRAPH_GAP = 1.3
_NUMBER = re.compile(r"^(\d{1,3}|[a-zA-Z])([.)])$|^\((\d{1,3})\)$")


@dataclass(frozen=True)
class TextBlock:
    """A run of rows read as one: ``kind`` is paragraph or item (with its ``marker``)."""

    kind: str
    text: str
    size: float
    bold: bool
    rows: int
    marker: str = ""  # "-" or "3." for items


Block = TextBlock | TableBlock


@dataclass(frozen=True)
class Style:
    """The document's body text: font size and line pitch (baseline to baseline)."""

    body_size: float
    body_pitch: float


def list_marker(row: Row) -> tuple[str, Row] | None:
    """("-" or "N.", the rest of the row) when the row starts with a list marker.

    A marker is a bullet glyph (or a glyph with no Unicode mapping, as word processors draw
    bullets), a dash or a number ("3." "3)" "(3)" "c.") set apart from the text by a gap.
    """
    pieces = row.pieces
    first = pieces[0]
    if len(pieces) >= 2 and len(first.glyphs) <= 4 and is_marker(first.text or UNMAPPED):
        return _marker_text(first.text), Row(tuple(glyph for piece in pieces[1:] for glyph in piece.glyphs))
    glyphs = row.glyphs
    if len(glyphs) > 1 and glyphs[0].text in _BULLETS:
        return "-", Row(glyphs[1:])
    end = 0
    while end < len(glyphs) and end < 3 and glyphs[end].text.isdigit():
        end += 1
    if 0 < end < len(glyphs) - 1 and glyphs[end].text in ".)" and needs_space(glyphs[end], glyphs[end + 1]):
        return f"{''.join(g.text for g in glyphs[:end])}.", Row(glyphs[end + 1 :])
    return None


_BULLETS = frozenset("\u2022\u25cf\u25aa\u25a0\u25e6\u2023\u2043\u2219" + UNMAPPED)


def _marker_text(marker: str) -> str:
    number = _NUMBER.match(marker)
    if number:
        return f"{number.group(1) or number.group(3)}."
    return "-"


def _pitch(style: Style, size: float) -> float:
    return style.body_pitch * size / style.body_size if style.body_size else size * 1.2


def region_blocks(region: Region, style: Style) -> list[Block]:
    items = list(region.items)
    rows = [item for item in items if isinstance(item, Row)]
    right_edge = max((row.x1 for row in rows), default=0.0)
    blocks: list[Block] = []
    position = 0
    while position < len(items):
        item = items[position]
        if isinstance(item, TableBlock):
            blocks.append(item)
            position += 1
            continue
        run = _row_run(items, position)
        blocks.extend(_blocks_of_rows(run, style, right_edge))
        position += len(run)
    return blocks


def _row_run(items: Sequence[Item], start: int) -> list[Row]:
    run: list[Row] = []
    for item in items[start:]:
        if not isinstance(item, Row):
            break
        run.append(item)
    return run


def _blocks_of_rows(rows: Sequence[Row], style: Style, right_edge: float) -> list[Block]:
    blocks: list[Block] = []
    tables = unruled_table_runs(rows)
    position = 0
    for start, end in tables + [(len(rows), len(rows))]:
        blocks.extend(_text_blocks(rows[position:start], style, right_edge))
        if start < end:
            blocks.append(unruled_table(rows[start:end]))
        position = end
    return blocks


def _text_blocks(rows: Sequence[Row], style: Style, right_edge: float) -> list[Block]:
    blocks: list[Block] = []
    lines: list[str] = []
    current: Row | None = None  # the block's first row
    previous: Row | None = None
    marker = ""
    indent = 0.0  # where an item's text starts

    def close() -> None:
        if current is not None and lines:
            text = join_lines(lines)
            if text:
                kind = "item" if marker else "paragraph"
                blocks.append(TextBlock(kind, text, current.size, current.bold, len(lines), marker))

    for row in rows:
        found = list_marker(row)
        if found is not None:
            close()
            marker, rest = found
            current, previous, lines, indent = row, row, [rest.text], rest.x0
            continue
        if current is not None and previous is not None and _continues(previous, row, current, style, right_edge):
            if not marker or row.x0 >= indent - 0.5 * row.size:
                lines.append(glyph_run_text(row.glyphs))
                previous = row
                continue
        close()
        marker, current, previous, lines = "", row, row, [row.text]
    close()
    return blocks


def _continues(previous: Row, row: Row, first: Row, style: Style, right_edge: float) -> bool:
    """Whether ``row`` goes on with the block that ``previous`` (and ``first``) are in."""
    if abs(row.size - first.size) > 0.6 or row.bold != first.bold:
        return False
    pitch = row.top - previous.top
    if pitch <= 0 or pitch > PARAGRAPH_GAP * _pitch(style, row.size):
        return False
    body_text = abs(row.size - style.body_size) <= 0.6 and not row.bold
    if not body_text:
        return True  # a heading wrapped onto another line, centred or not
    hyphenated = previous.text[-1:] in "-\u2010\u00ad" and row.text[:1].islower()
    if not hyphenated and previous.x1 + first_word_width(row) + 0.3 * row.size < right_edge:
        return False  # the next line's first word would have fit: the paragraph ended on purpose
    return row.x0 <= first.x0 + 1.5 * row.size or row.x0 <= previous.x0 + 0.5 * row.size


def first_word_width(row: Row) -> float:
    """How wide the row's first word is (a CJK character is a word)."""
    glyphs = row.glyphs
    end = 0
    while end + 1 < len(glyphs) and not is_cjk(glyphs[end].text) and not needs_space(glyphs[end], glyphs[end + 1]):
        end += 1
    return glyphs[end].x1 - glyphs[0].x0
