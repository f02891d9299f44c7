"""The extractor's rules on hand-made glyphs: joining lines, spaces, table runs, page furniture, heading levels."""

from __future__ import annotations

import pytest

from workbench.ingestion.parsers.pdf.blocks import Style, TextBlock, page_blocks
from workbench.ingestion.parsers.pdf.columns import Region
from workbench.ingestion.parsers.pdf.furniture import is_page_number, without_furniture
from workbench.ingestion.parsers.pdf.glyphs import UNMAPPED, Glyph, glyph_text
from workbench.ingestion.parsers.pdf.headings import heading_levels, is_heading
from workbench.ingestion.parsers.pdf.lists import items_in_company, list_marker
from workbench.ingestion.parsers.pdf.markdown import page_markdown
from workbench.ingestion.parsers.pdf.page_breaks import tables_across_pages
from workbench.ingestion.parsers.pdf.paragraphs import join_lines, join_pair
from workbench.ingestion.parsers.pdf.rows import Row, glyph_run_text, rows_of
from workbench.ingestion.parsers.pdf.tables import TableBlock, glyphs_in_cells, unruled_table, unruled_table_runs


def _word(text: str, x: float, top: float, size: float = 10.0, advance: float = 5.0) -> list[Glyph]:
    """Glyphs of ``text`` from ``x``, each ``advance`` wide, touching (a word)."""
    return [
        Glyph(ch, x + i * advance, x + (i + 1) * advance, top, top + size, size, False) for i, ch in enumerate(text)
    ]


def _row(*words: tuple[str, float], top: float = 100.0) -> Row:
    return Row(tuple(glyph for text, x in words for glyph in _word(text, x, top)))


@pytest.mark.parametrize(
    ("left", "right", "joined"),
    [
        ("the extracted infor-", "mation together", "the extracted information together"),
        ("Retrieval-", "Augmented Generation", "Retrieval-Augmented Generation"),
        ("排序算", "法找出", "排序算法找出"),
        ("以便在用户发现之前找出退步", "。下一句", "以便在用户发现之前找出退步。下一句"),
        ("按词语的 BM25", "索引和", "按词语的 BM25 索引和"),
        ("words at the end", "of a line", "words at the end of a line"),
        ("a dash -", "then more", "a dash - then more"),
    ],
)
def test_lines_join_with_the_space_their_script_wants(left, right, joined):
    assert join_pair(left, right) == joined


def test_join_lines_over_several_lines():
    assert join_lines(["检索", "增强", "生成 RAG", "works"]) == "检索增强生成 RAG works"


def test_spaces_come_from_gaps_but_not_between_stretched_cjk_characters():
    latin = _word("ab", 0, 0) + _word("cd", 12, 0)  # a 2-point gap: 0.2 em, a space
    assert glyph_run_text(latin) == "ab cd"
    cjk = _word("检索", 0, 0, advance=10) + _word("系统", 24, 0, advance=10)  # justified: 4 points between
    assert glyph_run_text(cjk) == "检索系统"
    spelled = [*_word("第一章", 0, 0, advance=10), Glyph("什", 32, 42, 0, 10, 10, False, space_before=True)]
    assert glyph_run_text(spelled) == "第一章 什"  # a space glyph between CJK characters is a space


def test_cid_glyphs_are_unmapped_and_never_text():
    assert glyph_text("(cid:127)") == UNMAPPED and glyph_text("\ue000") == UNMAPPED
    assert glyph_text("\ufb01") == "fi" and glyph_text("算") == "算"
    bullet = Glyph(UNMAPPED, 0, 4, 0, 10, 10, False)
    row = Row((bullet, *_word("Item text", 18, 0)))
    assert row.text == "Item text"
    marker, rest = list_marker(row) or ("", row)
    assert (marker, rest.text) == ("-", "Item text")


def test_numbered_items_keep_their_numbers():
    marker, rest = list_marker(_row(("3.", 0), ("Commit", 14))) or ("", None)
    assert marker == "3." and rest is not None and rest.text == "Commit"
    assert list_marker(_row(("3.5", 0), ("million", 20))) is None


def test_rows_group_glyphs_by_baseline_and_sort_them():
    glyphs = _word("second", 0, 120) + _word("first", 0, 100) + _word("line", 30, 101)
    assert [row.text for row in rows_of(glyphs)] == ["first line", "second"]


