"""Lines into paragraphs: CJK lines join with no space, Latin lines with one, and a word
hyphenated at a line end is mended. A table of contents' dot leaders ("Installation . . . . 3")
are layout, not text: a line that ends in one is an entry of its own (``ends_in_leader``), and the
dots become one space."""

from __future__ import annotations

import re
from collections.abc import Iterable

from workbench.ingestion.parsers.pdf.glyphs import is_cjk

_HYPHENS = "-\u2010\u00ad"
#: four or more leader dots (spaced or not, "." "·" "…"), then a page number (or roman numeral) at the end
_LEADER = re.compile(r"\s*(?:[.\u00b7\u2024\u2026\u22ef]\s*){4,}(?=\s*(?:\d{1,4}|[ivxlcdm]{1,6}|[IVXLCDM]{1,6})$)")


def ends_in_leader(line: str) -> bool:
    """Whether the line is a contents entry: text, a dot leader, a page number."""
    return _LEADER.search(line.strip()) is not None


def without_leader(line: str) -> str:
    return _LEADER.sub(" ", line.strip())


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
        text = join_pair(text, without_leader(line))
    return text
