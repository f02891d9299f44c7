# ruff: noqa: E501 (the documents are prose, a paragraph a line, as Markdown writes them)
"""A PDF test set, written with reportlab from Markdown it keeps as the truth.

Each ``CorpusDocument`` is Markdown with a few layout directives in HTML comments, which the truth
leaves out:

* ``<!-- page -->`` starts a new page; ``<!-- columns 2 -->`` starts a new page set in two
  columns (``<!-- columns 1 -->`` goes back to one);
* ``<!-- unruled -->`` before a table draws it without rules (columns aligned, no lines);
* ``{-}`` inside a word ends the line there with a hyphen (``infor{-}mation`` prints
  ``infor-`` / ``mation``; the truth has ``information``).

Every page gets a running header (with a rule under it) and a footer with its page number.
Paragraphs are justified; Chinese is set in WQY MicroHei (``fonts-wqy-microhei``, which the CI
installs), English in Helvetica. Bullets are drawn in an embedded font whose ToUnicode map is
removed, so a text layer reads them as ``(cid:N)``, as PDFs made by word processors often do.

``python -m tests.workbench.ingestion.pdf_corpus DIR`` writes every PDF and its truth to DIR.
"""

from __future__ import annotations

import io
import os
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

CHINESE_FONT_FILE = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
_DIRECTIVE = re.compile(r"^<!--\s*(.+?)\s*-->$")
_HYPHEN_POINT = "{-}"


@dataclass(frozen=True)
class CorpusDocument:
    name: str  # file name, ending in .pdf
    language: str  # "en" or "zh"
    source: str  # Markdown with directives
    header: str
    footer: str  # with {page}
    small_pages: bool = False  # A5 instead of A4 (short columns, so the text fills both)

    @property
    def truth(self) -> str:
        """The Markdown a faithful extractor writes: directives and hyphen points removed."""
        lines = [line for line in self.source.strip().split("\n") if not _DIRECTIVE.match(line.strip())]
        text = "\n".join(lines).replace(_HYPHEN_POINT, "")
        return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


EN_REPORT = """# Retrieval Quality Report

This report describes how the retrieval service answers questions over a collection of technical documents. Each document is parsed once, split into passages and indexed twice, by its words and by its meaning, so that a question finds its evidence either way.

The measurements below were taken on a fixed set of questions with known answers. They are meant to be repeated after every change to parsing, chunking or ranking, so that a regression is caught before users see it.

## Parsing documents

Parsing turns every uploaded file into one canonical text. The catalog keeps the extracted infor{-}mation together with the page on which each passage starts, so a citation can name its page.

### What a parser must keep

- Headings, which tell every passage the section it belongs to.
- Lists, whose items are separate statements and must not run together.
- Tables, with their rows and columns intact.
- Page numbers, for citations that a reader can check.

### Steps of an ingest

1. Hash the file and skip it when the same bytes were ingested before.
2. Parse it in a worker process with a time and memory limit.
3. Split the text into passages and embed the passages that are new.
4. Commit the passages and rebuild the indexes.

<!-- page -->

## Measured results

The table below gives the scores of three retrieval modes on the question set. Higher is better for every column.

| Mode | Recall at 10 | nDCG at 10 | Latency ms |
| --- | --- | --- | --- |
| BM25 | 0.71 | 0.58 | 4 |
| Dense | 0.76 | 0.61 | 11 |
| Hybrid | 0.83 | 0.67 | 14 |

Hybrid retrieval combines both routes with reciprocal rank fusion. It costs a few milliseconds more than either route alone and finds more of the evidence.

### Collections measured

<!-- unruled -->
| Collection | Documents | Passages |
| --- | --- | --- |
| Handbook | 120 | 4800 |
| Papers | 950 | 31000 |
| Tickets | 4000 | 52000 |

### Known limits

Scanned pages have no text layer and go through optical character recognition, which is slower and less exact than reading the text layer of a digital document. Documents in languages the embedding model was not trained on are ranked by their words alone.
"""

