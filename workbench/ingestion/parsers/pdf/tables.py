"""Tables, and only tables: ruled grids found from the page's lines, and unruled grids whose
columns stay apart over several rows.

A justified paragraph is never a table: its wide gaps fall at different places on every line,
so no whitespace channel runs through three rows of it, and its lines are not made of cells.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from workbench.ingestion.parsers.pdf.glyphs import BULLETS, UNMAPPED, Glyph
from workbench.ingestion.parsers.pdf.paragraphs import join_lines
from workbench.ingestion.parsers.pdf.rows import PIECE_GAP_EM, SPACE_GAP_EM, Row, rows_of, split_at_gaps

#: an unruled table needs this many rows whose cells stay in their columns (two do when a cell's
#: text wraps within its column: prose does not, and a table cut by a page break may keep two)
MIN_UNRULED_ROWS = 3
#: the narrowest whitespace channel between two columns, in ems
MIN_CHANNEL_EM = 0.8
#: consecutive table rows are at most this many row heights apart
MAX_ROW_PITCH_EM = 2.6
#: a wrapped cell's next line is at most this many ems below the line before it
WRAP_PITCH_EM = 1.6
#: rows stand apart from each other when some are this many times further apart than the closest
ROW_SPACING = 1.2
#: and then a line this close (times the closest pitch) goes on with the row above
WRAP_PITCH_SHARE = 1.1
_MARKER = re.compile(rf"^(?:[{BULLETS}\u00b7*\-\u2013\u2014]|\d{{1,3}}[.)]|\(\d{{1,3}}\))$")


@dataclass(frozen=True)
class TableBlock:
    """A table with its place on the page; ``cells[0]`` is the header row."""

    cells: tuple[tuple[str, ...], ...]
    x0: float
    x1: float
    top: float
    bottom: float
    #: where one column ends and the next begins (x), left to right
    cuts: tuple[float, ...] = ()


# -- ruled ----------------------------------------------------------------------------------------


def ruled_tables(page: Any, glyphs: Sequence[Glyph]) -> tuple[list[TableBlock], list[Glyph]]:
    """The page's ruled tables (at least 2 x 2 cells), and the glyphs outside them."""
    edges = page.edges
    if not any(edge["orientation"] == "v" for edge in edges) or not any(edge["orientation"] == "h" for edge in edges):
        return [], list(glyphs)
    tables: list[TableBlock] = []
    taken: set[int] = set()
    for found in page.find_tables():
        # every row keeps a place for each column: None where a cell spanning rows or columns
        # covers it, so a spanned cell's neighbours stay in their own columns (and rows)
        grid: list[list[Box | None]] = [list(row.cells) for row in found.rows]
        if len(grid) < 2 or max(sum(cell is not None for cell in row) for row in grid) < 2:
            continue  # a box around text, not a table
        placed = glyphs_in_cells(glyphs, grid, found.bbox)
        taken.update(id(glyph) for cell in placed.values() for glyph in cell)
        cells = tuple(tuple(_cell_text(placed.get((r, c), [])) for c in range(len(row))) for r, row in enumerate(grid))
        x0, top, x1, bottom = found.bbox
        fullest = max(grid, key=lambda row: sum(cell is not None for cell in row))
        cuts = tuple(cell[2] for cell in fullest[:-1] if cell is not None)
        tables.append(TableBlock(cells, x0, x1, top, bottom, cuts))
    return tables, [glyph for glyph in glyphs if id(glyph) not in taken]


Box = tuple[float, float, float, float]  # x0, top, x1, bottom


