"""Directive Markdown (``pdf_corpus_mixed``) to PDF with reportlab's platypus, the way report
scripts commonly draw it.

* Body text justified, in Helvetica (English) or WQY MicroHei (Chinese, which has no bold face,
  so its headings differ in size and colour only). A document with ``spaces_only`` breaks its
  Chinese lines only at spaces, as reportlab does without ``wordWrap="CJK"``: its lines end at
  Latin words, and justification stretches the few spaces of a line.
* Headings: the title large and dark, sections larger, bold and blue; sub-headings blue and bold
  in a specification, and in a personal page only half a point above the body, in its font and
  colour, right under the paragraph before.
* Lists with reportlab's defaults: numbers without a full stop, bullets as ``•``.
* Tables: ruled, cells as paragraphs that wrap in their column, the header row shaded; after
  ``<!-- overflow -->`` cells are plain strings centred in equal columns, which reportlab lets
  run over the column's rule; after ``<!-- unruled -->`` no rules.
* ``<!-- screenshot KEY -->``: the screenshot's PNG, ``screenshots.WIDTH_PT`` wide.
* Code between ``` fences: ``Preformatted`` in Courier.
* A running header and a page number in the footer.
"""

from __future__ import annotations

import io
from functools import cache
from typing import TYPE_CHECKING, Any

from tests.workbench.ingestion.chromium_print import DIRECTIVE, markdown_blocks
from tests.workbench.ingestion.screenshots import CHINESE_FONT_FILE, WIDTH_PT, height_pt, screenshot_png

if TYPE_CHECKING:
    from tests.workbench.ingestion.pdf_corpus_mixed import MixedDocument

BLUE = "#1a5490"
DARK = "#0b2545"
MARGIN = 56


@cache
def _register_fonts() -> None:
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    pdfmetrics.registerFont(TTFont("WQY", CHINESE_FONT_FILE, subfontIndex=0))


def _styles(document: MixedDocument) -> dict[Any, Any]:
    from reportlab.lib import colors
    from reportlab.lib.enums import TA_CENTER, TA_JUSTIFY
    from reportlab.lib.styles import ParagraphStyle

    _register_fonts()
    chinese = document.language == "zh"
    regular, bold = ("WQY", "WQY") if chinese else ("Helvetica", "Helvetica-Bold")
    wrap = {"wordWrap": "CJK"} if chinese and not document.spaces_only else {}
    body = ParagraphStyle(
        "body", fontName=regular, fontSize=10.5, leading=15.5, alignment=TA_JUSTIFY, spaceAfter=4, **wrap
    )
    if document.look == "plain":
        return _plain_styles(document)
    profile = document.look == "profile"
    blue = colors.HexColor(BLUE)
    return {
        "bullet": "\u2022",
        "numbers": None,
        "body": body,
        "caption": ParagraphStyle("caption", parent=body, alignment=TA_CENTER, spaceBefore=4, spaceAfter=10),
        "cell": ParagraphStyle("cell", parent=body, alignment=0, spaceAfter=0),
        "head": ParagraphStyle("head", parent=body, fontName=bold, alignment=0, spaceAfter=0, textColor=colors.white),
        1: ParagraphStyle(
            "h1", parent=body, fontName=bold, fontSize=20, leading=26, spaceAfter=12, alignment=0,
            textColor=colors.HexColor(DARK),
        ),
        2: ParagraphStyle(
            "h2", parent=body, fontName=bold, fontSize=15, leading=20, spaceBefore=10, spaceAfter=6, alignment=0,
            textColor=blue,
        ),
        3: ParagraphStyle("h3", parent=body, fontSize=11, leading=15.5, spaceBefore=0, spaceAfter=3, alignment=0)
        if profile
        else ParagraphStyle(
            "h3", parent=body, fontName=bold, fontSize=12, leading=16, spaceBefore=6, spaceAfter=4, alignment=0,
            textColor=blue,
        ),
    }  # fmt: skip


