"""How each glyph is painted: filled, stroked, or both (the PDF's text render mode).

A font without a bold face (most Chinese fonts) is made bold by painting its glyphs filled and
stroked with a thin outline (render mode 2): word processors and office suites export bold
Chinese headings that way. pdfminer reads the render mode but does not keep it on its
characters, so pdfplumber's characters cannot tell such a heading from body text.

Chromium makes a font without a bold face bold another way: it embeds the glyphs' emboldened
outlines as a Type 3 font named like the regular face (``AAAAAA+WenQuanYiMicroHei`` beside
``BAAAAA+WenQuanYiMicroHei``), painted filled like any other. The device notes the names of the
Type 3 fonts a page uses (``type3_fonts``), so that ``synthetic_faces`` can tell such a copy.

``interpret_page`` runs pdfplumber's own interpretation of a page with a device that records,
on every character, ``fill``, ``stroke`` and ``linewidth`` (attributes pdfplumber already copies
into its character dicts, as it does for shapes), and on the page, ``type3_fonts``. It must run
before anything reads ``page.chars``.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

#: render modes that stroke the glyph's outline (1 stroke, 2 fill and stroke, 5 and 6 the same, clipping)
STROKED_MODES = frozenset({1, 2, 5, 6})
#: render modes that fill it (0, 2, 4, 6)
FILLED_MODES = frozenset({0, 2, 4, 6})


@cache
def _device_class() -> type:
    from pdfminer.pdffont import PDFType3Font
    from pdfplumber.page import PDFPageAggregatorWithMarkedContent

    class RenderModeAggregator(PDFPageAggregatorWithMarkedContent):
        """pdfplumber's device, noting how each character is painted."""

        render_mode = 0
        line_width = 0.0

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.type3_fonts: set[str] = set()

        def render_string(self, textstate: Any, seq: Any, ncs: Any, graphicstate: Any) -> None:
            self.render_mode = int(getattr(textstate, "render", 0) or 0)
            self.line_width = float(getattr(graphicstate, "linewidth", 0.0) or 0.0)
            super().render_string(textstate, seq, ncs, graphicstate)

        def render_char(self, matrix: Any, font: Any, *args: Any, **kwargs: Any) -> float:
            advance: float = super().render_char(matrix, font, *args, **kwargs)
            if isinstance(font, PDFType3Font):
                self.type3_fonts.add(str(font.fontname))
            if self.cur_item._objs:
                char: Any = self.cur_item._objs[-1]
                char.fill = self.render_mode in FILLED_MODES
                char.stroke = self.render_mode in STROKED_MODES
                char.linewidth = self.line_width
            return advance

    return RenderModeAggregator


def interpret_page(page: Any) -> None:
    """Lay the pdfplumber ``page`` out with render modes recorded (what ``page.layout`` does,
    with another device); pdfminer's errors propagate as they would from ``page.chars``."""
    from pdfminer.pdfinterp import PDFPageInterpreter

    device = _device_class()(page.pdf.rsrcmgr, pageno=page.page_number, laparams=page.pdf.laparams)
    PDFPageInterpreter(page.pdf.rsrcmgr, device).process_page(page.page_obj)
    page._layout = device.get_result()
    page.type3_fonts = frozenset(device.type3_fonts)


def _face(font: str) -> str:
    """A font's name without its subset tag ("AAAAAA+")."""
    tag, plus, name = font.partition("+")
    return name if plus and len(tag) == 6 and tag.isupper() else font


def synthetic_faces(fonts: Iterable[str], type3_fonts: Iterable[str]) -> frozenset[str]:
    """The Type 3 fonts among ``fonts`` that copy another of them (the same name after the subset
    tag, not Type 3): Chromium's synthetic bold of a font without a bold face."""
    type3 = frozenset(type3_fonts)
    regular = {_face(font) for font in fonts if font not in type3}
    return frozenset(font for font in type3 if _face(font) in regular)


def painted_bold(char: dict[str, Any]) -> bool:
    """A glyph filled and stroked: its font made bolder by an outline."""
    return bool(char.get("fill")) and bool(char.get("stroke"))
