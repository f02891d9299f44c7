"""A chunk's Markdown drawn (the Judging page showed it raw: pipes, ``#``, ``**``), safely: its
tables as tables, its headings, emphasis, lists and code as such, and its links, images and HTML
as the plain text they are (document text is data, not page markup)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from workbench.ui.chunk_text import TextPiece, pieces, table_markdown

CHUNK = (
    "Results by mode:\n"
    "| mode | nDCG@10 |\n"
    "|---|---:|\n"
    "| bm25 | 0.6834 |\n"
    "| [hybrid](http://x) \\| rrf | 0.7188 |\n"
    "Hybrid wins."
)


def test_a_table_between_lines_is_cut_out_and_its_cells_escaped():
    assert pieces(CHUNK) == [
        TextPiece("text", "Results by mode:"),
        TextPiece(
            "table",
            "| mode | nDCG@10 |\n| --- | --- |\n| bm25 | 0\\.6834 |\n"
            "| \\[hybrid\\]\\(http\\://x\\) \\| rrf | 0\\.7188 |",
        ),
        TextPiece("text", "Hybrid wins."),
    ]


def test_rows_cut_from_their_header_get_an_empty_one_and_chinese_cells_stay_whole():
    assert table_markdown(["| 模式 | 得分 |", "| 向量 |"]) == "|  |  |\n| --- | --- |\n| 模式 | 得分 |\n| 向量 |  |"
    # one row alone, or pipes inside a sentence, are text
    assert pieces("| only one row |\nA | B") == [TextPiece("text", "| only one row |\nA | B")]


def test_show_chunk_text_draws_the_table_and_the_text_as_markdown():
    app = AppTest.from_function(_draw, args=(CHUNK,)).run()
    assert not app.exception, app.exception
    assert [block.value for block in app.markdown] == [
        "Results by mode\\:",
        "| mode | nDCG@10 |\n| --- | --- |\n| bm25 | 0\\.6834 |\n| \\[hybrid\\]\\(http\\://x\\) \\| rrf | 0\\.7188 |",
        "Hybrid wins\\.",
    ]
    assert not app.text  # nothing shown raw


MARKDOWN_CHUNK = (
    "# Results\n\nSome **bold** and *em* text with `code`.\n- item one\n1) item [link](http://evil.example/x)\n"
    "![img](http://evil.example/p.png)\n<script>alert(1)</script>\n> quoted $x$ :red[no]\n"
    '```python\nprint("<b>")\n```\n## 第二节 检索\n混合检索把**关键词**和向量融合。'
)


def test_safe_markdown_keeps_structure_and_follows_no_link_image_or_html():
    from workbench.ui.chunk_text import safe_markdown

    assert safe_markdown(MARKDOWN_CHUNK).split("\n") == [
        "#### Results",  # a chunk's headings stay below the page's own
        "",
        "Some **bold** and *em* text with `code`\\.",
        "- item one",
        "1. item link \\(http\\://evil\\.example/x\\)",  # the address shown, not linked
        "\\[image\\: img\\]",  # not fetched
        "\\<script\\>alert\\(1\\)\\</script\\>",  # shown as written
        "> quoted \\$x\\$ \\:red\\[no\\]",  # no maths, no colour directive
        "~~~~",
        'print("<b>")',
        "~~~~",
        "##### 第二节 检索",
        "混合检索把**关键词**和向量融合。",
    ]


def _draw(text: str) -> None:
    from workbench.ui.chunk_text import show_chunk_text

    show_chunk_text(text)
