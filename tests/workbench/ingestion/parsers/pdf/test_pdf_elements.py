"""The PDF extractor, element by element, in English and Chinese, on the generated test set.

Each PDF is parsed exactly as ingestion parses it (``parse_bytes``); the expectations come from
the Markdown the PDF was written from (``pdf_corpus``). Where markitdown (the old route) gets an
element wrong, a test shows that too, so the check is known to be able to fail.
"""

from __future__ import annotations

import io
import re

import pytest

from tests.workbench.ingestion.pdf_corpus import CHINESE_FONT_FILE, DOCUMENTS, build_pdf, chinese_font_available
from workbench.chunking import chunk_markdown
from workbench.config import ChunkingConfig
from workbench.ingestion.parsers import ParsedDocument, parse_bytes
from workbench.ingestion.parsers.converter import convert

pytestmark = pytest.mark.skipif(not chinese_font_available(), reason="needs fonts-wqy-microhei")


@pytest.fixture(scope="module")
def pdfs() -> dict[str, bytes]:
    return {document.name: build_pdf(document) for document in DOCUMENTS}


@pytest.fixture(scope="module")
def parsed(pdfs) -> dict[str, ParsedDocument]:
    return {name: parse_bytes(data, name) for name, data in pdfs.items()}


def _lines(markdown: str) -> list[str]:
    return markdown.split("\n")


@pytest.mark.parametrize(
    ("name", "headings"),
    [
        ("en-report.pdf", ["# Retrieval Quality Report", "## Parsing documents", "### What a parser must keep"]),
        ("zh-report.pdf", ["# 检索质量报告", "## 文档解析", "### 解析器必须保留的内容"]),
        ("en-columns.pdf", ["# Notes on Hybrid Search", "## Two routes", "## Fusion of the two routes"]),
        ("zh-columns.pdf", ["# 混合检索笔记", "## 两路检索", "## 两路结果的融合"]),
    ],
)
def test_headings_get_their_level_from_the_type(parsed, pdfs, name, headings):
    lines = _lines(parsed[name].markdown)
    for heading in headings:
        assert heading in lines
    assert parsed[name].title == headings[0][2:]
    assert not any(line.startswith("#") for line in convert(pdfs[name], name, "pdf").markdown.split("\n"))


@pytest.mark.parametrize(
    ("name", "bullets", "numbered"),
    [
        (
            "en-report.pdf",
            [
                "- Headings, which tell every passage the section it belongs to.",
                "- Page numbers, for citations that a reader can check.",
            ],
            [
                "1. Hash the file and skip it when the same bytes were ingested before.",
                "4. Commit the passages and rebuild the indexes.",
            ],
        ),
        (
            "zh-report.pdf",
            ["- 标题，它告诉每个段落属于哪一节。", "- 页码，方便读者核对引用。"],
            ["1. 计算文件哈希，内容相同则跳过。", "4. 提交段落并重建索引。"],
        ),
    ],
)
def test_bullet_and_numbered_list_items(parsed, name, bullets, numbered):
    markdown = parsed[name].markdown
    lines = _lines(markdown)
    for item in bullets + numbered:
        assert item in lines
    # the four items of each list are consecutive lines (one tight list)
    first = lines.index(numbered[0])
    assert [line[:3] for line in lines[first : first + 4]] == ["1. ", "2. ", "3. ", "4. "]
    assert sum(line.startswith("- ") for line in lines) == 4


@pytest.mark.parametrize("name", ["en-report.pdf", "zh-report.pdf"])
def test_bullets_drawn_without_a_unicode_mapping_never_become_cid(parsed, pdfs, name):
    assert "(cid:" in convert(pdfs[name], name, "pdf").markdown  # what the old route wrote
    assert "(cid:" not in parsed[name].markdown and "\ufffd" not in parsed[name].markdown


def test_a_justified_chinese_paragraph_stays_one_paragraph(parsed, pdfs):
    markdown = parsed["zh-report.pdf"].markdown
    paragraph = next(line for line in _lines(markdown) if "RAG（Retrieval-Augmented Generation）" in line)
    assert paragraph.startswith("本报告介绍检索服务") and paragraph.endswith("取决于检索到的段落是否可靠。")
    assert "按词语的 BM25 索引和按语义的向量索引" in paragraph
    mixed = next(line for line in _lines(markdown) if line.startswith("检索增强生成 RAG"))
    assert "向量检索 Dense Retrieval 与大语言模型 LLM 结合在一起。" in mixed and mixed.endswith("三种模式。")
    table_rows = [line for line in _lines(markdown) if line.startswith("|")]
    assert len(table_rows) == 5 + 5  # each table: 4 rows and the rule under its header; nothing else


