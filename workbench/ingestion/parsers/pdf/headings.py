"""Headings from type, relative to the document's body text.

The body size is the size most characters are set in (outside code, when prose is at least
``PROSE_SHARE`` of them); its pitch is the usual distance between
the baselines of its lines, its colour the one most of its characters are painted in. A block
is a heading when it is set larger than the body (by ``LARGER``), or set apart from it and short:
at the body's size in bold or in another colour (word processors' default headings are blue), or
a little larger (``blocks.LARGER_PT``); and is at most ``MAX_ROWS`` lines. A heading's number
(``1.``, ``2.2``, ``第一章``) is part of its text. Heading
sizes rank into levels: the largest is ``#``, the next ``##``, the rest ``###``.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Sequence

from workbench.ingestion.parsers.pdf.blocks import LARGER_PT, Block, Style, TextBlock
from workbench.ingestion.parsers.pdf.rows import Row

LARGER = 1.12
MAX_ROWS = 3
MAX_BOLD_HEADING_CHARS = 120
MAX_ITALIC_HEADING_CHARS = 80
#: the body's size is that of the prose (rows not in a monospaced font) when it is this share of the text
PROSE_SHARE = 0.2
MAX_LEVEL = 3
#: heading sizes closer than this (points) are one level
SAME_SIZE = 0.75


def body_style(pages: Iterable[Sequence[Row]]) -> Style:
    sizes: Counter[float] = Counter()
    prose: Counter[float] = Counter()  # the same, without rows in a monospaced font
    all_pages = [list(rows) for rows in pages]
    for rows in all_pages:
        for row in rows:
            sizes[row.size] += len(row.glyphs)
            if sum(glyph.mono for glyph in row.glyphs) * 2 <= len(row.glyphs):
                prose[row.size] += len(row.glyphs)
    if prose.total() >= PROSE_SHARE * sizes.total():
        # a design document with long code listings in a smaller type: the body is its prose,
        # or every paragraph would be "larger than the body", a heading
        sizes = prose
    if not sizes:
        return Style(0.0, 0.0)
    body = sizes.most_common(1)[0][0]
    body_glyphs = [glyph for rows in all_pages for row in rows if row.size == body for glyph in row.glyphs]
    colours = Counter(glyph.colour for glyph in body_glyphs)
    bold = sum(glyph.bold for glyph in body_glyphs) * 2 > len(body_glyphs)
    mono = sum(glyph.mono for glyph in body_glyphs) * 2 > len(body_glyphs)
    italic = sum(glyph.italic for glyph in body_glyphs) * 2 > len(body_glyphs)
    pitches = [
        below.top - above.top
        for rows in all_pages
        for above, below in zip(rows, rows[1:], strict=False)
        if above.size == below.size == body and 0.9 * body < below.top - above.top < 2.5 * body
    ]
    pitch = statistics.median(pitches) if pitches else 1.2 * body
    return Style(body, pitch, colours.most_common(1)[0][0], bold, mono, italic)


def is_heading(block: Block, style: Style) -> bool:
    if not isinstance(block, TextBlock) or block.kind != "paragraph" or block.rows > MAX_ROWS:
        return False
    if block.size >= LARGER * style.body_size:
        return True
    set_apart = block.bold and not style.body_bold or block.colour != style.body_colour
    if block.italic and not style.body_italic and not set_apart and block.size >= style.body_size - SAME_SIZE:
        # an italic heading at the body's size: one short line, no sentence (an italic quote or
        # caption is longer, or ends like a sentence)
        return (
            block.rows == 1
            and len(block.text) <= MAX_ITALIC_HEADING_CHARS
            and not block.text.endswith((".", "。", ":", "：", ",", "，", ";", "!", "?"))
        )
    return (
        (set_apart or block.size >= style.body_size + LARGER_PT)
        and block.size >= style.body_size - SAME_SIZE
        and block.rows <= 2
        and len(block.text) <= MAX_BOLD_HEADING_CHARS
        and not block.text.endswith((".", "。", ":", "：", ",", "，"))
    )


def heading_levels(blocks: Iterable[Block], style: Style) -> dict[float, int]:
    """Heading size -> level (1 to ``MAX_LEVEL``), from the sizes the document's headings use."""
    sizes = sorted(
        {block.size for block in blocks if isinstance(block, TextBlock) and is_heading(block, style)}, reverse=True
    )
    levels: dict[float, int] = {}
    level = 0
    previous: float | None = None
    for size in sizes:
        if previous is None or previous - size > SAME_SIZE:
            level = min(level + 1, MAX_LEVEL)
            previous = size
        levels[size] = level
    return levels
