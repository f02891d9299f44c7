"""The layout causes issue 35 found in users' PDFs, one by one, in English and Chinese.

The PDFs are the users' set printed by reportlab as report scripts print (``pdf_corpus_mixed``,
``reportlab_print``): Chinese broken only at spaces, so lines end in Latin words and justified
lines stretch their few spaces; numbered headings larger, bold or blue; sub-headings half a point
above the body right under a full line; cells that wrap, and centred cells wider than their
column; numbers without a full stop. Each expectation is a line of the Markdown the PDF was
printed from, and each case quoted in the issue is here as it was quoted.
"""

from __future__ import annotations

import pytest


def _truth_paragraphs(pdf, starting: str) -> list[str]:
    return [line for line in pdf.document.truth.split("\n") if line.startswith(starting)]


@pytest.mark.parametrize(
    ("name", "starts", "quoted"),
    [
        (
            "zh-guide.pdf",
            ("大语言模型（Large Language Model", "第一阶段的召回", "生产系统必须具备"),
            (
                "代表性模型包括 GPT-4、Claude",
                "（Multi-Head Self-Attention）",
                "LLM 上下文利用率下降",
                "Cross-Encoder 将查询和文档拼接",
            ),
        ),
        ("en-spec.pdf", ("Documents arrive as PDF", "A modular RAG system"), ("lives at https://",)),
    ],
)
def test_a_paragraph_goes_on_across_a_line_that_ends_in_a_latin_word(mixed_set, name, starts, quoted):
    pdf = mixed_set[name]
    for start in starts:
        (paragraph,) = _truth_paragraphs(pdf, start)
        assert paragraph in pdf.lines  # one line: the whole paragraph, nothing more
    markdown = pdf.parsed.markdown
    assert all(words in markdown for words in quoted)


@pytest.mark.parametrize(
    ("name", "start", "quoted"),
    [
        ("zh-guide.pdf", "评估分为检索评估", "检索评估使用 nDCG@10、Recall@10 和 MRR 等指标"),
        ("zh-guide.pdf", "生产系统必须具备", "结构化日志（JSON Lines 格式）、全链路追踪"),
        (
            "en-spec.pdf",
            "Each service reads its settings",
            "deployment/helm/advanced-rag/values-production.yaml for the",
        ),
    ],
)
def test_justified_text_is_never_a_table(mixed_set, name, start, quoted):
    """Lines broken only at spaces and justified stretch their few spaces wide: no table."""
    pdf = mixed_set[name]
    (paragraph,) = _truth_paragraphs(pdf, start)
    assert paragraph in pdf.lines and quoted in paragraph
    cells = {cell.strip() for line in pdf.lines if line.startswith("|") for cell in line.strip("|").split("|")}
    assert not any(cell in paragraph for cell in cells if len(cell) > 3)  # no piece of it in a table