def test_aligned_columns_over_three_rows_are_a_table():
    rows = [
        _row(("Collection", 0), ("Documents", 100), ("Passages", 200), top=100),
        _row(("Handbook", 0), ("120", 100), ("4800", 200), top=114),
        _row(("Papers", 0), ("950", 100), ("31000", 200), top=128),
    ]
    assert unruled_table_runs(rows) == [(0, 3)]
    assert unruled_table(rows).cells[1] == ("Handbook", "120", "4800")


def _spans(*spans: tuple[float, float], top: float) -> Row:
    """A row of CJK glyphs 10 points wide filling each ``(x0, x1)`` span."""
    glyphs = [
        Glyph("字", x, x + 10, top, top + 10, 10.0, False) for x0, x1 in spans for x in range(int(x0), int(x1), 10)
    ]
    return Row(tuple(glyphs))


def test_a_justified_paragraph_with_wide_gaps_is_no_table():
    """Every full-width line has a wide gap, each at another place: no channel runs through them."""
    rows = [
        _spans((0, 150), (170, 300), top=100),
        _spans((0, 60), (80, 300), top=114),
        _spans((0, 230), (250, 300), top=128),
        _spans((0, 100), (130, 300), top=142),
    ]
    assert all(len(row.pieces) == 2 for row in rows)
    assert unruled_table_runs(rows) == []
    aligned = [_spans((0, 60), (80, 300), top=100 + 14 * n) for n in range(4)]
    assert unruled_table_runs(aligned) == [(0, 4)]  # the same gap on every line is a column break


def test_two_aligned_rows_are_not_yet_a_table():
    rows = [_row(("Name", 0), ("Qty", 100), top=100), _row(("Apple", 0), ("3", 100), top=114)]
    assert unruled_table_runs(rows) == []


@pytest.mark.parametrize("text", ["7", "Page 7", "page 7 of 12", "- 7 -", "第 7 页", "第7页 共12页", "7 / 12"])
def test_page_numbers(text):
    assert is_page_number(text)


@pytest.mark.parametrize("text", ["7 reasons to index", "Chapter 7", "第七章"])
def test_not_page_numbers(text):
    assert not is_page_number(text)


def test_running_headers_repeat_in_the_margin_and_go():
    def page(number: int) -> list[Row]:
        return [
            _row(("Quarterly", 0), ("report", 60), top=20),
            _row(("Body", 0), (f"text{number}", 40), top=300),
            _row((f"Page {number}", 0), top=780),
        ]

    kept = without_furniture([page(1), page(2), page(3)], [842.0] * 3)
    assert [[row.text for row in rows] for rows in kept] == [["Body text1"], ["Body text2"], ["Body text3"]]
    single = without_furniture([page(1)], [842.0])  # one page: a repeated header cannot be told apart
    assert [row.text for row in single[0]] == ["Quarterly report", "Body text1"]


def test_heading_sizes_rank_into_three_levels():
    style = Style(body_size=10.0, body_pitch=14.0)
    blocks = [
        TextBlock("paragraph", "Title", 20.0, True, 1),
        TextBlock("paragraph", "Section", 15.0, True, 1),
        TextBlock("paragraph", "Section again", 15.2, True, 1),
        TextBlock("paragraph", "Subsection", 12.5, True, 1),
        TextBlock("paragraph", "Minor", 11.5, False, 1),
        TextBlock("paragraph", "Body text that goes on.", 10.0, False, 4),
    ]
    assert heading_levels(blocks, style) == {20.0: 1, 15.2: 2, 15.0: 2, 12.5: 3, 11.5: 3}


def _spaced(*words: tuple[str, float], top: float = 100.0) -> Row:
    """Words with a space glyph drawn before each but the first (``space_before``)."""
    glyphs = []
    for index, (text, x) in enumerate(words):
        for offset, glyph in enumerate(_word(text, x, top)):
            glyphs.append(Glyph(glyph.text, glyph.x0, glyph.x1, top, top + 10, 10.0, False, index > 0 and not offset))
    return Row(tuple(glyphs))


