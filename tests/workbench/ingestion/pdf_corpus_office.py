# ruff: noqa: E501 (the documents are prose, a paragraph a line, as Markdown writes them)
"""A second held-out PDF set: DOCX written with python-docx from Markdown kept as the truth, then
converted to PDF by LibreOffice (``soffice --headless --convert-to pdf``).

This set was written after the extractor's fixes for the Chromium set, and measured without
changing the extractor for it: it is the check that those fixes did not just fit Chromium.
LibreOffice is not in CI; the bench prints this set only where ``soffice`` is installed
(``apt-get install -y libreoffice-writer-nogui``). No test depends on it.

Word's defaults do the styling: Heading 1-3, List Bullet (nested: List Bullet 2), List Number,
Table Grid for ruled tables and no style for unruled ones, justified body text, a two-column
section, and a running header and a footer with a PAGE field. The directives in the sources are
those of ``chromium_print`` (``page``, ``columns``, ``unruled``; ``bullets`` is ignored).

``python -m tests.workbench.ingestion.pdf_corpus_office DIR`` writes every PDF and its truth.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.workbench.ingestion.chromium_print import DIRECTIVE, markdown_blocks, soft_hyphenated

if TYPE_CHECKING:
    from tests.workbench.ingestion.pdf_corpus_mixed import MixedDocument

SOFFICE = "soffice"
CONVERT_TIMEOUT_S = 180
_ITEM = re.compile(r"^( *)(?:[-*]|\d{1,3}[.)]) (.*)$")


@dataclass(frozen=True)
class OfficeDocument:
    name: str
    language: str
    source: str
    paper: str  # "A4" or "Letter"
    header: str
    footer: str  # text before the page number

    @property
    def truth(self) -> str:
        lines = [line for line in self.source.strip().split("\n") if not DIRECTIVE.match(line.strip())]
        return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"


EN_HANDBOOK = """# Chunking Handbook

Chunking decides which stretch of text a retriever can return. A chunk that is too long dilutes the passage that answers a question with unrelated sentences, and a chunk that is too short cuts an answer in half, so that neither half matches the question well enough to be retrieved.

## Strategies

Three strategies cover most collections. Each is configured per collection and recorded with every chunk, so that a later evaluation knows exactly how its passages were produced.

- Fixed windows of tokens with an overlap between neighbours.
- Sentences packed into a window until the next sentence would overflow it.
  - Sentence boundaries come from punctuation and line breaks.
  - A sentence longer than the window is split at token boundaries.
- Sections under a heading, split further only when they are long.

### Choosing a size

1. Start from the size the embedding model was trained on.
2. Measure recall on the golden questions at that size.
3. Halve and double the size and measure again.

| Strategy | Keeps together | Typical size |
| --- | --- | --- |
| Fixed window | Consecutive tokens, regardless of their meaning or the boundaries that the author chose | 256 tokens |
| Sentences | Whole sentences | 300 tokens |
| Sections | A heading and its text | 500 tokens |

<!-- page -->

## Overlap

<!-- columns 2 -->
Overlap repeats the end of one chunk at the start of the next. It protects answers that straddle a boundary, at the cost of indexing some text twice and of returning near-duplicate passages for the same question.

An overlap of an eighth of the window is a reasonable default. Larger overlaps rarely improve recall further, while they make the index bigger and the ranked list more repetitive for the reader.

Sections rarely need overlap at all, because their boundaries are the ones the author chose. A heading starts a new thought, and the text before it seldom completes a sentence that begins after it.

When a collection mixes short notes and long manuals, the notes usually fit in a single chunk each, and only the manuals are split, so the overlap setting matters for them alone.
<!-- columns 1 -->

### Measured sizes

<!-- unruled -->
| Collection | Chunks | Mean tokens |
| --- | --- | --- |
| Manuals | 18200 | 412 |
| Notes | 2300 | 96 |
| Tickets | 41000 | 188 |

Recall changed by less than two points between sizes of three hundred and six hundred tokens on these collections, which is within the interval of the measurement.
"""

ZH_HANDBOOK = """# 分块手册

分块决定了检索器能够返回哪一段文字。块太长，会让回答问题的段落夹杂许多无关的句子；块太短，又会把答案切成两半，使得任何一半都不足以与问题匹配而被检索到。

## 分块策略

三种策略可以覆盖大多数集合。每个集合单独配置策略，并把策略记录在每个块上，这样以后的评估就能确切知道段落是如何产生的。

