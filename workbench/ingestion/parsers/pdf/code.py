"""Code: lines set in a monospaced font, kept as lines with their indentation.

A row is code when most of its glyphs are in a monospaced font (Courier, a ``Mono`` face,
Consolas, Menlo ...) and are not CJK, in a document whose body text is not itself monospaced.
Consecutive code rows, up to a blank line apart, make one code block. Each line's indentation
and the spaces inside it are counted in the font's advance (every character of a monospaced font
is as wide as every other), so aligned code keeps its columns.
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.ingestion.parsers.pdf.glyphs import UNMAPPED, Glyph, is_cjk
from workbench.ingestion.parsers.pdf.rows import Row

#: code lines are at most this many of their font sizes apart (a blank line in the code included)
MAX_CODE_PITCH_EM = 2.6


def is_code(row: Row) -> bool:
    glyphs = [glyph for glyph in row.glyphs if glyph.text != UNMAPPED]
    return bool(glyphs) and sum(glyph.mono and not is_cjk(glyph.text) for glyph in glyphs) * 2 > len(glyphs)


def goes_on(previous: Row, row: Row) -> bool:
    """Whether code row ``row`` is the next line of the code block ``previous`` ends."""
    return 0 < row.top - previous.top <= MAX_CODE_PITCH_EM * row.size


def code_lines(rows: Sequence[Row]) -> list[str]:
    """The rows as lines of code, indented from the leftmost row by the font's advance."""
    advance = _advance([glyph for row in rows for glyph in row.glyphs])
    left = min(row.x0 for row in rows)
    return [" " * round((row.x0 - left) / advance) + _line(row.glyphs, advance) for row in rows]


def _advance(glyphs: Sequence[Glyph]) -> float:
    widths = sorted(glyph.x1 - glyph.x0 for glyph in glyphs if glyph.x1 > glyph.x0)
    return widths[len(widths) // 2] if widths else 1.0


def _line(glyphs: Sequence[Glyph], advance: float) -> str:
    parts: list[str] = []
    previous: Glyph | None = None
    for glyph in glyphs:
        if glyph.text == UNMAPPED:
            continue
        if previous is not None:
            parts.append(" " * max(round((glyph.x0 - previous.x1) / advance), 1 if glyph.space_before else 0))
        parts.append(glyph.text)
        previous = glyph
    return "".join(parts)
