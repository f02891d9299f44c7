# ruff: noqa: E501 (the documents are prose, a paragraph a line, as Markdown writes them)
"""A held-out PDF test set: Chromium's print-to-PDF of HTML made from Markdown kept as the truth.

The extractor was developed on the reportlab set (``pdf_corpus``). This set comes from another
producer, with other fonts (Liberation Serif, DejaVu Sans, WQY MicroHei), page sizes (A4 and
Letter), margins and texts, so that its scores say something about PDFs the extractor has not
seen. Its elements: justified paragraphs in English and Chinese (Chinese justified by widening
the gaps between characters), headings at three levels, headings in bold at the body's size,
a document with only two heading levels, bullet lists (disc, circle, square, nested) and
numbered lists (``1.`` and ``1)``), bordered and borderless tables, a cell that wraps, two CSS
columns, running headers and footers with page numbers (Chromium's templates), and long English
words hyphenated at line ends. See ``chromium_print`` for the directives in the sources.

``python -m tests.workbench.ingestion.pdf_corpus_chromium DIR`` writes every PDF and its truth
to DIR. It needs ``/usr/bin/chromium`` and the ``playwright`` package (never ``playwright
install``); the fonts are Debian's fonts-liberation, fonts-dejavu-core and fonts-wqy-microhei.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.workbench.ingestion.chromium_print import DIRECTIVE, PrintSettings, print_pdfs, to_html

CHROMIUM = Path("/usr/bin/chromium")
CHINESE_FONT_FILE = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")


@dataclass(frozen=True)
class HeldOutDocument:
    name: str  # file name, ending in .pdf
    language: str  # "en" or "zh"
    source: str  # Markdown with directives
    settings: PrintSettings

    @property
    def truth(self) -> str:
        """The Markdown a faithful extractor writes: the source without its directives."""
        lines = [line for line in self.source.strip().split("\n") if not DIRECTIVE.match(line.strip())]
        return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"


EN_GUIDE = """# Evaluating a Retrieval Pipeline

A retrieval pipeline is only as trustworthy as the questions it has been evaluated on. This guide explains how a team assembles those questions, judges the passages that come back, and compares two configurations without fooling itself about small differences that are nothing but noise.

The procedure is deliberately conservative. Every number it produces carries an interval, and no configuration is declared better unless the improvement survives resampling of the questions.

## Preparing the questions

Questions come from several places, and each source brings its own bias. Mixing them keeps any single bias from dominating the final comparison between configurations.

### Sources of questions

<!-- bullets circle -->
- Questions written by people who know the documents well.
- Questions generated from passages and then checked by a reviewer.
  - Each checked question keeps the passage it was generated from.
  - Rejected questions are kept apart, together with the reason.
- Questions copied from the support queue, with names removed.

### Judging the passages

1) Read the question and the returned passage together.
2) Decide whether the passage answers it fully, partly or not at all.
3) Record the judgement with the reviewer and the date.

## Reading the scores

Each metric rewards something different, so a report shows several of them side by side. The table lists the ones this guide uses.

| Metric | What it rewards | Range |
| --- | --- | --- |
| Recall at 10 | Finding every relevant passage somewhere among the first ten results, whatever their order | 0 to 1 |
| nDCG at 10 | Relevant passages placed early | 0 to 1 |
| MRR | The rank of the first relevant passage | 0 to 1 |

The settings below were used for every run in this guide unless a section says otherwise.

<!-- unruled -->
| Setting | Default | Allowed range |
| --- | --- | --- |
| Chunk size | 512 tokens | 64 to 4096 |
| Overlap | 64 tokens | 0 to 512 |
| Results kept | 10 | 1 to 100 |
| Fusion constant | 60 | 1 to 1000 |

### Comparing two runs

Two runs are comparable only when they share the question set, the judgements and the collection. Configuration changes should be introduced individually, because simultaneous modifications make attribution impossible, and an improvement that disappears under bootstrap resampling should be treated as indistinguishable from measurement uncertainty.

1. Freeze the question set and its judgements.
2. Change a single setting between the two runs.
3. Report every score together with its interval.
"""

ZH_GUIDE = """# 检索系统评估指南

检索系统是否可信，取决于评估它所用的问题。本指南说明团队如何收集这些问题、如何判断返回的段落，以及如何比较两种配置，而不被噪声造成的微小差异误导。整个流程刻意保守，每一个数字都附带置信区间。

## 准备问题

问题来自不同的渠道，每个渠道都有各自的偏差。把它们混合起来，可以避免某一种偏差主导最终的比较结果。RAG（Retrieval-Augmented Generation）系统的评估尤其需要覆盖各种提问方式，包括使用专业术语的提问和使用日常语言的提问。