- 固定长度的词元窗口，相邻窗口之间有重叠。
- 把句子装进窗口，直到下一句会超出窗口为止。
  - 句子边界来自标点符号和换行。
  - 比窗口还长的句子按词元边界切开。
- 按标题划分的章节，只有过长时才继续切分。

### 选择块的大小

1. 从嵌入模型训练时使用的长度开始。
2. 在黄金问题集上测量该长度的召回率。
3. 把长度减半和加倍，再分别测量。

| 策略 | 保持完整的内容 | 常见长度 |
| --- | --- | --- |
| 固定窗口 | 连续的词元，不考虑它们的含义，也不考虑作者划定的边界 | 256 |
| 句子 | 完整的句子 | 300 |
| 章节 | 标题及其正文 | 500 |

<!-- page -->

## 重叠

<!-- columns 2 -->
重叠是把前一个块的结尾在下一个块的开头重复一次。它可以保护跨越边界的答案，代价是部分文字被索引两次，而且同一个问题可能返回几乎重复的段落。

重叠取窗口的八分之一是一个合理的默认值。更大的重叠很少能进一步提高召回率，却会让索引变大，也会让排序列表对读者来说更加重复。

章节几乎不需要重叠，因为章节的边界是作者自己划定的。一个标题开启一个新的话题，标题之前的文字很少与标题之后的句子相连。

当集合中既有短笔记又有长手册时，笔记通常各自成为一个块，只有手册会被切分，所以重叠设置只对手册有影响。
<!-- columns 1 -->

### 测得的长度

<!-- unruled -->
| 集合 | 块数 | 平均词元数 |
| --- | --- | --- |
| 手册 | 18200 | 412 |
| 笔记 | 2300 | 96 |
| 工单 | 41000 | 188 |

