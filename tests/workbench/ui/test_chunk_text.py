"""A chunk's Markdown tables drawn as tables (the Judging page showed them as raw pipes), every
cell and every other line exactly as written."""

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


def test_show_chunk_text_draws_the_table_as_markdown_and_the_rest_as_text():
    app = AppTest.from_function(_draw, args=(CHUNK,)).run()
    assert not app.exception, app.exception
    assert [text.value for text in app.text] == ["Results by mode:", "Hybrid wins."]
    assert [block.value.splitlines()[0] for block in app.markdown] == ["| mode | nDCG@10 |"]


def _draw(text: str) -> None:
    from workbench.ui.chunk_text import show_chunk_text

    show_chunk_text(text)