### 问题的来源

<!-- bullets square -->
- 熟悉文档的人员亲自编写的问题。
- 从段落自动生成、再经过人工审核的问题。
  - 审核通过的问题保留其来源段落。
  - 被拒绝的问题单独存放，并注明原因。
- 从客服工单中整理出的问题，已删除姓名。

### 判断段落的步骤

1. 把问题和返回的段落放在一起阅读。
2. 判断段落是完全回答、部分回答还是没有回答。
3. 记录判断结果、审核人和日期。

<!-- page -->

## 解读分数

不同的指标奖励不同的行为，所以报告会同时列出几项指标。下表是本指南使用的指标。

| 指标 | 奖励的行为 | 取值范围 |
| --- | --- | --- |
| 前十召回率 | 前十个结果中找到全部相关段落 | 0 到 1 |
| 前十 nDCG | 相关段落排在前面 | 0 到 1 |
| MRR | 第一个相关段落的名次 | 0 到 1 |

除非另有说明，本指南中的每次运行都使用下面的设置。

<!-- unruled -->
| 设置 | 默认值 | 允许范围 |
| --- | --- | --- |
| 分块大小 | 512 | 64 到 4096 |
| 重叠长度 | 64 | 0 到 512 |
| 保留结果数 | 10 | 1 到 100 |
| 融合常数 | 60 | 1 到 1000 |

### 比较两次运行

只有在问题集、判断结果和文档集合都相同时，两次运行才可以比较。每次只改变一个设置，否则无法判断改进来自哪里。如果一项改进在对问题集重新抽样之后消失了，就应当把它看作测量误差，而不是真正的进步。中文文档没有空格，分词器需要把连续的汉字切分成词语，所以行末被拆开的词语必须重新连接。

1) 固定问题集和判断结果。
2) 两次运行之间只改变一个设置。
3) 每个分数都附上置信区间。
"""

EN_MEMO = """# Index Maintenance Memo

This memo records how the search indexes are kept healthy between releases, and what the operators on call should check when a collection starts returning stale or incomplete results to its users.

## Daily checks

Every morning the operator compares the number of passages in the catalog with the number of vectors in each index. A difference means that an ingest was interrupted after the catalog was written and before the index was saved.

The operator also reads the ingest log for files that failed to parse, and sends each failure reason to the owner of the collection so that the file can be exported again.

## Weekly rebuilds

Once a week the keyword index is rebuilt from the catalog, because deletions only mark passages as removed and the index slowly fills with entries that no query can return.

<!-- columns 2 -->
## Storage layout

Each collection lives in its own folder with the catalog, the vector index and the keyword index side by side. Nothing outside that folder is needed to open the collection again, which keeps backups simple and lets an operator move a collection to another machine by copying one folder.

The vector index is written to a temporary file first and renamed into place only when it is complete. A crash during a save therefore leaves the previous index untouched, and the next start finds a consistent pair of catalog and index.

## Restoring a collection

A restore copies the folder back and starts the service. The service compares the catalog with the indexes on start and rebuilds whichever one is behind, so a backup taken during an ingest still opens.

Operators should restore into a new name first and run the saved evaluation questions against it before they replace the collection that users are reading.
<!-- columns 1 -->

<!-- page -->

## Escalation

Problems that the checks above do not explain go to the search team, with the collection name, the time of the last successful ingest and the log lines around the first error.

The search team answers within one working day. When users cannot search at all, the operator also posts a short notice on the status page, saying which collections are affected and when the next update will follow.

## Contacts

| Role | Team | Hours |
| --- | --- | --- |
| Operator on call | Platform | Around the clock |
| Index owner | Search | Working days |
| Collection owner | Each department | Working days |
"""

ZH_NOTES = """# 索引维护说明

本说明记录了在两次发布之间如何保持检索索引的健康状态，以及当某个集合开始返回过期或不完整的结果时，值班人员应当检查哪些内容。

<!-- columns 2 -->
## 日常检查

每天早上，值班人员比较目录中的段落数量与每个索引中的向量数量。如果两者不一致，说明某次导入在写入目录之后、保存索引之前被中断了。值班人员还要阅读导入日志，找出解析失败的文件，并把失败原因发给集合的负责人，以便重新导出文件。

## 每周重建

关键词索引每周根据目录重建一次，因为删除操作只是把段落标记为已删除，索引会逐渐积累任何查询都无法返回的条目。重建在夜间进行，期间旧索引继续提供服务，新索引完成后再替换旧索引。