EN_COLUMNS = """# Notes on Hybrid Search

These notes compare the two routes a hybrid search engine runs for every question, and how their results are merged into one list.

<!-- columns 2 -->
## Two routes

Keyword search ranks passages by the words they share with the question. It is exact, fast and easy to explain, and it fails when the question uses other words than the passage that answers it.

Dense search embeds the question and every passage into the same vector space and ranks passages by their distance to the question. It finds paraphrases, and it can miss a rare name or a product code that keyword search would match at once.

## Fusion of the two routes

Reciprocal rank fusion gives every passage the sum over both routes of one divided by a constant plus its rank. A passage near the top of either list rises, and a passage found by both rises further.

The constant damps the influence of the very first ranks. A common choice is sixty, and the result changes little between thirty and a hundred.

## When to prefer one route

Questions that quote a code, a name or a number favour keyword search. Questions asked in the words of a newcomer favour dense search. A collection with both kinds of questions gains most from fusion, which is why it is the default.

Each route can be evaluated alone on the same questions, which shows where the fused result gets its gains and which route a failed question needed.
"""

ZH_REPORT = """# 检索质量报告

本报告介绍检索服务如何在一批技术文档上回答问题。每个文档只解析一次，切分成段落后建立两种索引：按词语的 BM25 索引和按语义的向量索引。这样，无论问题的措辞是否与原文一致，都有机会找到证据。RAG（Retrieval-Augmented Generation）系统的回答质量首先取决于检索到的段落是否可靠。

下面的数据是在一组已知答案的问题上测得的。每次修改解析、分块或排序之后，都应该重新测量一次，以便在用户发现之前找出退步。

## 文档解析

解析阶段把每个上传的文件转换成统一的文本。目录中保存提取出的文字以及每个段落所在的页码，因此引用时可以指出出处在第几页。扫描件没有文字层，需要先经过光学字符识别，再进入后续的分块和索引流程。

### 解析器必须保留的内容

- 标题，它告诉每个段落属于哪一节。
- 列表，其中每一项都是独立的陈述。
- 表格，行和列都要完整保留。
- 页码，方便读者核对引用。

### 一次导入的步骤

1. 计算文件哈希，内容相同则跳过。
2. 在受时间和内存限制的进程中解析文件。
3. 把文本切分成段落，只为新的段落计算向量。
4. 提交段落并重建索引。

<!-- page -->

## 测量结果

下表给出三种检索模式在问题集上的得分，每一列都是越高越好。

| 模式 | 前十召回率 | 前十 nDCG | 延迟毫秒 |
| --- | --- | --- | --- |
| BM25 | 0.71 | 0.58 | 4 |
| 向量 | 0.76 | 0.61 | 11 |
| 混合 | 0.83 | 0.67 | 14 |

混合检索用倒数排名融合把两路结果合在一起。它比单独任何一路多花几毫秒，但能找到更多证据。中文文档没有空格，分词器会把连续的汉字切成词语，因此一行末尾被拆开的词语必须在解析时重新连接起来，否则检索算法会把它当成两个不相关的字。

### 测量的集合

<!-- unruled -->
| 集合 | 文档数 | 段落数 |
| --- | --- | --- |
| 手册 | 120 | 4800 |
| 论文 | 950 | 31000 |
| 工单 | 4000 | 52000 |

检索增强生成 RAG（Retrieval-Augmented Generation）把 BM25 检索、向量检索 Dense Retrieval 与大语言模型 LLM 结合在一起。系统先用 Hybrid Search 找出候选段落，再用 Cross-Encoder 重新排序，最后把 Top-K 段落放进 Prompt 里生成回答。评估时常用 nDCG、Recall 和 MRR 三个指标，并在 SciFact 与 CMRC 两个数据集上比较 BM25、Dense 和 Hybrid 三种模式。

### 已知的局限

扫描页没有文字层，要经过光学字符识别，比直接读取电子文档的文字层更慢，也更不准确。嵌入模型没有训练过的语言，只能依靠词语匹配来排序。
"""

