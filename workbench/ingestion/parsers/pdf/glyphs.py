"""What a PDF page holds for layout: its glyphs (text, box, font size, weight) and its rules.

Space glyphs are not kept; the glyph after one is marked ``space_before`` (a break the PDF spells
out, which matters between CJK characters, where a gap alone says little).

pdfplumber (on pdfminer) reads the content stream without pdfminer's own layout analysis. A
glyph whose font has no Unicode mapping comes out as ``(cid:N)``: those are kept as
``UNMAPPED`` so a list can still recognise a bullet drawn with one, and never reach the text.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

#: the text of a glyph whose font gives no Unicode mapping
UNMAPPED = "\ufffd"
_CID = re.compile(r"^\(cid:\d+\)$")
_BOLD = re.compile(r"bold|black|heavy|semibold|demibold|[-,]bd$|\bw[6-9]\b", re.IGNORECASE)
_CJK_RANGES = (
    (0x2E80, 0x2FDF),  # radicals
    (0x3000, 0x303F),  # CJK punctuation
    (0x3040, 0x30FF),  # kana
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7AF),  # hangul
    (0xF900, 0xFAFF),
    (0xFF00, 0xFFEF),  # full-width forms and punctuation
)


@dataclass(frozen=True)
class Glyph:
    """One drawn character; coordinates in points from the page's top-left corner."""

    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float
    bold: bool
    #: a space glyph was drawn just before this one, on its line (a word break the PDF spells out)
    space_before: bool = False

    @property
    def middle(self) -> float:
        return (self.top + self.bottom) / 2


@dataclass(frozen=True)
class PageContent:
    """A page's glyphs (spaces left out: gaps say where words break) and its size."""

    number: int  # 0-based
    width: float
    height: float
    glyphs: tuple[Glyph, ...]


def is_cjk(character: str) -> bool:
    """Chinese, Japanese or Korean script or punctuation: written without spaces between words."""
    code = ord(character[0]) if character else 0
    return any(low <= code <= high for low, high in _CJK_RANGES)


def glyph_text(raw: str) -> str:
    """The text of a glyph: ``UNMAPPED`` for ``(cid:N)`` and private-use code points, NFKC otherwise
    (ligatures such as ``ﬁ`` become ``fi``; full-width CJK punctuation stays as it is)."""
    if _CID.match(raw):
        return UNMAPPED
    if len(raw) == 1 and unicodedata.category(raw) == "Co":
        return UNMAPPED
    if len(raw) == 1 and (is_cjk(raw) or raw.isascii()):
        return raw
    return unicodedata.normalize("NFKC", raw) if raw in _LIGATURES else raw


_LIGATURES = frozenset("\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06")


def page_glyphs(page: Any) -> PageContent:
    """The glyphs of a pdfplumber page, in content order."""
    glyphs = []
    space_at: float | None = None  # where the last space glyph's line is (its top), if it came last
    for char in page.chars:
        raw = char.get("text") or ""
        if not raw or raw.isspace():
            space_at = float(char["top"]) if raw else None
            continue
        size = float(char.get("size") or 0.0) or float(char["bottom"] - char["top"])
        glyphs.append(
            Glyph(
                text=glyph_text(raw),
                x0=float(char["x0"]),
                x1=float(char["x1"]),
                top=float(char["top"]),
                bottom=float(char["bottom"]),
                size=round(size, 1),
                bold=bool(_BOLD.search(str(char.get("fontname") or ""))),
                space_before=space_at is not None and abs(space_at - float(char["top"])) < 0.5 * size,
            )
        )
        space_at = None
    return PageContent(page.page_number - 1, float(page.width), float(page.height), tuple(glyphs))
