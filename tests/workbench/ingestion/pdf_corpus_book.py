# ruff: noqa: E501 (the documents are prose, a paragraph a line, as Markdown writes them)
"""A last held-out PDF set, in book style, printed by Chromium from Markdown kept as the truth.

Written after every fix the Chromium and LibreOffice sets led to, and measured once, to see what
those fixes do on layouts none of the sets had: paragraphs told apart by a first-line indent
and no space between them (the usual Chinese convention, and common in English books),
ragged-right English, heading sizes close to the body's, dashes as bullets (CSS ``::marker``),
a borderless table with shaded rows, narrow margins and a 12-point Chinese body.

``python -m tests.workbench.ingestion.pdf_corpus_book DIR`` writes every PDF and its truth.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.workbench.ingestion.chromium_print import PrintSettings
from tests.workbench.ingestion.pdf_corpus_chromium import HeldOutDocument, available, write_corpus

__all__ = ["DOCUMENTS", "available", "write_book_corpus"]

EN_BOOK = """# Notes on Query Logs

Query logs are the most honest description of what users want from a search system. They record the words people actually typed, in the order they typed them, including the misspellings, the abbreviations and the questions that no document in the collection can answer.

Reading a week of logs before changing anything is a habit worth keeping. It shows which questions are frequent enough to deserve a golden answer, and which failures are caused by missing documents rather than by ranking.

## Cleaning the log

Raw logs contain noise that should not reach an evaluation set. Automated traffic, repeated submissions of the same query within a few seconds and queries made only of punctuation are removed first.

- Queries from monitoring checks and crawlers.
- Exact repeats by the same session within ten seconds.
- Queries with no letters or digits at all.

### Grouping similar queries

Queries that differ only in case, spacing or word order are grouped, and the most frequent spelling stands for the group. Each group keeps its count, so that frequent needs weigh more in the evaluation.

<!-- page -->

## What the counts show

<!-- unruled -->
| Kind of query | Share | Answered |
| --- | --- | --- |
| Product names | 41 % | 93 % |
| How-to questions | 27 % | 71 % |
| Error messages | 18 % | 64 % |
| Other | 14 % | 38 % |

Error messages are answered least often, because users paste them with file paths and numbers that no document contains. Stripping those parts before searching raised the share of answered error queries noticeably in a small trial.
"""

ZH_BOOK = """# 查询日志札记

查询日志是对用户需求最真实的记录。它保存了用户实际输入的词语和顺序，其中有错别字，有缩写，也有集合中没有任何文档能够回答的问题。在修改检索系统之前，先读一周的日志，是一个值得保持的习惯。

日志能说明哪些问题出现得足够频繁，值得准备标准答案；也能说明哪些失败是因为缺少文档，而不是因为排序不好。把这两类失败分开，才能把力气用在正确的地方。

## 清理日志

原始日志中有一些噪声，不应当进入评估集。首先要去掉自动化流量、同一会话在几秒之内重复提交的查询，以及只由标点符号组成的查询。

- 来自监控检查和爬虫的查询。
- 同一会话十秒之内完全相同的重复查询。
- 不含任何字母或数字的查询。

### 合并相似的查询

只在大小写、空格或词序上不同的查询会被合并，并用出现次数最多的写法代表整组。每组保留自己的次数，这样常见的需求在评估中的权重更大。

<!-- page -->

## 统计结果

<!-- unruled -->
| 查询类型 | 占比 | 已回答 |
| --- | --- | --- |
| 产品名称 | 41 % | 93 % |
| 操作问题 | 27 % | 71 % |
| 错误信息 | 18 % | 64 % |
| 其他 | 14 % | 38 % |

错误信息类查询的回答率最低，因为用户粘贴的内容里常常带有文件路径和编号，而这些内容在任何文档中都不存在。在一次小规模试验中，先去掉这些部分再检索，明显提高了错误信息类查询的回答率。
"""

_BOOK_CSS = (
    " p { margin: 0; text-indent: 2em; }"
    " ul { margin: 0.3em 0; } li::marker { content: '\\2013  '; }"
    " table.unruled tbody tr:nth-child(odd) { background: #e8e8e8; }"
)

DOCUMENTS = (
    HeldOutDocument(
        "en-book.pdf",
        "en",
        EN_BOOK,
        PrintSettings(
            "A4",
            "14mm",
            "body { font-family: 'DejaVu Serif'; font-size: 10pt; line-height: 1.4; }"
            " h1 { font-size: 15pt; } h2 { font-size: 12.5pt; } h3 { font-size: 11.2pt; }"
            + _BOOK_CSS
            + " p { text-align: left; hyphens: manual; }",
            header="Query logs",
            footer="{page}",
            font="DejaVu Serif",
        ),
    ),
    HeldOutDocument(
        "zh-book.pdf",
        "zh",
        ZH_BOOK,
        PrintSettings(
            "Letter",
            "18mm",
            "body { font-family: 'WenQuanYi Micro Hei'; font-size: 12pt; line-height: 1.5; }"
            " h1 { font-size: 17pt; } h2 { font-size: 14.5pt; } h3 { font-size: 13pt; }" + _BOOK_CSS,
            header="查询日志札记",
            footer="{page}",
            font="WenQuanYi Micro Hei",
        ),
    ),
)


def write_book_corpus(folder: Path) -> dict[str, tuple[Path, HeldOutDocument]]:
    return write_corpus(folder, DOCUMENTS)


if __name__ == "__main__":
    for name, (path, _document) in write_book_corpus(
        Path(sys.argv[1] if len(sys.argv) > 1 else "pdf-corpus-book")
    ).items():
        print(name, path)