ZH_COLUMNS = """# 混合检索笔记

这份笔记比较混合检索为每个问题运行的两路检索，以及两路结果如何合并成一个列表。

<!-- columns 2 -->
## 两路检索

关键词检索按照段落与问题共有的词语来排序。它精确、快速、容易解释，但当问题的措辞与答案所在段落不同时，它就找不到答案。

向量检索把问题和每个段落都映射到同一个向量空间，再按距离排序。它能找到换了说法的段落，却可能漏掉一个罕见的名字或产品编号，而关键词检索一下子就能匹配到。

## 两路结果的融合

倒数排名融合给每个段落计算两路排名倒数之和，每一项是一除以常数加上排名。在任意一路排得靠前的段落都会上升，两路都找到的段落上升得更多。

这个常数削弱了最前面几个名次的影响。常见的取值是六十，在三十到一百之间结果变化不大。

## 何时偏向某一路

引用编号、名字或数字的问题更适合关键词检索。用新手的话提出的问题更适合向量检索。两类问题都有的集合从融合中获益最多，所以融合是默认设置。

每一路都可以在同一组问题上单独评估，这样可以看出融合的收益来自哪里，以及失败的问题需要哪一路。
"""

DOCUMENTS = (
    CorpusDocument("en-report.pdf", "en", EN_REPORT, "Retrieval Quality Report - internal", "Page {page}"),
    CorpusDocument("en-columns.pdf", "en", EN_COLUMNS, "Search notes - draft", "Page {page}", small_pages=True),
    CorpusDocument("zh-report.pdf", "zh", ZH_REPORT, "检索质量报告 内部资料", "第 {page} 页"),
    CorpusDocument("zh-columns.pdf", "zh", ZH_COLUMNS, "混合检索笔记 草稿", "第 {page} 页", small_pages=True),
)


# -- rendering ----------------------------------------------------------------------------------


@cache
def _fonts() -> None:
    import reportlab
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    pdfmetrics.registerFont(TTFont("WQY", CHINESE_FONT_FILE, subfontIndex=0))
    bundled = Path(reportlab.__file__).parent / "fonts"
    pdfmetrics.registerFont(TTFont("BulletFont", str(bundled / "Vera.ttf")))


def _styles(language: str) -> dict:
    from reportlab.lib.enums import TA_JUSTIFY
    from reportlab.lib.styles import ParagraphStyle

    _fonts()
    chinese = language == "zh"
    body_font = "WQY" if chinese else "Helvetica"
    bold_font = "WQY" if chinese else "Helvetica-Bold"
    wrap = {"wordWrap": "CJK"} if chinese else {}
    body = ParagraphStyle("body", fontName=body_font, fontSize=10, leading=14, alignment=TA_JUSTIFY, **wrap)
    return {
        "body": body,
        "cell": ParagraphStyle("cell", parent=body, alignment=0),
        "head": ParagraphStyle("head", parent=body, fontName=bold_font, alignment=0),
        1: ParagraphStyle("h1", parent=body, fontName=bold_font, fontSize=20, leading=26, spaceAfter=10, alignment=0),
        2: ParagraphStyle("h2", parent=body, fontName=bold_font, fontSize=15, leading=20, spaceBefore=8, alignment=0),
        3: ParagraphStyle("h3", parent=body, fontName=bold_font, fontSize=12.5, leading=17, spaceBefore=6, alignment=0),
    }


def _markup(text: str) -> str:
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return escaped.replace(_HYPHEN_POINT, "-<br/>")