def glyphs_in_cells(
    glyphs: Sequence[Glyph], grid: list[list[Box | None]], bbox: Box
) -> dict[tuple[int, int], list[Glyph]]:
    """The glyphs of each cell ((row, column) -> glyphs), a word at a time: a word goes to the
    cell that holds most of it, so that text wider than its cell stays whole where it runs over a
    rule (reportlab lets centred text do so), even past the table's edge, when the run of text it
    is in starts inside the table."""
    x0, top, x1, bottom = bbox
    columns = _column_bounds(grid)
    placed: dict[tuple[int, int], list[Glyph]] = {}
    for line in rows_of(glyph for glyph in glyphs if top <= glyph.middle <= bottom):
        for run in split_at_gaps(line.glyphs, PIECE_GAP_EM):
            if not any(x0 <= (glyph.x0 + glyph.x1) / 2 <= x1 for glyph in run):
                continue  # text beside the table
            for word in split_at_gaps(run, SPACE_GAP_EM):
                cell = _cell_of(word, grid, columns)
                if cell is not None:
                    placed.setdefault(cell, []).extend(word)
    return placed


def _cell_of(
    glyphs: Sequence[Glyph], grid: list[list[Box | None]], columns: list[tuple[float, float]]
) -> tuple[int, int] | None:
    """The cell holding most of ``glyphs`` (by their middles; the nearest when none holds any), in
    the table row their line is in: a row's height is its shortest cell's, so a cell spanning the
    rows below does not draw their text into its own row. A column the row's cell does not start
    in (a span from the row above covers it) keeps the text in its place (``columns``: each
    column's left and right edge)."""
    middle = sum(glyph.middle for glyph in glyphs) / len(glyphs)
    centre = (glyphs[0].x0 + glyphs[-1].x1) / 2
    for r, row in enumerate(grid):
        present = [cell for cell in row if cell is not None]
        if present and min(cell[1] for cell in present) <= middle <= min(cell[3] for cell in present):
            own = [
                (sum(cell[0] <= (glyph.x0 + glyph.x1) / 2 <= cell[2] for glyph in glyphs), c)
                for c, cell in enumerate(row)
                if cell is not None
            ]
            best = max(own)
            if best[0] * 2 > len(glyphs):
                return r, best[1]  # a cell that starts in this row (spanning columns or not) holds it
            held = [sum(left <= (glyph.x0 + glyph.x1) / 2 <= right for glyph in glyphs) for left, right in columns]
            return r, max(
                range(len(columns)), key=lambda c: (held[c], -abs((columns[c][0] + columns[c][1]) / 2 - centre))
            )
    return None


def _column_bounds(grid: list[list[Box | None]]) -> list[tuple[float, float]]:
    """Each column's left and right edge, from the cells that start in it and span no other."""
    bounds: list[tuple[float, float]] = []
    for c in range(max(len(row) for row in grid)):
        cells = [cell for row in grid if c < len(row) and (cell := row[c]) is not None]
        if cells:
            bounds.append((min(cell[0] for cell in cells), min(cell[2] for cell in cells)))
        else:  # no cell starts in it: an empty strip at the last column's right edge
            edge = bounds[-1][1] if bounds else 0.0
            bounds.append((edge, edge))
    return bounds


def _cell_text(glyphs: Sequence[Glyph]) -> str:
    lines = [row.text for row in rows_of(glyphs)]
    return join_lines([line for line in lines if line])


# -- unruled --------------------------------------------------------------------------------------


def is_marker(text: str) -> bool:
    """A list item's bullet or number, alone (``•``, ``-``, ``1.``, ``(2)``)."""
    return text == UNMAPPED or bool(_MARKER.match(text))


def _table_row(row: Row) -> bool:
    pieces = row.pieces
    return len(pieces) >= 2 and not is_marker(pieces[0].text or UNMAPPED)


def _channels(rows: Sequence[Row]) -> list[tuple[float, float]]:
    """x-intervals no piece of any row covers, between the rows' leftmost and rightmost glyphs."""
    spans = sorted((piece.x0, piece.x1) for row in rows for piece in row.pieces)
    size = max(row.size for row in rows)
    channels: list[tuple[float, float]] = []
    reach = spans[0][1]
    for x0, x1 in spans[1:]:
        if x0 - reach >= MIN_CHANNEL_EM * size:
            channels.append((reach, x0))
        reach = max(reach, x1)
    return channels


