"""Lines into paragraphs: CJK lines join with no space, Latin lines with one, and a word
hyphenated at a line end is mended."""

from __future__ import annotations

from collections.abc import Iterable

from workbench.ingestion.parsers.pdf.glyphs import is_cjk

_HYPHENS = "-\u2010\u00ad"


def _ideograph_or_punctuation(character: str) -> bool:
    return is_cjk(character)


def _cjk_punctuation(character: str) -> bool:
    code = ord(character)
    return 0x3000 <= code <= 0x303F or 0xFF00 <= code <= 0xFF0F or 0xFF1A <= code <= 0xFF20 or code in (0xFF5B, 0xFF5D)


def join_pair(left: str, right: str) -> str:
    """``left`` and the next line ``right`` as one text."""
    if not left:
        return right
    if not right:
        return left
    last, first = left[-1], right[0]
    if last in _HYPHENS and len(left) > 1 and left[-2].isalpha():
        if first.islower():
            return left[:-1] + right  # "infor-" + "mation"
        return left + right  # "Retrieval-" + "Augmented": a compound's own hyphen
    if _cjk_punctuation(last) or _cjk_punctuation(first):
        return left + right
    if _ideograph_or_punctuation(last) and _ideograph_or_punctuation(first):
        return left + right  # "算" + "法"
    return f"{left} {right}"


def join_lines(lines: Iterable[str]) -> str:
    text = ""
    for line in lines:
        text = join_pair(text, line.strip())
    return text