def test_a_justified_line_with_its_spaces_stretched_is_one_piece():
    """Broken only at spaces, a justified line puts all its slack into its few spaces, alike."""
    stretched = _spaced(("结构化日志（JSON", 0), ("Lines", 85), ("格式）、全链路", 145))  # two 35-point spaces
    assert stretched.stretched_spaces and len(stretched.pieces) == 1
    # cells that end in a space: narrow spaces inside them, a wide one between
    cells = _spaced(("Parse", 0), ("and", 28), ("extract", 46), ("PyPDF2,", 140), ("docx", 178))
    assert not cells.stretched_spaces and [piece.text for piece in cells.pieces] == [
        "Parse and extract",
        "PyPDF2, docx",
    ]
    # three such lines, each stretched its own way: a channel runs through them, but no table
    rows = [
        _spaced(("aaaaaa", 0), ("bbbbbb", 30 + gap), ("cc", 60 + 2 * gap), top=100 + 14 * n)
        for n, gap in enumerate([20, 24, 28])
    ]
    assert unruled_table_runs(rows) == []


def test_numbers_without_a_full_stop_start_items_only_in_company():
    """reportlab numbers items ``1``, ``2``: a number alone, a wide gap, then the text."""
    steps = [_row(("1", 0), ("Hash the file", 20), top=100), _row(("2", 0), ("Parse it", 20), top=114)]
    assert items_in_company(steps) == {0, 1}
    marker, rest = list_marker(steps[1], in_company=True) or ("", None)
    assert marker == "2." and rest is not None and rest.text == "Parse it"
    lone = [_row(("2019", 0), ("was a year of change", 30), top=100)]
    assert items_in_company(lone) == set() and list_marker(lone[0]) is None
    numbered_rows = [
        _row(("1", 0), ("Apple", 20), ("3", 80), top=100),
        _row(("2", 0), ("Pear", 20), ("5", 80), top=114),
    ]
    assert items_in_company(numbered_rows) == set()  # a table whose first column counts its rows


def test_a_numbered_list_drawn_without_full_stops_is_a_list_one_item_a_line():
    style = Style(body_size=10.0, body_pitch=14.0)
    rows = [
        _row(("1", 0), ("Multi-document", 20), ("reasoning", 95), ("that", 145), ("combines", 170), top=100),
        _row(("evidence", 20), ("from", 65), ("sources.", 90), top=114),  # wrapped, at the item's text
        _row(("2", 0), ("Knowledge", 20), ("graphs.", 70), top=128),
        _row(("3", 0), ("Adaptive", 20), ("chunking.", 65), top=142),
    ]
    blocks = page_blocks([Region(tuple(rows))], style)
    assert [(block.marker, block.text) for block in blocks if isinstance(block, TextBlock)] == [
        ("1.", "Multi-document reasoning that combines evidence from sources."),
        ("2.", "Knowledge graphs."),
        ("3.", "Adaptive chunking."),
    ]


def _typed(*words: tuple[str, float], top: float, size: float = 10.0, bold: bool = False) -> Row:
    glyphs = (
        Glyph(g.text, g.x0, g.x1, top, top + size, size, bold) for text, x in words for g in _word(text, x, top, size)
    )
    return Row(tuple(glyphs))


def test_a_numbered_line_set_apart_from_the_body_is_a_heading_and_a_run_of_them_a_list():
    style = Style(body_size=10.0, body_pitch=14.0)
    heading = _typed(("1.", 0), ("Introduction", 14), top=100, size=14.0, bold=True)
    body = _typed(("Body", 0), ("text.", 30), top=122)
    blocks = page_blocks([Region((heading, body))], style)
    assert isinstance(blocks[0], TextBlock) and (blocks[0].kind, blocks[0].text) == ("paragraph", "1. Introduction")
    assert is_heading(blocks[0], style)
    bold_list = [_typed((f"{n}.", 0), ("Step", 14), top=100 + 14 * n, bold=True) for n in (1, 2, 3)]
    assert [block.kind for block in page_blocks([Region(tuple(bold_list))], style)] == ["item"] * 3


def test_a_heading_half_a_point_larger_ends_the_full_line_before_it():
    """The issue's ``…视频讲解。2.2 八股内容``: the line before is full, so only the type tells."""
    style = Style(body_size=10.5, body_pitch=15.0)
    full = _typed(("字" * 30, 0), top=100, size=10.5)  # ends at the right edge
    heading = _typed(("2.2", 0), ("八股内容", 20), top=118, size=11.0)
    after = _typed(("字" * 30, 0), top=136, size=10.5)
    blocks = page_blocks([Region((full, heading, after))], style)
    assert [block.text for block in blocks if isinstance(block, TextBlock)] == ["字" * 30, "2.2 八股内容", "字" * 30]
    assert is_heading(blocks[1], style) and not is_heading(blocks[0], style)