def _story(document: CorpusDocument) -> list:
    from reportlab.lib import colors
    from reportlab.platypus import ListFlowable, ListItem, NextPageTemplate, PageBreak, Paragraph, Spacer, Table

    styles = _styles(document.language)
    story: list = []
    lines = document.source.strip().split("\n")
    unruled = False
    index = 0
    while index < len(lines):
        line = lines[index].strip()
        directive = _DIRECTIVE.match(line)
        if directive:
            command = directive.group(1)
            if command == "page":
                story.append(PageBreak())
            elif command.startswith("columns"):
                story.append(NextPageTemplate("two" if command.endswith("2") else "one"))
                if story[:-1]:
                    story.append(PageBreak())
            elif command == "unruled":
                unruled = True
            index += 1
            continue
        if not line:
            index += 1
            continue
        block = [line]
        while index + 1 < len(lines) and lines[index + 1].strip() and not line.startswith("#"):
            if lines[index + 1].startswith("#") or _DIRECTIVE.match(lines[index + 1].strip()):
                break
            index += 1
            block.append(lines[index].strip())
        index += 1
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            story.append(Paragraph(_markup(line[level:].strip()), styles[level]))
        elif line.startswith("|"):
            rows = [
                [cell.strip() for cell in row.strip("|").split("|")] for row in block if not row.startswith("| ---")
            ]
            cells = [
                [Paragraph(_markup(c), styles["head" if r == 0 else "cell"]) for c in row] for r, row in enumerate(rows)
            ]
            table = Table(cells, hAlign="LEFT")
            if not unruled:
                table.setStyle([("GRID", (0, 0), (-1, -1), 0.6, colors.black)])
            story += [table, Spacer(1, 8)]
            unruled = False
        elif line.startswith("- ") or re.match(r"\d+\. ", line):
            numbered = not line.startswith("- ")
            items = [ListItem(Paragraph(_markup(item.split(" ", 1)[1]), styles["body"])) for item in block]
            options = (
                {"bulletType": "1", "bulletFormat": "%s.", "bulletFontName": styles["body"].fontName}
                if numbered
                else {"bulletType": "bullet", "start": "\u2022", "bulletFontName": "BulletFont"}
            )
            story += [ListFlowable(items, leftIndent=18, bulletFontSize=10, **options), Spacer(1, 6)]
        else:
            story += [Paragraph(_markup(" ".join(block)), styles["body"]), Spacer(1, 6)]
    return story


def build_pdf(document: CorpusDocument) -> bytes:
    """The document as PDF bytes (reproducible: no dates or random ids)."""
    from reportlab.lib.pagesizes import A4, A5
    from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate

    styles = _styles(document.language)
    width, height = A5 if document.small_pages else A4
    margin = 48 if document.small_pages else 64

    def furniture(canvas, template) -> None:
        canvas.saveState()
        canvas.setFont(styles["body"].fontName, 8.5)
        canvas.drawString(margin, height - margin + 24, document.header)
        canvas.setLineWidth(0.4)
        canvas.line(margin, height - margin + 20, width - margin, height - margin + 20)
        canvas.drawCentredString(width / 2, margin - 26, document.footer.format(page=template.page))
        canvas.restoreState()

    body_height = height - 2 * margin
    gutter = 20
    column = (width - 2 * margin - gutter) / 2
    one = Frame(margin, margin, width - 2 * margin, body_height, id="one")
    left = Frame(margin, margin, column, body_height, id="left")
    right = Frame(margin + column + gutter, margin, column, body_height, id="right")
    buffer = io.BytesIO()
    template = BaseDocTemplate(buffer, pagesize=(width, height), invariant=True, title=document.name)
    template.addPageTemplates(
        [
            PageTemplate("one", [one], onPage=furniture),
            PageTemplate("two", [left, right], onPage=furniture),
        ]
    )
    template.build(_story(document))
    return _without_bullet_unicode(buffer.getvalue())


def _without_bullet_unicode(data: bytes) -> bytes:
    """Blank out the bullet font's ToUnicode reference (same length: the xref stays valid)."""
    font = re.search(rb"/BaseFont /[A-Z]{6}\+BitstreamVeraSans-Roman.*?/ToUnicode \d+ 0 R", data, re.S)
    if font is None:
        return data
    reference = re.search(rb"/ToUnicode \d+ 0 R", font.group(0))
    assert reference is not None
    start = font.start() + reference.start()
    return data[:start] + b" " * len(reference.group(0)) + data[start + len(reference.group(0)) :]


def write_corpus(folder: Path) -> dict[str, tuple[Path, CorpusDocument]]:
    """Every document's PDF in ``folder``, with its truth beside it (``NAME.md``)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = {}
    for document in DOCUMENTS:
        path = folder / document.name
        path.write_bytes(build_pdf(document))
        path.with_suffix(".md").write_text(document.truth, encoding="utf-8")
        written[document.name] = (path, document)
    return written


def chinese_font_available() -> bool:
    return os.path.exists(CHINESE_FONT_FILE)


if __name__ == "__main__":
    for name, (path, _document) in write_corpus(Path(sys.argv[1] if len(sys.argv) > 1 else "pdf-corpus")).items():
        print(name, path)
