"""Bullets drawn as shapes: a small disc, circle or square just left of a line's first glyph.

Browsers (Chromium's print to PDF), and other producers, paint a list's bullets as paths rather
than as a bullet glyph, so the text layer has no marker at all. A small, roughly square shape
whose middle is on the middle of a line of text, within ``MAX_GAP_EM`` to the left of its first
glyph and with no text just before it on that line (``CLEAR_BEFORE_EM``), becomes a ``•`` glyph there. It then reads
as any bullet does (``lists.list_marker``).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from workbench.ingestion.parsers.pdf.glyphs import Glyph, Mark

BULLET = "\u2022"
#: the shape is at most this share of the text's size high (a bullet, not an icon or a box)
MAX_HEIGHT_EM = 0.7
#: and at least this share (not a dot of punctuation or a speck)
MIN_HEIGHT_EM = 0.15
#: the text starts at most this many ems after the shape
MAX_GAP_EM = 3.0
#: text ending closer than this before the shape makes it part of the line, not a bullet
CLEAR_BEFORE_EM = 1.5
#: the shape's middle and the text's middle are at most this many ems apart
MIDDLE_EM = 0.35


def drawn_bullets(glyphs: Sequence[Glyph], marks: Sequence[Mark]) -> list[Glyph]:
    """``glyphs`` with a bullet glyph for every mark that stands where a list item's bullet does."""
    if not marks or not glyphs:
        return list(glyphs)
    ordered = sorted(glyphs, key=lambda glyph: glyph.middle)
    middles = [glyph.middle for glyph in ordered]
    reach = MIDDLE_EM * max(glyph.size for glyph in glyphs)
    bullets: list[Glyph] = []
    for mark in marks:
        low = bisect.bisect_left(middles, mark.middle - reach)
        high = bisect.bisect_right(middles, mark.middle + reach)
        line = [glyph for glyph in ordered[low:high] if abs(glyph.middle - mark.middle) <= MIDDLE_EM * glyph.size]
        after = [glyph for glyph in line if glyph.x0 >= mark.x1]
        if not after:
            continue
        first = min(after, key=lambda glyph: glyph.x0)
        size = first.size
        if not (MIN_HEIGHT_EM * size <= mark.bottom - mark.top <= MAX_HEIGHT_EM * size):
            continue
        if first.x0 - mark.x1 > MAX_GAP_EM * size:
            continue
        if any(mark.x0 - CLEAR_BEFORE_EM * size < glyph.x1 <= mark.x0 for glyph in line):
            continue  # text just before it: a shape inside a line, not a bullet
        bullets.append(Glyph(BULLET, mark.x0, mark.x1, first.top, first.bottom, size, first.bold, colour=first.colour))
    return [*glyphs, *bullets]