def test_text_wider_than_its_cell_stays_in_that_cell():
    """The issue's ``| Parse and extract content P | yPDF2, python-docx, BeautifulSou |`` and ``p``:
    centred text that runs over the rules on both sides, and past the table's edge."""
    grid = [[(0.0, 100.0, 150.0, 120.0), (150.0, 100.0, 300.0, 120.0)]]
    first = _word("Parse", 40, 105)  # 40-65, inside the first cell
    # "P" lies left of the rule at 150, and "p" past the table's edge at 300
    tools = _word("PyPDF2,", 147, 105) + _word("BeautifulSoup", 240, 105)
    placed = glyphs_in_cells(first + tools, grid, (0.0, 100.0, 300.0, 120.0))
    assert Row(tuple(placed[(0, 0)])).text == "Parse"
    assert Row(tuple(placed[(0, 1)])).text == "PyPDF2, BeautifulSoup"
    beside = glyphs_in_cells(_word("Note", 330, 105), grid, (0.0, 100.0, 300.0, 120.0))
    assert beside == {}  # text beside the table is not the table's


def test_an_unruled_table_keeps_the_lines_of_a_wrapped_cell_in_that_cell():
    """Rows 20 points apart, a cell's lines 12: the lines at the closer pitch go on with the row,
    and so does a line with text in one column only."""
    rows = [
        _row(("Symptom", 0), ("Action", 100), top=100),
        _row(("Timeouts", 0), ("Fail", 100), ("over", 125), top=120),
        _row(("on", 0), ("every", 15), ("to", 100), ("the", 115), top=132),
        _row(("standby", 100), top=144),  # the last line of the wrapped "Action" cell
        _row(("Errors", 0), ("Remove", 100), ("it", 140), top=164),
    ]
    assert unruled_table_runs(rows) == [(0, 5)]
    assert unruled_table(rows).cells == (
        ("Symptom", "Action"),
        ("Timeouts on every", "Fail over to the standby"),
        ("Errors", "Remove it"),
    )
    following = [*rows, _row(("A", 0), ("paragraph", 10), ("across", 60), ("both", 100), ("columns.", 130), top=190)]
    assert unruled_table_runs(following) == [(0, 5)]  # prose below the table is not a wrapped line
    # a table cut by a page break keeps two rows: they make a table when a cell wraps in its column
    cut = [
        _row(("overlap", 0), ("64", 60), ("How", 100), ("much", 120), top=100),
        _row(("of", 100), ("the", 115), ("end", 135), top=112),
        _row(("fusion", 0), ("rrf", 60), ("How", 100), ("the", 120), top=130),
    ]
    assert unruled_table_runs(cut) == [(0, 3)]
    assert unruled_table(cut).cells[1] == ("fusion", "rrf", "How the")


def _mono(text: str, x: float, top: float) -> list[Glyph]:
    return [Glyph(ch, x + 5 * i, x + 5 * (i + 1), top, top + 8, 8.0, False, mono=True) for i, ch in enumerate(text)]


def test_lines_in_a_monospaced_font_are_a_code_block_with_their_indentation():
    style = Style(body_size=10.0, body_pitch=14.0)
    body = _row(("Run", 0), ("this:", 20), top=100)
    code = [
        Row(tuple(_mono("def", 0, 118) + _mono("search(query):", 20, 118))),
        Row(tuple(_mono("return", 20, 128) + _mono("hits", 60, 128))),  # indented four advances
    ]
    after = _row(("Then", 0), ("go", 25), ("on.", 40), top=146)
    blocks = page_blocks([Region((body, *code, after))], style)
    assert [(block.kind, block.text) for block in blocks if isinstance(block, TextBlock)] == [
        ("paragraph", "Run this:"),
        ("code", "def search(query):\n    return  hits"),
        ("paragraph", "Then go on."),
    ]
    assert "```\ndef search(query):\n    return  hits\n```" in page_markdown(blocks, style, {})
    # a document set in a monospaced font throughout has paragraphs, not code
    typed = Style(body_size=8.0, body_pitch=10.0, body_mono=True)
    assert [block.kind for block in page_blocks([Region(tuple(code))], typed)] == ["paragraph", "paragraph"]


