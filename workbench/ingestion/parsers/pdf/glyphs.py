"""What a PDF page holds for layout: its glyphs (text, box, font size, weight) and its rules.

Space glyphs are not kept; the glyph after one is marked ``space_before`` (a break the PDF spells
out, which matters between CJK characters, where a gap alone says little). A space glyph that the
next glyph overlaps by half its width or more has no advance: it is not a word break (Chromium
draws an unbroken soft hyphen that way).

A glyph is bold when its font's name says so, when it is painted filled and stroked, or when its
font is a Type 3 copy of another font on the page (``render_modes``: how fonts without a bold face
are made bold).

Small filled or stroked shapes (``Mark``) are kept too: many producers draw list bullets as a
disc, a circle or a square instead of a glyph.

pdfplumber (on pdfminer) reads the content stream without pdfminer's own layout analysis. A
glyph whose font has no Unicode mapping comes out as ``(cid:N)``: those are kept as
``UNMAPPED`` so a list can still recognise a bullet drawn with one, and never reach the text; so
is a glyph of a picture font (ZapfDingbats, Wingdings), whose letters stand for symbols.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from workbench.ingestion.parsers.pdf.render_modes import painted_bold, synthetic_faces

#: the text of a glyph whose font gives no Unicode mapping
UNMAPPED = "\ufffd"
#: glyphs that start list items (discs, circles, squares, diamonds, triangles, arrows, ticks, stars)
BULLETS = (
    "\u2022\u25cf\u25aa\u25a0\u25e6\u2023\u2043\u2219\u25cb\u25c6\u25c7\u25a1"
    "\u25b6\u25ba\u25b8\u27a2\u27a4\u2713\u2714\u2605\u25fc"
)
#: fonts of pictures, whose letters stand for symbols (reportlab draws "●" as ZapfDingbats "l")
_PICTURE_FONT = re.compile(r"dingbat|wingding|webding", re.IGNORECASE)
#: monospaced fonts, which set code
_MONOSPACED = re.compile(r"courier|mono|consol|menlo|inconsolata|typewriter|fixed|code", re.IGNORECASE)
#: the colour most text is painted in, as (red, green, blue) from 0 to 1
Colour = tuple[float, float, float]
BLACK: Colour = (0.0, 0.0, 0.0)
_CID = re.compile(r"^\(cid:\d+\)$")
_ITALIC = re.compile(r"italic|oblique|[-,]it$", re.IGNORECASE)
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
    colour: Colour = BLACK
    #: set in a monospaced font
    mono: bool = False
    #: set in an italic or oblique face (by the font's name)
    italic: bool = False

    @property
    def middle(self) -> float:
        return (self.top + self.bottom) / 2


@dataclass(frozen=True)
class Mark:
    """A small drawn shape (a bullet drawn as a disc, circle or square, or any other small path)."""

    x0: float
    x1: float
    top: float
    bottom: float

    @property
    def middle(self) -> float:
        return (self.top + self.bottom) / 2


@dataclass(frozen=True)
class PageContent:
    """A page's glyphs (spaces left out: gaps say where words break), its small shapes and its size."""

    number: int  # 0-based
    width: float
    height: float
    glyphs: tuple[Glyph, ...]
    marks: tuple[Mark, ...] = ()


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


#: a mark is at most this many points wide and high (a bullet; larger shapes are rules and figures)
MAX_MARK_PT = 8.0
#: its sides are within this ratio of each other
MAX_MARK_ASPECT = 1.6


def page_marks(page: Any) -> tuple[Mark, ...]:
    """The page's small, roughly square shapes (curves and rectangles, filled or stroked)."""
    marks = []
    for shape in (*page.curves, *page.rects):
        x0, x1, top, bottom = (float(shape[key]) for key in ("x0", "x1", "top", "bottom"))
        width, height = x1 - x0, bottom - top
        if not (shape.get("fill") or shape.get("stroke")):
            continue
        if 0.5 <= min(width, height) and max(width, height) <= MAX_MARK_PT:
            if max(width, height) <= MAX_MARK_ASPECT * min(width, height):
                marks.append(Mark(x0, x1, top, bottom))
    return tuple(marks)


def colour_of(value: Any) -> Colour:
    """A fill colour as RGB, rounded to 2 places: grey and CMYK converted; patterns and unknown
    spaces count as black."""
    if not isinstance(value, tuple | list) or not all(isinstance(part, int | float) for part in value):
        return BLACK
    parts = [float(part) for part in value]
    if len(parts) == 1:
        red = green = blue = parts[0]
    elif len(parts) == 3:
        red, green, blue = parts
    elif len(parts) == 4:
        cyan, magenta, yellow, key = parts
        red, green, blue = ((1 - ink) * (1 - key) for ink in (cyan, magenta, yellow))
    else:
        return BLACK
    return (round(red, 2), round(green, 2), round(blue, 2))


def page_glyphs(page: Any) -> PageContent:
    """The glyphs and marks of a pdfplumber page, glyphs in content order."""
    glyphs = []
    space_at: float | None = None  # where the last space glyph's line is (its top), if it came last
    space_middle = 0.0  # and the middle of its box: a glyph starting before it overlaps it
    fonts = {str(char.get("fontname") or "") for char in page.chars}
    synthetic = synthetic_faces(fonts, getattr(page, "type3_fonts", ()))
    for char in page.chars:
        raw = char.get("text") or ""
        if not raw or raw.isspace():
            space_at = float(char["top"]) if raw else None
            space_middle = (float(char["x0"]) + float(char["x1"])) / 2 if raw else 0.0
            continue
        if space_at is not None and float(char["x0"]) < space_middle and abs(space_at - float(char["top"])) < 1:
            space_at = None  # a space with no advance: the next glyph is drawn over it
        size = float(char.get("size") or 0.0) or float(char["bottom"] - char["top"])
        font = str(char.get("fontname") or "")
        picture = bool(_PICTURE_FONT.search(font))
        glyphs.append(
            Glyph(
                text=UNMAPPED if picture else glyph_text(raw),
                x0=float(char["x0"]),
                x1=float(char["x1"]),
                top=float(char["top"]),
                bottom=float(char["bottom"]),
                size=round(size, 1),
                bold=bool(_BOLD.search(font)) or painted_bold(char) or font in synthetic,
                space_before=space_at is not None and abs(space_at - float(char["top"])) < 0.5 * size,
                colour=colour_of(char.get("non_stroking_color")),
                mono=bool(_MONOSPACED.search(font)),
                italic=bool(_ITALIC.search(font)),
            )
        )
        space_at = None
    return PageContent(page.page_number - 1, float(page.width), float(page.height), tuple(glyphs), page_marks(page))