def _plain_styles(document: MixedDocument) -> dict[Any, Any]:
    """The held-out look: a serif body, Chinese paragraphs told apart by a first-line indent with no
    space between them, headings dark green and bold (the Chinese sub-heading only half a point
    larger), bullets ``●``, items numbered ``1)``."""
    from reportlab.lib import colors
    from reportlab.lib.enums import TA_CENTER, TA_JUSTIFY
    from reportlab.lib.styles import ParagraphStyle

    chinese = document.language == "zh"
    regular, bold = ("WQY", "WQY") if chinese else ("Times-Roman", "Times-Bold")
    indent = {"firstLineIndent": 22, "spaceAfter": 0, "wordWrap": "CJK"} if chinese else {"spaceAfter": 6}
    body = ParagraphStyle("body", fontName=regular, fontSize=11, leading=16, alignment=TA_JUSTIFY, **indent)
    green = colors.HexColor("#1e5631")
    return {
        "bullet": "\u25cf",
        "numbers": "%s)",
        "body": body,
        "caption": ParagraphStyle("caption", parent=body, alignment=TA_CENTER, firstLineIndent=0),
        "cell": ParagraphStyle("cell", parent=body, alignment=0, firstLineIndent=0, spaceAfter=0),
        "head": ParagraphStyle("head", parent=body, fontName=bold, alignment=0, firstLineIndent=0, spaceAfter=0),
        1: ParagraphStyle("h1", parent=body, fontName=bold, fontSize=18, leading=24, alignment=TA_CENTER,
                          firstLineIndent=0, spaceAfter=14),
        2: ParagraphStyle("h2", parent=body, fontName=bold, fontSize=13.5, leading=19, alignment=0, firstLineIndent=0,
                          spaceBefore=8, spaceAfter=4, textColor=green),
        3: ParagraphStyle("h3", parent=body, fontName=bold, fontSize=11.5, leading=16, alignment=0, firstLineIndent=0,
                          spaceBefore=4, spaceAfter=2),
    }  # fmt: skip


def _escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _column_widths(rows: list[list[str]], style: Any, width: float) -> list[float]:
    """Widths in proportion to each column's text, each wide enough for its longest Latin word
    (Chinese breaks between any two characters)."""
    import re

    from reportlab.pdfbase.pdfmetrics import stringWidth

    columns = range(len(rows[0]))
    text = [sum(len(row[c]) for row in rows) for c in columns]
    words = [[w for row in rows for w in re.findall(r"[\x21-\x7e]+", row[c])] or ["M"] for c in columns]
    floor = [max(stringWidth(w, style.fontName, style.fontSize) for w in words[c]) + 16 for c in columns]
    spare = width - sum(floor)
    return [low + spare * share / sum(text) for low, share in zip(floor, text, strict=True)]


def _table(block: list[str], styles: dict[Any, Any], kind: str, width: float) -> Any:
    from reportlab.lib import colors
    from reportlab.platypus import Paragraph, Table

    rows = [[cell.strip() for cell in row.strip().strip("|").split("|")] for row in block if "---" not in row]
    columns = len(rows[0])
    style: list[tuple[Any, ...]]
    if kind == "overflow":
        table = Table(rows, colWidths=[width / columns] * columns, hAlign="LEFT")
        style = [("ALIGN", (0, 0), (-1, -1), "CENTER"), ("FONTNAME", (0, 0), (-1, -1), styles["body"].fontName)]
        style += [("FONTSIZE", (0, 0), (-1, -1), 10), ("TEXTCOLOR", (0, 0), (-1, 0), colors.white)]
    else:
        widths = _column_widths(rows, styles["cell"], width)
        cells = [[Paragraph(_escaped(c), styles["cell" if r else "head"]) for c in row] for r, row in enumerate(rows)]
        table = Table(cells, colWidths=widths, hAlign="LEFT")
        style = [("VALIGN", (0, 0), (-1, -1), "TOP")]
    if kind != "unruled":
        style += [("GRID", (0, 0), (-1, -1), 0.5, colors.grey), ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor(BLUE))]
    else:
        style += [("TEXTCOLOR", (0, 0), (-1, 0), colors.black)]
    table.setStyle(style)
    return table