def test_a_tables_header_left_at_the_foot_of_a_page_joins_the_table_heading_the_next():
    header = TextBlock(
        "paragraph", "Setting Default", 10.0, True, 1, first=_row(("Setting", 0), ("Default", 100), top=780)
    )
    table = TableBlock((("size", "512"), ("overlap", "64")), 0.0, 200.0, 60.0, 90.0, cuts=(90.0,))
    prose = TextBlock("paragraph", "Some text", 10.0, False, 1, first=_row(("Some", 0), ("text", 30), top=760))
    pages: list[list] = [[prose, header], [table]]
    tables_across_pages(pages)
    assert pages[0] == [prose] and pages[1][0].cells == (("Setting", "Default"), ("size", "512"), ("overlap", "64"))
    across = TextBlock(
        "paragraph", "A long line", 10.0, True, 1, first=_row(("A", 80), ("long", 88), ("line", 150), top=780)
    )
    pages = [[across], [table]]
    tables_across_pages(pages)
    assert pages == [[across], [table]]  # its words lie across the column's edge: no row of that table


def test_a_character_moves_down_with_the_marks_that_may_not_start_a_line():
    """Kinsoku: with "上。" starting the next line, what would have had to fit is both (20 points
    at 10 points an em), and "（Open" moves with its bracket; a lone ideograph is one em."""
    from workbench.ingestion.parsers.pdf.blocks import first_word_width

    above = Row(tuple(_word("提升了一倍以", 0, 100, advance=10)))
    assert first_word_width(Row(tuple(_word("上。项目", 0, 112, advance=10))), above) == 20
    assert first_word_width(Row(tuple(_word("项目结束", 0, 112, advance=10))), above) == 10
    bracket = _word("（", 0, 112, advance=10) + _word("Open", 10, 112)
    assert first_word_width(Row(tuple(bracket)), above) == 30  # 10 for the bracket, 4 × 5 for the word


def test_lines_of_chinese_broken_only_after_punctuation_make_the_first_word_a_phrase():
    """``word-break: keep-all``: every break between two lines of Chinese falls after a mark, so
    the next line's first word runs to its first mark (four ideographs and ``，`` here: 50 points)."""
    from workbench.ingestion.parsers.pdf.blocks import PHRASE_BREAKS, breaks_after_punctuation, first_word_width

    lines = ["突出重点和思路，", "不想让转行的人，", "因为经历不够，", "所以我也会分享，", "犯过的错误。"]
    rows = [Row(tuple(_word(text, 0, 100 + 12 * i, advance=10))) for i, text in enumerate(lines)]
    assert PHRASE_BREAKS == 4 and breaks_after_punctuation(rows)
    assert not breaks_after_punctuation(rows[:4])  # three breaks: too few to tell
    inside = [
        *rows[:2],
        Row(tuple(_word("因为经历不", 0, 124, advance=10))),
        Row(tuple(_word("够丰富。", 0, 136, advance=10))),
    ]
    assert not breaks_after_punctuation([*inside, *rows[2:]])  # one break between two ideographs
    assert first_word_width(rows[2], rows[1], phrases=True) == 70  # "因为经历不够，"
    assert first_word_width(rows[2], rows[1]) == 10


def test_a_type3_copy_of_a_font_on_the_page_is_its_synthetic_bold():
    from workbench.ingestion.parsers.pdf.render_modes import synthetic_faces

    fonts = {"BAAAAA+WenQuanYiMicroHei", "AAAAAA+WenQuanYiMicroHei", "CAAAAA+LiberationSans", "T3Font_0"}
    type3 = {"AAAAAA+WenQuanYiMicroHei", "T3Font_0"}
    assert synthetic_faces(fonts, type3) == {"AAAAAA+WenQuanYiMicroHei"}  # T3Font_0 copies no font
    assert synthetic_faces({"AAAAAA+WenQuanYiMicroHei"}, type3) == frozenset()


def test_numbers_drawn_inside_the_text_start_items_in_company_but_not_contents_entries():
    rows = [_row(("1", 0), ("Multi-document", 10)), _row(("2", 0), ("Knowledge", 10), top=112)]
    assert items_in_company(rows) == {0, 1}
    marker = list_marker(rows[1], in_company=True)
    assert marker is not None and marker[0] == "2." and marker[1].text == "Knowledge"
    contents = [
        _row(("1", 0), ("Introduction", 10), ("....", 80), ("1", 110)),
        _row(("2", 0), ("Setup", 10), ("....", 80), ("3", 110), top=112),
    ]
    assert items_in_company(contents) == set()
