"""The rules that other producers than reportlab needed, on hand-made glyphs and pages: bullets
painted as shapes, spaces with no advance, bold painted as an outline, headings in colour,
nested items, columns under text set across the page, running headers that repeat a title."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.workbench.ingestion.pdf_corpus import chinese_font_available
from workbench.ingestion.parsers.pdf.blocks import Style, TextBlock, page_blocks
from workbench.ingestion.parsers.pdf.columns import Region, reading_order
from workbench.ingestion.parsers.pdf.furniture import without_furniture
from workbench.ingestion.parsers.pdf.glyphs import BLACK, Glyph, Mark, colour_of, page_glyphs
from workbench.ingestion.parsers.pdf.headings import is_heading
from workbench.ingestion.parsers.pdf.lists import list_marker
from workbench.ingestion.parsers.pdf.markdown import page_markdown
from workbench.ingestion.parsers.pdf.marks import drawn_bullets
from workbench.ingestion.parsers.pdf.render_modes import painted_bold
from workbench.ingestion.parsers.pdf.rows import Row, rows_of

BLUE = (0.31, 0.51, 0.74)


def _word(text: str, x: float, top: float, size: float = 10.0, advance: float = 5.0, **extra) -> list[Glyph]:
    return [
        Glyph(ch, x + i * advance, x + (i + 1) * advance, top, top + size, size, False, **extra)
        for i, ch in enumerate(text)
    ]


def _line(x: float, x1: float, top: float, letter: str = "a", size: float = 10.0) -> Row:
    """A row of touching glyphs from ``x`` to ``x1`` (a line of text filling that width)."""
    return Row(tuple(_word(letter * int((x1 - x) / 5), x, top, size)))


def _char(text: str, x0: float, x1: float, top: float = 100.0, **extra) -> dict:
    return {"text": text, "x0": x0, "x1": x1, "top": top, "bottom": top + 10, "size": 10.0, "fontname": "F", **extra}


def _page(chars: list[dict], curves: list[dict] | None = None) -> SimpleNamespace:
    return SimpleNamespace(chars=chars, curves=curves or [], rects=[], page_number=1, width=600.0, height=800.0)


def test_a_space_the_next_glyph_is_drawn_over_is_no_word_break():
    """Chromium paints an unbroken soft hyphen as a space glyph with no advance: "up" "load"."""
    chars = [_char("u", 0, 5), _char("p", 5, 10), _char(" ", 10, 13), _char("l", 10, 15), _char("o", 15, 20)]
    chars += [_char(" ", 20, 23), _char("i", 23, 28)]  # a real space: the next glyph starts after it
    glyphs = page_glyphs(_page(chars)).glyphs
    assert Row(glyphs).text == "uplo i"


def test_a_small_shape_left_of_a_line_is_its_bullet():
    text = _word("Item", 30, 100)
    disc = Mark(16, 20, 103, 107)  # 4 points, on the middle of the line, 10 points before it
    marked = drawn_bullets(text, [disc])
    assert [glyph.text for glyph in rows_of(marked)[0].glyphs][0] == "\u2022"
    assert drawn_bullets(_word("see", 0, 100) + text, [disc]) == _word("see", 0, 100) + text  # inside a line
    assert drawn_bullets(text, [Mark(16, 20, 63, 67)]) == text  # not on the line
    assert drawn_bullets(text, [Mark(12, 20, 100, 108)]) == text  # as high as the letters: a box, not a bullet
    shapes = [
        {"x0": 16, "x1": 20, "top": 103, "bottom": 107, "fill": True},
        {"x0": 0, "x1": 300, "top": 0, "bottom": 1},
    ]
    assert page_glyphs(_page([], shapes)).marks == (disc,)  # a rule is no mark


def test_colours_in_any_space_compare_as_rgb():
    assert colour_of((0,)) == colour_of((0.0, 0.0, 0.0)) == colour_of((0, 0, 0, 1)) == BLACK
    assert colour_of((0.31, 0.506, 0.741)) == BLUE
    assert colour_of(None) == BLACK and colour_of(("pattern",)) == BLACK


def test_bold_painted_as_an_outline_and_headings_in_colour_at_the_body_size():
    assert painted_bold({"fill": True, "stroke": True}) and not painted_bold({"fill": True, "stroke": False})
    style = Style(10.0, 14.0, BLACK)
    assert is_heading(TextBlock("paragraph", "Choosing a size", 10.0, False, 1, colour=BLUE), style)
    assert is_heading(TextBlock("paragraph", "选择块的大小", 10.0, True, 1), style)
    assert not is_heading(TextBlock("paragraph", "Choosing a size", 10.0, False, 1), style)
    assert not is_heading(TextBlock("paragraph", "A sentence in blue.", 10.0, False, 1, colour=BLUE), style)


def test_items_further_right_nest_under_the_item_before():
    def item(marker: str, text: str, x: float) -> TextBlock:
        row = Row(tuple(_word(text, x, 100)))
        return TextBlock("item", text, 10.0, False, 1, marker, row, row)

    blocks = [item("-", "top", 20), item("-", "inner", 40), item("1.", "deeper", 60), item("-", "back", 20)]
    assert page_markdown(blocks, Style(10.0, 14.0), {}) == "- top\n  - inner\n    1. deeper\n- back"


def test_a_title_is_no_running_header_though_the_header_repeats_its_words():
    pages = [
        [Row(tuple(_word("Notes", 40, 20, size=8))), Row(tuple(_word("Notes", 40, 60, size=18)))],
        [Row(tuple(_word("Notes", 40, 20, size=8))), Row(tuple(_word("Body", 40, 300)))],
    ]
    kept = without_furniture(pages, [800.0, 800.0])
    assert [[(row.text, row.size) for row in rows] for rows in kept] == [[("Notes", 18)], [("Body", 10.0)]]


def _two_column_page() -> list[Row]:
    """Text across the page, a short last line, two columns of 6 lines, a heading and a 3-column
    table whose cells leave the gutter (290-310) free, then text across the page again."""
    rows = [_line(40, 560, 100), _line(40, 200, 114, "b")]
    for n in range(6):
        rows.append(_line(40, 290, 140 + 14 * n, "l"))
        rows.append(_line(310, 560, 140 + 14 * n, "r"))
    rows.append(Row(tuple(_word("Heading", 40, 240, colour=BLUE))))
    for n in range(3):
        cells = _word("c1", 40, 260 + 14 * n) + _word("c2", 200, 260 + 14 * n) + _word("c3", 400, 260 + 14 * n)
        rows.append(Row(tuple(cells)))
    rows.append(_line(40, 560, 320, "z"))
    return sorted(rows, key=lambda row: row.top)


def test_columns_under_text_set_across_the_page_and_over_a_table():
    regions = reading_order(_two_column_page(), 600.0)
    texts = [[item.text[:2] if isinstance(item, Row) else "table" for item in region.items] for region in regions]
    assert [region.column for region in regions] == [False, True, True, False]
    assert texts[0] == ["aa", "bb"]  # the paragraph's short last line stays with it
    assert texts[1] == ["ll"] * 6 and texts[2] == ["rr"] * 6
    assert texts[3][:2] == ["He", "c1"] and texts[3][-1] == "zz"  # heading and table below, whole


@pytest.mark.parametrize(("ending", "joined"), [("runs on to the", True), ("ends a sentence.", False)])
def test_a_paragraph_goes_on_from_the_foot_of_one_column_to_the_head_of_the_next(ending, joined):
    left = [_line(40, 290, 140 + 14 * n, "l") for n in range(5)]
    left.append(Row(tuple(_word(ending.replace(" ", ""), 40, 210, advance=250 / len(ending.replace(" ", ""))))))
    right = [_line(310, 560, 140 + 14 * n, "r") for n in range(3)]
    regions = [Region(tuple(left), column=True), Region(tuple(right), column=True)]
    blocks = page_blocks(regions, Style(10.0, 14.0))
    assert len(blocks) == (1 if joined else 2)


def test_dashes_start_items_when_several_rows_start_with_one():
    def dash_item(text: str, top: float) -> Row:  # "– text": the dash, then a space's gap
        return Row((Glyph("\u2013", 20, 25, top, top + 10, 10.0, False), *_word(text, 30, top)))

    rows = [dash_item(f"item{n}", 100 + 14 * n) for n in range(2)]
    blocks = page_blocks([Region(tuple(rows))], Style(10.0, 14.0))
    assert [(block.kind, block.text) for block in blocks if isinstance(block, TextBlock)] == [
        ("item", "item0"),
        ("item", "item1"),
    ]
    alone = page_blocks([Region((rows[0],))], Style(10.0, 14.0))  # one line of prose starting with a dash
    assert [block.kind for block in alone if isinstance(block, TextBlock)] == ["paragraph"]


def test_a_first_line_indent_starts_a_paragraph_even_after_a_full_line():
    """Chinese (and many books) mark a paragraph by indenting its first line, with no space above:
    a paragraph whose last line happens to fill the measure still ends there."""
    rows = [
        _line(60, 300, 100, "a"),  # first line, indented 2 em
        _line(40, 300, 114, "b"),
        _line(40, 300, 128, "c"),  # full to the right edge
        _line(60, 300, 142, "d"),  # indented again: a new paragraph
        _line(40, 200, 156, "e"),
    ]
    blocks = page_blocks([Region(tuple(rows))], Style(10.0, 14.0))
    assert [block.text[:1] + block.text[-1:] for block in blocks if isinstance(block, TextBlock)] == ["ac", "de"]


def _chinese_page(heading_mode: int, heading_colour: tuple[float, float, float], scoped: bool = True) -> bytes:
    """A page with a heading at the body's size (painted in ``heading_mode``, in ``heading_colour``)
    over two paragraphs of body text, drawn with reportlab in WQY MicroHei (a font without bold).
    Unless ``scoped``, the heading's render mode goes on to the body text too."""
    import io

    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    from tests.workbench.ingestion.pdf_corpus import CHINESE_FONT_FILE

    pdfmetrics.registerFont(TTFont("WQY", CHINESE_FONT_FILE, subfontIndex=0))
    buffer = io.BytesIO()
    page = canvas.Canvas(buffer, invariant=1)
    if scoped:
        page.saveState()  # the render mode and the colour are graphics state: scoped to the heading
    heading = page.beginText(72, 720)
    heading.setFont("WQY", 11)
    heading.setTextRenderMode(heading_mode)
    heading.setFillColorRGB(*heading_colour)
    heading.textLine("选择块的大小")
    page.setLineWidth(0.35)
    page.drawText(heading)
    if scoped:
        page.restoreState()
    body = page.beginText(72, 696)
    body.setFont("WQY", 11)
    for line in ("从嵌入模型训练时使用的长度开始测量召回率。", "把长度减半和加倍，再分别测量一次。", ""):
        body.textLine(line)
    body.textLine("不同的长度适合不同的集合。")
    page.drawText(body)
    page.save()
    return buffer.getvalue()