在这些集合上，块长度从三百到六百词元之间变化时，召回率的变化不到两个百分点，在测量误差的范围之内。检索增强生成 RAG（Retrieval-Augmented Generation）系统通常把 Top-K 段落交给大语言模型，所以块的长度也决定了 Prompt 的长度。
"""

DOCUMENTS = (
    OfficeDocument("en-handbook.pdf", "en", EN_HANDBOOK, "Letter", "Chunking handbook, second edition", "Page "),
    OfficeDocument("zh-handbook.pdf", "zh", ZH_HANDBOOK, "A4", "分块手册 第二版", "第 "),
)


def available() -> bool:
    return shutil.which(SOFFICE) is not None and Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc").exists()


def _fonts(run_properties: Any, latin: str, east_asian: str) -> None:
    from docx.oxml.ns import qn

    fonts = run_properties.find(qn("w:rFonts"))
    if fonts is None:
        fonts = run_properties.makeelement(qn("w:rFonts"), {})
        run_properties.insert(0, fonts)
    for attribute, value in (("w:ascii", latin), ("w:hAnsi", latin), ("w:eastAsia", east_asian)):
        fonts.set(qn(attribute), value)


def _columns(section: Any, count: int) -> None:
    from docx.oxml.ns import qn

    properties = section._sectPr
    columns = properties.find(qn("w:cols"))
    if columns is None:
        columns = properties.makeelement(qn("w:cols"), {})
        properties.append(columns)
    columns.set(qn("w:num"), str(count))
    columns.set(qn("w:space"), "425")


def _page_number(paragraph: Any, before: str, language: str) -> None:
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    paragraph.add_run(before)
    paragraph._p.append(parse_xml(f'<w:fldSimple {nsdecls("w")} w:instr="PAGE"><w:r><w:t>1</w:t></w:r></w:fldSimple>'))
    if language == "zh":
        paragraph.add_run(" 页")


def build_docx(document: OfficeDocument, path: Path, images: Mapping[str, bytes] | None = None) -> None:
    """The document as DOCX; ``<!-- screenshot KEY -->`` inserts ``images[KEY]`` (PNG), 460 points wide,
    and the paragraph after it is centred (its caption)."""
    import io

    from docx import Document
    from docx.enum.section import WD_SECTION
    from docx.enum.text import WD_ALIGN_PARAGRAPH
    from docx.shared import Mm, Pt

    docx = Document()
    chinese = document.language == "zh"
    latin = "Liberation Serif" if not chinese else "Liberation Sans"
    east_asian = "WenQuanYi Micro Hei"
    normal = docx.styles["Normal"]
    normal.font.size = Pt(10.5)
    _fonts(normal.element.get_or_add_rPr(), latin, east_asian)
    for level in (1, 2, 3):
        _fonts(docx.styles[f"Heading {level}"].element.get_or_add_rPr(), "Liberation Sans", east_asian)
    section = docx.sections[0]
    section.page_width, section.page_height = (Mm(210), Mm(297)) if document.paper == "A4" else (Mm(215.9), Mm(279.4))
    section.left_margin = section.right_margin = Mm(25 if chinese else 30)
    section.header.paragraphs[0].text = document.header
    footer = section.footer.paragraphs[0]
    footer.alignment = WD_ALIGN_PARAGRAPH.CENTER
    _page_number(footer, document.footer, document.language)

    unruled = caption = False
    for kind, block in markdown_blocks(document.source.strip().split("\n")):
        if kind == "directive":
            words = block[0][4:-3].split()
            if words[0] == "page":
                docx.add_page_break()
            elif words[0] == "screenshot":
                docx.add_paragraph().add_run().add_picture(io.BytesIO((images or {})[words[1]]), width=Pt(460))
                caption = True
            elif words[0] == "columns":
                _columns(docx.add_section(WD_SECTION.CONTINUOUS), int(words[1]))
            elif words[0] == "unruled":
                unruled = True
        elif kind == "heading":
            level = len(block[0]) - len(block[0].lstrip("#"))
            docx.add_heading(block[0][level:].strip(), level)
        elif kind == "table":
            rows = [[cell.strip() for cell in row.strip().strip("|").split("|")] for row in block if "---" not in row]
            table = docx.add_table(rows=len(rows), cols=len(rows[0]))
            if not unruled:
                table.style = docx.styles["Table Grid"]
            for r, row in enumerate(rows):
                for c, text in enumerate(row):
                    run = table.cell(r, c).paragraphs[0].add_run(text)
                    run.bold = r == 0
            unruled = False
            docx.add_paragraph()
        elif kind == "code":
            for line in block:
                run = docx.add_paragraph().add_run(line)
                run.font.name, run.font.size = "Liberation Mono", Pt(9)
        elif kind == "list":
            for line in block:
                match = _ITEM.match(line)
                assert match is not None
                nested = " 2" if match.group(1) else ""
                numbered = line.strip()[0].isdigit()
                docx.add_paragraph(match.group(2), style=("List Number" if numbered else "List Bullet") + nested)
        else:
            text = soft_hyphenated(block[0]) if not chinese else block[0]
            docx.add_paragraph(text).alignment = WD_ALIGN_PARAGRAPH.CENTER if caption else WD_ALIGN_PARAGRAPH.JUSTIFY
            caption = False
    docx.save(str(path))


def write_corpus(folder: Path) -> dict[str, tuple[Path, OfficeDocument]]:
    """Every document's PDF in ``folder`` (one LibreOffice run for all), with its truth beside it."""
    written = convert_documents(DOCUMENTS, folder)
    for path, document in written.values():
        path.with_suffix(".md").write_text(document.truth, encoding="utf-8")
    return written


def convert_documents(
    documents: Sequence[OfficeDocument], folder: Path, images: Mapping[str, bytes] | None = None
) -> dict[str, tuple[Path, OfficeDocument]]:
    """Each document written as DOCX, then converted to ``folder/NAME`` by one LibreOffice run."""
    folder.mkdir(parents=True, exist_ok=True)
    written = {}
    with tempfile.TemporaryDirectory(prefix="office-") as scratch:
        sources = []
        for document in documents:
            source = Path(scratch) / document.name.replace(".pdf", ".docx")
            build_docx(document, source, images)
            sources.append(str(source))
            written[document.name] = (folder / document.name, document)
        profile = Path(scratch) / "profile"
        subprocess.run(
            [SOFFICE, f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to", "pdf"]
            + ["--outdir", str(folder), *sources],
            check=True,
            capture_output=True,
            timeout=CONVERT_TIMEOUT_S,
        )
    return written


def convert_mixed(documents: Sequence[MixedDocument], folder: Path, images: Mapping[str, bytes]) -> None:
    """The users' set (``pdf_corpus_mixed``) as DOCX with Word's heading and list styles, converted
    by LibreOffice into ``folder``."""
    footers = {"en": "Page ", "zh": "第 "}
    office = [
        OfficeDocument(document.name, document.language, document.source, document.paper, document.header,
                       footers[document.language])
        for document in documents
    ]  # fmt: skip
    convert_documents(office, folder, images)


if __name__ == "__main__":
    for name, (path, _document) in write_corpus(
        Path(sys.argv[1] if len(sys.argv) > 1 else "pdf-corpus-office")
    ).items():
        print(name, path)
