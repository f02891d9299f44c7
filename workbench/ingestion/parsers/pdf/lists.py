"""Rows that start list items: a bullet, a dash or a number before the item's text.

A marker is a bullet glyph (or a glyph with no Unicode mapping, as word processors draw
bullets), a dash or a number ("3." "3)" "(3)" "c.") set apart from the text by a wide gap, or a
bullet glyph or a number and "." or ")" before a space. Two kinds count only in company, because
a line of prose can start the same way: a dash before a mere space, when another row starts with
one at the same place ("- or so -" opens a sentence, a list has items); and a number with no
delimiter set apart by a wide gap (reportlab's default numbering draws ``1``, ``2``), when the
next or the previous number starts another row at the same place. So does a number with no
delimiter before a mere space (a list drawn with its numbers inside the text, ``1 Multi-document
reasoning``), in a row with no wide gap (a table's row has them), in the same company.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from workbench.ingestion.parsers.pdf.glyphs import BULLETS, UNMAPPED
from workbench.ingestion.parsers.pdf.paragraphs import ends_in_leader
from workbench.ingestion.parsers.pdf.rows import Row, needs_space
from workbench.ingestion.parsers.pdf.tables import is_marker

_NUMBER = re.compile(r"^(\d{1,3}|[a-zA-Z])([.)])$|^\((\d{1,3})\)$")
_BARE_NUMBER = re.compile(r"^\d{1,3}$")
_BULLETS = frozenset(BULLETS + UNMAPPED)
_DASHES = frozenset("-\u2013\u2014")
#: markers in company stand this close to each other (ems)
SAME_PLACE_EM = 0.5


def list_marker(row: Row, in_company: bool = False) -> tuple[str, Row] | None:
    """("-", "N." or "N)", the rest of the row) when the row starts with a list marker;
    ``in_company``: a dash or a bare number starts rows of a list here (``items_in_company``)."""
    pieces = row.pieces
    first = pieces[0]
    if len(pieces) >= 2 and len(first.glyphs) <= 4 and is_marker(first.text or UNMAPPED):
        return _marker_text(first.text), _rest(pieces[1:])
    if in_company and len(pieces) >= 2 and _BARE_NUMBER.match(first.text):
        return f"{first.text}.", _rest(pieces[1:])
    glyphs = row.glyphs
    if in_company and (inline := _inline_number(row)) is not None:
        return f"{''.join(glyph.text for glyph in glyphs[:inline])}.", Row(glyphs[inline:])
    if len(glyphs) > 1 and glyphs[0].text in _BULLETS:
        return "-", Row(glyphs[1:])
    if in_company and _dash_first(row):
        return "-", Row(glyphs[1:])
    end = 0
    while end < len(glyphs) and end < 3 and glyphs[end].text.isdigit():
        end += 1
    if 0 < end < len(glyphs) - 1 and glyphs[end].text in ".)" and needs_space(glyphs[end], glyphs[end + 1]):
        return f"{''.join(g.text for g in glyphs[:end])}{glyphs[end].text}", Row(glyphs[end + 1 :])
    return None


def _rest(pieces: Sequence[Row]) -> Row:
    return Row(tuple(glyph for piece in pieces for glyph in piece.glyphs))


def _dash_first(row: Row) -> bool:
    glyphs = row.glyphs
    return len(glyphs) > 2 and glyphs[0].text in _DASHES and needs_space(glyphs[0], glyphs[1])


def _inline_number(row: Row) -> int | None:
    """How many glyphs the row's leading number has, when the row is one piece that starts with a
    number of one to three digits and a space: a list number drawn inside the text."""
    glyphs = row.glyphs
    if len(row.pieces) != 1 or ends_in_leader(row.text):
        return None  # a table's row, or a contents entry ("1 Introduction . . . 1")
    end = 0
    while end < len(glyphs) and end < 3 and glyphs[end].text.isdigit():
        end += 1
    if 0 < end < len(glyphs) and needs_space(glyphs[end - 1], glyphs[end]):
        return end
    return None


def _bare_number(row: Row) -> int | None:
    pieces = row.pieces
    if len(pieces) == 2 and _BARE_NUMBER.match(pieces[0].text):
        return int(pieces[0].text)
    if (inline := _inline_number(row)) is not None:
        return int("".join(glyph.text for glyph in row.glyphs[:inline]))
    return None


def items_in_company(rows: Sequence[Row]) -> set[int]:
    """Indexes of the rows that start with a dash and a space, or with a number alone and a wide
    gap, where another such row starts at the same place (a number: the one before or after it)."""
    dashes = [(index, row.x0, row.size) for index, row in enumerate(rows) if _dash_first(row)]
    found = {
        index for index, x, size in dashes if sum(abs(other - x) <= SAME_PLACE_EM * size for _, other, _ in dashes) >= 2
    }
    numbers = [
        (index, number, row.x0, row.size) for index, row in enumerate(rows) if (number := _bare_number(row)) is not None
    ]
    for index, number, x, size in numbers:
        if any(abs(other - number) == 1 and abs(at - x) <= SAME_PLACE_EM * size for _, other, at, _ in numbers):
            found.add(index)
    return found


def _marker_text(marker: str) -> str:
    number = _NUMBER.match(marker)
    if number:
        return f"{number.group(1) or number.group(3)}{number.group(2) or ')'}"
    return "-"