def _story(document: MixedDocument, width: float) -> list[Any]:
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Image, ListFlowable, ListItem, PageBreak, Paragraph, Preformatted, Spacer

    from tests.workbench.ingestion.pdf_corpus_mixed import SCREENSHOTS

    styles = _styles(document)
    story: list[Any] = []
    table_kind = "ruled"
    caption_next = False
    for kind, block in markdown_blocks(document.source.strip().split("\n")):
        if kind == "directive":
            match = DIRECTIVE.match(block[0])
            assert match is not None
            words = match.group(1).split()
            if words[0] == "page":
                story.append(PageBreak())
            elif words[0] in ("overflow", "unruled"):
                table_kind = words[0]
            elif words[0] == "screenshot":
                shot = SCREENSHOTS[words[1]]
                story.append(Image(io.BytesIO(screenshot_png(shot)), width=WIDTH_PT, height=height_pt(shot)))
                caption_next = True
        elif kind == "heading":
            level = len(block[0]) - len(block[0].lstrip("#"))
            story.append(Paragraph(_escaped(block[0][level:].strip()), styles[level]))
        elif kind == "table":
            story += [_table(block, styles, table_kind, width), Spacer(1, 10)]
            table_kind = "ruled"
        elif kind == "code":
            code = ParagraphStyle("code", fontName="Courier", fontSize=8.5, leading=11, leftIndent=12, spaceAfter=8)
            story.append(Preformatted("\n".join(block), code))
        elif kind == "list":
            numbered = block[0].strip()[0].isdigit()
            items = [ListItem(Paragraph(_escaped(line.strip().split(" ", 1)[1]), styles["body"])) for line in block]
            numbers = (
                {"bulletType": "1", "bulletFormat": styles["numbers"]} if styles["numbers"] else {"bulletType": "1"}
            )
            options: dict[str, Any] = numbers if numbered else {"bulletType": "bullet", "start": styles["bullet"]}
            font = {"bulletFontName": styles["body"].fontName, "bulletFontSize": 10.5}
            story += [ListFlowable(items, leftIndent=20, **options, **font), Spacer(1, 6)]
        else:
            style = styles["caption"] if caption_next else styles["body"]
            story.append(Paragraph(_escaped(block[0]), style))
            caption_next = False
    return story


def build_pdf(document: MixedDocument) -> bytes:
    """The document as PDF bytes (reproducible: no dates or random ids)."""
    from reportlab.lib.pagesizes import A4, LETTER
    from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate

    styles = _styles(document)
    width, height = A4 if document.paper == "A4" else LETTER

    def furniture(canvas: Any, template: Any) -> None:
        canvas.saveState()
        canvas.setFont(styles["body"].fontName, 8.5)
        canvas.drawString(MARGIN, height - MARGIN + 22, document.header)
        canvas.setLineWidth(0.4)
        canvas.line(MARGIN, height - MARGIN + 18, width - MARGIN, height - MARGIN + 18)
        canvas.drawCentredString(width / 2, MARGIN - 26, document.footer.format(page=template.page))
        canvas.restoreState()

    frame = Frame(MARGIN, MARGIN, width - 2 * MARGIN, height - 2 * MARGIN, id="body")
    buffer = io.BytesIO()
    template = BaseDocTemplate(buffer, pagesize=(width, height), invariant=True, title=document.name)
    template.addPageTemplates([PageTemplate("page", [frame], onPage=furniture)])
    template.build(_story(document, width - 2 * MARGIN - 12))
    return buffer.getvalue()