@pytest.mark.parametrize(
    ("name", "ruled", "unruled"),
    [
        (
            "en-report.pdf",
            "| Mode | Recall at 10 | nDCG at 10 | Latency ms |\n| --- | --- | --- | --- |\n| BM25 | 0.71 | 0.58 | 4 |",
            "| Collection | Documents | Passages |\n| --- | --- | --- |\n| Handbook | 120 | 4800 |",
        ),
        (
            "zh-report.pdf",
            "| 模式 | 前十召回率 | 前十 nDCG | 延迟毫秒 |\n| --- | --- | --- | --- |\n| BM25 | 0.71 | 0.58 | 4 |",
            "| 集合 | 文档数 | 段落数 |\n| --- | --- | --- |\n| 手册 | 120 | 4800 |",
        ),
    ],
)
def test_real_tables_ruled_and_unruled(parsed, name, ruled, unruled):
    markdown = parsed[name].markdown
    assert ruled in markdown and unruled in markdown


def test_two_column_page_reads_each_column_top_to_bottom(parsed, pdfs):
    for name, first, later in (
        (
            "en-columns.pdf",
            "Keyword search ranks passages by the words they share with the question.",
            "## When to prefer one route",
        ),
        ("zh-columns.pdf", "关键词检索按照段落与问题共有的词语来排序。", "## 何时偏向某一路"),
    ):
        markdown = parsed[name].markdown
        assert first in markdown and markdown.index(first) < markdown.index(later)
        assert not any(line.startswith("|") for line in _lines(markdown))
    assert "| " in convert(pdfs["en-columns.pdf"], "c.pdf", "pdf").markdown  # the old route made a table of it


@pytest.mark.parametrize(
    ("name", "furniture"),
    [("en-report.pdf", ["internal", "Page 1", "Page 2"]), ("zh-report.pdf", ["内部资料", "第 1 页"])],
)
def test_running_headers_footers_and_page_numbers_are_dropped(parsed, name, furniture):
    for text in furniture:
        assert text not in parsed[name].markdown


def test_pages_start_where_their_text_starts(parsed):
    for name, second_page in (("en-report.pdf", "## Measured results"), ("zh-report.pdf", "## 测量结果")):
        document = parsed[name]
        assert document.page_starts == (0, document.markdown.index(second_page))


def test_a_hyphenated_line_end_is_mended(parsed, pdfs):
    assert "the extracted information together with the page" in parsed["en-report.pdf"].markdown
    assert "infor-\nmation" in convert(pdfs["en-report.pdf"], "r.pdf", "pdf").markdown


def _chinese_lines_pdf(lines: list[str]) -> bytes:
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    pdfmetrics.registerFont(TTFont("WQY", CHINESE_FONT_FILE, subfontIndex=0))
    buffer = io.BytesIO()
    page = canvas.Canvas(buffer, invariant=1)
    page.setFont("WQY", 12)
    for row, line in enumerate(lines):
        page.drawString(72, 720 - 16 * row, line)
    page.save()
    return buffer.getvalue()


def test_a_chinese_word_broken_across_lines_is_joined():
    data = _chinese_lines_pdf(["检索系统先解析文档，再用排序算", "法找出最相关的段落。"])
    markdown = parse_bytes(data, "joined.pdf").markdown
    assert markdown == "检索系统先解析文档，再用排序算法找出最相关的段落。\n"
    assert "算\n法" in convert(data, "joined.pdf", "pdf").markdown


def test_the_markdown_headings_chunker_gives_a_section_per_heading(parsed):
    for name in ("en-report.pdf", "zh-report.pdf"):
        markdown = parsed[name].markdown
        chunks = chunk_markdown(markdown, ChunkingConfig(strategy="markdown", size=2000, overlap=0))
        headings = [line for line in _lines(markdown) if re.match(r"#{1,3} ", line)]
        assert len(headings) == 7
        # every heading but the title (directly over text) starts a chunk whose path ends with it
        starts = {chunk.text.split("\n")[0] for chunk in chunks}
        assert set(headings) <= starts
        assert all(chunk.heading_path for chunk in chunks)
        assert any(len(chunk.heading_path) == 3 for chunk in chunks)