@pytest.mark.skipif(not chinese_font_available(), reason="needs fonts-wqy-microhei")
def test_a_heading_bold_by_outline_or_in_colour_at_the_body_size_is_a_heading():
    from workbench.ingestion.parsers import parse_bytes

    outlined = parse_bytes(_chinese_page(2, (0, 0, 0)), "outlined.pdf").markdown  # fill and stroke
    coloured = parse_bytes(_chinese_page(0, BLUE), "coloured.pdf").markdown
    plain = parse_bytes(_chinese_page(0, (0, 0, 0)), "plain.pdf").markdown
    assert outlined.startswith("# 选择块的大小\n") and coloured.startswith("# 选择块的大小\n")
    assert plain.startswith("选择块的大小") and "#" not in plain
    everything_outlined = parse_bytes(_chinese_page(2, (0, 0, 0), scoped=False), "bold.pdf").markdown
    assert everything_outlined.split("\n\n") == plain.split("\n\n")  # bold body text: its paragraphs still end


def test_a_bullet_drawn_in_a_picture_font_is_a_bullet_not_a_letter():
    """reportlab draws ``●`` as the letter ``l`` of ZapfDingbats: a text layer reads "l Keep the…"."""
    chars = [
        _char("l", 0, 6, fontname="ZapfDingbats"),
        *(_char(c, 18 + 5 * i, 23 + 5 * i) for i, c in enumerate("Keep")),
    ]
    row = Row(page_glyphs(_page(chars)).glyphs)
    assert row.text == "Keep"
    assert list_marker(row) is not None and list_marker(row)[0] == "-"
    ticked = Row(tuple(_word("\u2713", 0, 100) + _word("Done", 12, 100)))
    assert (list_marker(ticked) or ("", None))[0] == "-"
