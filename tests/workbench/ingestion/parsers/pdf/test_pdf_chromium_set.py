"""The PDF extractor on the held-out Chromium set, element by element, in English and Chinese.

These PDFs come from another producer than the reportlab set the extractor was first written
against (``pdf_corpus_chromium``): bullets painted as shapes, table rules as thin rectangles,
justified Chinese with every gap widened, soft hyphens, Chromium's own running headers and
footers, CSS columns under text set across the page. The expectations are lines of the Markdown
each PDF was printed from. Where markitdown (the old route) gets an element wrong, a test shows
it, so the check is known to be able to fail.
"""

from __future__ import annotations

import re

import pytest

from workbench.ingestion.parsers.converter import convert


def _paragraphs(truth: str) -> list[str]:
    """The truth's plain paragraphs (no heading, item, table row or directive)."""
    return [
        line for line in truth.split("\n") if line.strip() and not re.match(r"^(#|\s*[-*] |\s*\d+[.)] |\||<!--)", line)
    ]


@pytest.mark.parametrize(
    ("name", "headings"),
    [
        (
            "en-guide.pdf",
            ["# Evaluating a Retrieval Pipeline", "## Preparing the questions", "### Sources of questions"],
        ),
        ("zh-guide.pdf", ["# 检索系统评估指南", "## 准备问题", "### 问题的来源", "### 比较两次运行"]),
        # section headings in bold at the body's size
        ("en-memo.pdf", ["# Index Maintenance Memo", "## Daily checks", "## Storage layout", "## Contacts"]),
        # only two levels, one of them in the right column
        ("zh-notes.pdf", ["# 索引维护说明", "## 日常检查", "## 存储结构", "## 升级处理"]),
    ],
)
def test_headings_get_their_level_from_the_type(chromium_set, name, headings):
    pdf = chromium_set[name]
    for heading in headings:
        assert heading in pdf.lines
    written = [line for line in pdf.lines if line.startswith("#")]
    wanted = [line for line in pdf.document.truth.split("\n") if line.startswith("#")]
    assert written == wanted  # every heading, none more, in order
    assert pdf.parsed.title == headings[0][2:]


@pytest.mark.parametrize(
    ("name", "items"),
    [
        (
            "en-guide.pdf",
            [
                "- Questions written by people who know the documents well.",  # circle bullets, painted
                "  - Each checked question keeps the passage it was generated from.",  # nested
                "- Questions copied from the support queue, with names removed.",
                "1) Read the question and the returned passage together.",
                "3. Report every score together with its interval.",
            ],
        ),
        (
            "zh-guide.pdf",
            [
                "- 熟悉文档的人员亲自编写的问题。",  # square bullets, painted
                "  - 被拒绝的问题单独存放，并注明原因。",
                "1. 把问题和返回的段落放在一起阅读。",
                "3) 每个分数都附上置信区间。",
            ],
        ),
        ("zh-notes.pdf", ["- 集合名称和所在的文件夹。", "- 第一条错误前后的日志。"]),
    ],
)
def test_list_items_with_painted_bullets_nesting_and_numbers(chromium_set, name, items):
    pdf = chromium_set[name]
    for item in items:
        assert item in pdf.lines
    old = convert(pdf.data, name, "pdf").markdown.split("\n")
    assert not any(line.strip() == items[0] for line in old)  # markitdown sees no bullet at all


@pytest.mark.parametrize("name", ["en-guide.pdf", "zh-guide.pdf", "en-memo.pdf", "zh-notes.pdf"])
def test_every_paragraph_comes_out_whole_on_one_line(chromium_set, name):
    """Lines joined (CJK without a space, Latin with one, soft hyphens mended), justified text not
    split into cells, columns read in order, headers and footers left out of the text."""
    pdf = chromium_set[name]
    for paragraph in _paragraphs(pdf.document.truth):
        assert paragraph in pdf.lines


def test_a_justified_chinese_paragraph_stays_a_paragraph(chromium_set):
    pdf = chromium_set["zh-guide.pdf"]
    paragraph = next(line for line in pdf.lines if line.startswith("问题来自不同的渠道"))
    assert "RAG（Retrieval-Augmented Generation）系统的评估" in paragraph and paragraph.endswith("日常语言的提问。")
    table_rows = [line for line in pdf.lines if line.startswith("|")]
    assert len(table_rows) == 5 + 6  # the ruled and the unruled table (rows and the rule under a header)
    assert not any(line.startswith("|") for line in chromium_set["zh-notes.pdf"].lines)  # two columns, no table


def test_a_chinese_word_broken_at_a_column_foot_is_joined(chromium_set):
    pdf = chromium_set["zh-notes.pdf"]
    assert "索引会逐渐积累任何查询都无法返回的条目。" in pdf.parsed.markdown
    assert "积累任\n" not in pdf.parsed.markdown


@pytest.mark.parametrize(
    ("name", "ruled", "unruled"),
    [
        (
            "en-guide.pdf",
            "| Metric | What it rewards | Range |\n| --- | --- | --- |\n| Recall at 10 | Finding every relevant "
            "passage somewhere among the first ten results, whatever their order | 0 to 1 |",
            "| Setting | Default | Allowed range |\n| --- | --- | --- |\n| Chunk size | 512 tokens | 64 to 4096 |",
        ),
        (
            "zh-guide.pdf",
            "| 指标 | 奖励的行为 | 取值范围 |\n| --- | --- | --- |\n"
            "| 前十召回率 | 前十个结果中找到全部相关段落 | 0 到 1 |",
            "| 设置 | 默认值 | 允许范围 |\n| --- | --- | --- |\n| 分块大小 | 512 | 64 到 4096 |",
        ),
    ],
)
def test_real_tables_bordered_and_borderless(chromium_set, name, ruled, unruled):
    assert ruled in chromium_set[name].parsed.markdown  # a cell over two lines is one cell
    assert unruled in chromium_set[name].parsed.markdown


def test_two_columns_under_text_set_across_the_page(chromium_set):
    markdown = chromium_set["en-memo.pdf"].parsed.markdown
    order = ["## Weekly rebuilds", "## Storage layout", "untouched, and the next start finds", "## Restoring"]
    assert [markdown.index(text) for text in order] == sorted(markdown.index(text) for text in order)
    assert sum(line.startswith("|") for line in chromium_set["en-memo.pdf"].lines) == 5  # the contacts table


@pytest.mark.parametrize(
    ("name", "furniture"),
    [
        ("en-guide.pdf", ["Retrieval evaluation guide", "Page 1 of 2"]),
        ("zh-guide.pdf", ["内部资料", "第 1 页", "第 2 页"]),
        ("zh-notes.pdf", ["- 1 -", "- 2 -"]),
    ],
)
def test_running_headers_and_page_numbers_are_dropped_but_a_title_with_their_words_is_not(
    chromium_set, name, furniture
):
    for text in furniture:
        assert text not in chromium_set[name].parsed.markdown
    assert chromium_set["zh-notes.pdf"].lines[0] == "# 索引维护说明"  # the running header repeats the title


@pytest.mark.parametrize("name", ["en-guide.pdf", "zh-guide.pdf", "en-memo.pdf", "zh-notes.pdf"])
def test_no_cid_soft_hyphen_or_replacement_character(chromium_set, name):
    markdown = chromium_set[name].parsed.markdown
    assert "(cid:" not in markdown and "\ufffd" not in markdown and "\u00ad" not in markdown


def test_pages_start_where_their_text_starts(chromium_set):
    parsed = chromium_set["zh-guide.pdf"].parsed
    assert parsed.page_starts == (0, parsed.markdown.index("## 解读分数"))