## 存储结构

每个集合都有自己的文件夹，目录、向量索引和关键词索引放在一起。打开集合不需要这个文件夹以外的任何东西，所以备份很简单，值班人员只要复制一个文件夹，就能把集合搬到另一台机器上。向量索引先写入临时文件，完成后才改名替换，因此保存过程中的崩溃不会破坏原来的索引。
<!-- columns 1 -->

## 恢复集合

恢复时把文件夹复制回来并启动服务。服务启动时会比较目录和索引，并重建落后的那一个，所以在导入过程中做的备份也能正常打开。值班人员应当先用新的名字恢复，并用保存的评估问题检验，然后再替换用户正在使用的集合。检索增强生成 RAG（Retrieval-Augmented Generation）依赖这些索引，所以恢复之后要重新运行 Hybrid Search 的评估，确认 nDCG 和 Recall 没有下降。

<!-- page -->

## 升级处理

上述检查无法解释的问题，交给检索团队处理，并附上集合名称、最近一次成功导入的时间，以及第一条错误前后的日志。检索团队在一个工作日内答复。如果用户完全无法检索，值班人员还要在状态页面上发布简短通知，说明受影响的集合以及下一次更新的时间。

- 集合名称和所在的文件夹。
- 最近一次成功导入的时间。
- 第一条错误前后的日志。
"""

_EN_SERIF = "body { font-family: 'Liberation Serif'; font-size: 11pt; line-height: 1.35; }"
_ZH_BODY = "body { font-family: 'WenQuanYi Micro Hei'; font-size: 10.5pt; line-height: 1.6; }"

DOCUMENTS = (
    HeldOutDocument(
        "en-guide.pdf",
        "en",
        EN_GUIDE,
        PrintSettings(
            "A4",
            "22mm",
            _EN_SERIF
            + " h1 { font-size: 22pt; } h2 { font-size: 15pt; } h3 { font-size: 12.5pt; font-style: italic; }",
            header="Retrieval evaluation guide",
            footer="Page {page} of {pages}",
        ),
    ),
    HeldOutDocument(
        "zh-guide.pdf",
        "zh",
        ZH_GUIDE,
        PrintSettings(
            "Letter",
            "0.8in",
            _ZH_BODY + " h1 { font-size: 20pt; } h2 { font-size: 15pt; } h3 { font-size: 12pt; }",
            header="检索系统评估指南 内部资料",
            footer="第 {page} 页",
            font="WenQuanYi Micro Hei",
        ),
    ),
    HeldOutDocument(
        "en-memo.pdf",
        "en",
        EN_MEMO,
        PrintSettings(
            "Letter",
            "1in",
            "body { font-family: 'DejaVu Sans'; font-size: 9.5pt; line-height: 1.45; }"
            " h1 { font-size: 16pt; } h2 { font-size: 9.5pt; font-weight: bold; margin: 1.1em 0 0.4em 0; }",
            header="Operations memo - search indexes",
            footer="{page}",
            font="DejaVu Sans",
        ),
    ),
    HeldOutDocument(
        "zh-notes.pdf",
        "zh",
        ZH_NOTES,
        PrintSettings(
            "A4",
            "16mm",
            "body { font-family: 'WenQuanYi Micro Hei'; font-size: 11pt; line-height: 1.7; }"
            " h1 { font-size: 18pt; } h2 { font-size: 13.5pt; }",
            header="索引维护说明",
            footer="- {page} -",
            font="WenQuanYi Micro Hei",
        ),
    ),
)


def available() -> bool:
    """Whether this machine can build the set (Chromium, Playwright and the Chinese font)."""
    try:
        import playwright  # noqa: F401
    except ImportError:
        return False
    return CHROMIUM.exists() and CHINESE_FONT_FILE.exists()


def write_corpus(
    folder: Path, documents: tuple[HeldOutDocument, ...] = DOCUMENTS
) -> dict[str, tuple[Path, HeldOutDocument]]:
    """Every document's PDF in ``folder`` (one Chromium for all), with its truth beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    jobs = []
    written = {}
    for document in documents:
        path = folder / document.name
        title = document.truth.split("\n", 1)[0].lstrip("# ")
        jobs.append((to_html(document.source, document.language, document.settings, title), document.settings, path))
        path.with_suffix(".md").write_text(document.truth, encoding="utf-8")
        written[document.name] = (path, document)
    print_pdfs(jobs)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "pdf-corpus-chromium")
    for name, (path, _document) in write_corpus(target).items():
        print(name, path, os.path.getsize(path), "bytes")
