"""Right-to-left text in the order it is read: a PDF gives Arabic, Persian and Hebrew glyphs in
the order they are drawn, left to right, so a line read as it stands spells every word backwards.

``logical_order`` undoes the drawing order of one line with the two levels of the Unicode
bidirectional algorithm (UAX #9) that a line of text needs: right-to-left letters at an odd
level, Latin words and numbers at an even one (numbers read left to right even inside Arabic),
neutrals (spaces, punctuation) taking the level of the strong characters on both sides, or the
line's own when those differ. The line's direction is that of most of its letters. Reversing the
runs at each level from the highest down is its own inverse for two levels, so the same rule that
draws a line from its logical order gives the logical order back from the drawing. Brackets in a
right-to-left run are mirrored back, and Arabic presentation forms (the joined shapes some
producers map their glyphs to, e.g. ``ﻼ`` for lam-alef) become the letters they show (NFKC),
after the reordering, so a ligature's letters come out in their own order.
"""

from __future__ import annotations

import unicodedata

_RTL_RANGES = ((0x0590, 0x08FF), (0xFB1D, 0xFDFF), (0xFE70, 0xFEFF))
#: Arabic-Indic and extended Arabic-Indic digits: numbers, read left to right
_ARABIC_DIGITS = ((0x0660, 0x0669), (0x06F0, 0x06F9))
_PRESENTATION_FORMS = ((0xFB50, 0xFDFF), (0xFE70, 0xFEFF))
_MIRRORED = str.maketrans("()[]{}<>«»", ")(][}{><»«")


def is_rtl(character: str) -> bool:
    code = ord(character)
    if any(low <= code <= high for low, high in _ARABIC_DIGITS):
        return False
    return any(low <= code <= high for low, high in _RTL_RANGES)


def _strong(character: str) -> str:
    """The strong class: "R" (right to left), "L" (Latin letters and every digit) or "" (neutral)."""
    if is_rtl(character):
        return "R" if not unicodedata.category(character).startswith("M") else ""
    return "L" if character.isalnum() else ""


def has_rtl(text: str) -> bool:
    return any(is_rtl(character) for character in text)


def rtl_share(text: str) -> float:
    """The share of the text's letters that are right-to-left (0 when it has none)."""
    classes = [_strong(character) for character in text if not character.isdigit()]
    strong = [kind for kind in classes if kind]
    return strong.count("R") / len(strong) if strong else 0.0


def logical_order(visual: str) -> str:
    """One line's characters, drawn left to right, in the order they are read."""
    if not has_rtl(visual):
        return visual
    classes = [_strong(character) for character in visual]
    rtl_line = rtl_share(visual) > 0.5
    levels = []
    for index, kind in enumerate(classes):
        if not kind:
            before = next((classes[i] for i in range(index - 1, -1, -1) if classes[i]), "")
            after = next((classes[i] for i in range(index + 1, len(classes)) if classes[i]), "")
            kind = before if before == after and before else ("R" if rtl_line else "L")
        levels.append((1 if kind == "R" else 2) if rtl_line else (1 if kind == "R" else 0))
    characters = list(visual)
    for level in range(max(levels), 0, -1):
        start = None
        for index in range(len(characters) + 1):
            inside = index < len(characters) and levels[index] >= level
            if inside and start is None:
                start = index
            elif not inside and start is not None:
                characters[start:index] = characters[start:index][::-1]
                levels[start:index] = levels[start:index][::-1]
                start = None
    # a combining mark drawn over its letter sorts after it by x, so reversal put it first
    index = 0
    while index < len(characters) - 1:
        mark = levels[index] % 2 and unicodedata.category(characters[index]).startswith("M")
        if mark and not unicodedata.category(characters[index + 1]).startswith("M"):
            characters[index], characters[index + 1] = characters[index + 1], characters[index]
            index += 1  # the mark is in its place now, after its letter
        index += 1
    text = "".join(
        character.translate(_MIRRORED) if level % 2 else character
        for character, level in zip(characters, levels, strict=True)
    )
    return _letters(text)


def _letters(text: str) -> str:
    if not any(any(low <= ord(c) <= high for low, high in _PRESENTATION_FORMS) for c in text):
        return text
    return "".join(
        unicodedata.normalize("NFKC", c) if any(low <= ord(c) <= high for low, high in _PRESENTATION_FORMS) else c
        for c in text
    )