def _columns_filled(rows: Sequence[Row], channels: list[tuple[float, float]]) -> bool:
    """Every row has text in at least two of the columns the channels separate."""
    cuts = [(a + b) / 2 for a, b in channels]
    for row in rows:
        columns = {sum(piece.x0 > cut for cut in cuts) for piece in row.pieces}
        if len(columns) < 2:
            return False
    return True


def _crosses_a_channel(row: Row, channels: list[tuple[float, float]]) -> bool:
    return any(piece.x0 < right and piece.x1 > left for piece in row.pieces for left, right in channels)


def _wrapped_line(row: Row, above: Row, channels: list[tuple[float, float]]) -> bool:
    """A line of text that only goes on with cells of the row above (a cell wrapped onto another
    line): at most a line's pitch below it, with text in one column only and none across the gaps
    between columns."""
    pitch = row.top - above.top
    return 0 < pitch <= WRAP_PITCH_EM * row.size and bool(channels) and not _crosses_a_channel(row, channels)


def unruled_table_runs(rows: Sequence[Row], items: Collection[int] = ()) -> list[tuple[int, int]]:
    """[start, end) ranges of ``rows`` (in reading order) that form unruled tables; ``items`` are
    rows known to start list items, which no table holds. A line of a wrapped cell with text in one
    column only goes on with the table."""
    runs: list[tuple[int, int]] = []
    start = 0
    while start < len(rows):
        if start in items or not _table_row(rows[start]):
            start += 1
            continue
        end = start + 1
        channels = _channels(rows[start : start + 1])  # the first row's own gaps, until others come
        while end < len(rows) and end not in items:
            row = rows[end]
            if not _table_row(row):
                if _wrapped_line(row, rows[end - 1], channels):
                    end += 1
                    continue
                break
            pitch = row.top - rows[end - 1].top
            candidate = [r for r in rows[start : end + 1] if _table_row(r)]
            if not 0 < pitch <= MAX_ROW_PITCH_EM * row.size:
                break
            found = _channels(rows[start : end + 1])
            if not found or not _columns_filled(candidate, found):
                break
            channels = found
            end += 1
        table_rows = sum(_table_row(row) for row in rows[start:end])
        if table_rows >= MIN_UNRULED_ROWS or table_rows == 2 and end - start > 2:
            runs.append((start, end))
            start = end
        else:
            start += 1
    return runs


def unruled_table(rows: Sequence[Row]) -> TableBlock:
    """The rows as a table: one column per channel-separated band; the first row is the header.
    Lines of wrapped cells join the row they go on from: a line with text in one column only,
    or, where the table's rows stand further apart than the lines of its cells, a line at the
    lines' pitch."""
    cuts = [(a + b) / 2 for a, b in _channels(rows)]
    pitches = [below.top - above.top for above, below in zip(rows, rows[1:], strict=False)]
    line = min(pitches, default=0.0)
    spaced = any(pitch > ROW_SPACING * line for pitch in pitches)
    cells: list[list[list[str]]] = []
    for index, row in enumerate(rows):
        columns: list[list[str]] = [[] for _ in range(len(cuts) + 1)]
        for piece in row.pieces:
            columns[sum(piece.x0 > cut for cut in cuts)].append(piece.text)
        wrapped = index > 0 and (not _table_row(row) or spaced and pitches[index - 1] <= WRAP_PITCH_SHARE * line)
        if wrapped:
            for column, parts in zip(cells[-1], columns, strict=True):
                column.append(" ".join(parts))
        else:
            cells.append([[" ".join(parts)] for parts in columns])
    return TableBlock(
        tuple(tuple(join_lines(part for part in column if part) for column in row) for row in cells),
        min(row.x0 for row in rows),
        max(row.x1 for row in rows),
        rows[0].top,
        rows[-1].bottom,
        tuple(cuts),
    )
