"""A folder like the one a new user drops on a first try: 12 real files, English and Chinese.

Issue 48 (item 8) was met with a folder of Chinese and English PDFs, Word files, PowerPoint decks
and pictures; this writes one like it, every file made by the library real documents come from:

* PDFs by reportlab: an English report with a table, a Chinese guide with a table set in the
  machine's WenQuanYi font (embedded, as real Chinese PDFs embed theirs; reportlab's built-in
  STSong-Light when that font is missing), and an English paper with a photo-like picture (a
  large file holding little text: what a size-based estimate gets most wrong);
* Word files by python-docx (headings, paragraphs, a table), in each language;
* PowerPoint decks by python-pptx (title and bullet slides), in each language;
* PNG pictures of text by Pillow (what OCR reads), in each language;
* plain text in each language.

English text is SciFact abstracts (``bench.data``: the shared set, or the demo's 40), Chinese text
the CMRC 2018 paragraphs beside the checkout, else a few sentences kept here. ``scale`` repeats
the text (1 is what the issue's user had: a few pages a file).

    .venv/bin/python -m bench.mixed_folder DIR          # writes the 12 files into DIR
"""

from __future__ import annotations

import io
import json
import random
import sys
from html import escape as html_escape
from pathlib import Path

from bench import data

CHINESE_FONT_FILE = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
CMRC = data.SCIFACT.parent / "cmrc2018" / "corpus.jsonl"

#: Chinese paragraphs for a checkout without the shared datasets
FALLBACK_CHINESE = [
    "检索增强生成先从知识库中找出相关段落，再让大模型据此作答。它把模型的参数记忆和外部文档结合在一起，"
    "当知识经常更新时，改文档比重新训练模型便宜得多。",
    "解析阶段把 PDF、Word 和网页统一转换成 Markdown 文本。扫描件没有可提取的文字层，需要先做光学字符识别。"
    "页码信息要保留下来，引用时才能指出出处在第几页。",
    "分块决定了检索的最小单位，也决定了上下文的完整程度。递归分块优先在段落和句子边界处切分，"
    "相邻分块之间保留一段重叠文字，可以避免信息被切散。",
    "嵌入模型把一段文字映射成一个固定维度的向量。两段文字语义越接近，它们向量的余弦相似度越高。"
    "只读英文的模型会把中文文本排得几乎随机。",
    "混合检索把关键词检索和向量检索的排名融合在一起。倒数排名融合只看名次，不看分数，因此不必先把两种分数归一化。",
    "评估时要为每个问题标出相关的文档或段落，再计算 nDCG、召回率和平均倒数排名，并给出置信区间和问题数量。",
]


def english_paragraphs(count: int) -> list[tuple[str, str]]:
    """(title, text) of ``count`` SciFact abstracts."""
    return [(abstract.title, abstract.text) for abstract in data.abstracts(count, demo=not data.scifact_here())]


def chinese_paragraphs(count: int) -> list[tuple[str, str]]:
    """(title, text) of ``count`` CMRC 2018 paragraphs (all of them when it has fewer: a caller that
    needs more comes round again), or the fallback sentences, repeated."""
    found: list[tuple[str, str]] = []
    if CMRC.exists():
        with CMRC.open(encoding="utf-8") as lines:
            for line in lines:
                row = json.loads(line)
                found.append((row["title"], row["text"]))
                if len(found) == count:
                    break
    if found:
        return found
    return [(f"第{i + 1}节", FALLBACK_CHINESE[i % len(FALLBACK_CHINESE)]) for i in range(count)]


def _pdf_fonts() -> tuple[str, str]:
    """(Latin font, Chinese font) names registered with reportlab."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfbase.ttfonts import TTFont

    if CHINESE_FONT_FILE.exists():
        pdfmetrics.registerFont(TTFont("WQY", str(CHINESE_FONT_FILE), subfontIndex=0))
        return "Helvetica", "WQY"
    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    return "Helvetica", "STSong-Light"


def write_pdf(
    path: Path,
    title: str,
    sections: list[tuple[str, str]],
    chinese: bool,
    table: list[list[str]],
    picture: bool = False,
) -> Path:
    """A reportlab PDF: a title, a heading and paragraph per section, a ruled table after the first."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
    from reportlab.platypus import Image, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    latin, han = _pdf_fonts()
    font = han if chinese else latin
    styles = getSampleStyleSheet()
    wrap = {"wordWrap": "CJK"} if chinese else {}
    body = ParagraphStyle("body", parent=styles["BodyText"], fontName=font, leading=16, **wrap)
    heading = ParagraphStyle("heading", parent=styles["Heading2"], fontName=font)
    top = ParagraphStyle("title", parent=styles["Title"], fontName=font)

    def escape(text: str) -> str:
        return html_escape(text, quote=False)

    # reportlab reads a paragraph as markup: text with "<br>" or "&" in it (CMRC has some) is escaped
    story: list = [Paragraph(escape(title), top)]
    for position, (name, text) in enumerate(sections):
        story += [Paragraph(escape(name), heading), Paragraph(escape(text), body), Spacer(1, 6)]
        if position == 0:
            grid = Table([[Paragraph(cell, body) for cell in row] for row in table])
            grid.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
            story += [grid, Spacer(1, 8)]
        if picture and position == 1:
            story.append(Image(io.BytesIO(_photo_png(900, 600)), width=420, height=280))
    SimpleDocTemplate(str(path), pagesize=A4).build(story)
    return path


def _photo_png(width: int, height: int) -> bytes:
    """A photo-like picture (noise over a gradient): large, and no text in it."""
    from PIL import Image

    rng = random.Random(48)
    picture = Image.new("RGB", (width, height))
    picture.putdata(
        [
            (min(255, x * 255 // width + rng.randrange(60)), rng.randrange(256), min(255, y * 255 // height))
            for y in range(height)
            for x in range(width)
        ]
    )
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return out.getvalue()


def write_docx(path: Path, title: str, sections: list[tuple[str, str]], table: list[list[str]]) -> Path:
    import docx

    document = docx.Document()
    document.add_heading(title, level=1)
    for position, (name, text) in enumerate(sections):
        document.add_heading(name, level=2)
        document.add_paragraph(text)
        if position == 0:
            grid = document.add_table(rows=len(table), cols=len(table[0]))
            for row, cells in zip(grid.rows, table, strict=True):
                for cell, value in zip(row.cells, cells, strict=True):
                    cell.text = value
    document.save(str(path))
    return path


def write_pptx(path: Path, title: str, sections: list[tuple[str, str]]) -> Path:
    import pptx

    deck = pptx.Presentation()
    cover = deck.slides.add_slide(deck.slide_layouts[0])
    cover.shapes.title.text = title
    for name, text in sections:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = name
        frame = slide.placeholders[1].text_frame
        sentences = [s for s in text.replace("。", "。\n").replace(". ", ".\n").split("\n") if s.strip()][:4]
        frame.text = sentences[0] if sentences else text
        for sentence in sentences[1:]:
            frame.add_paragraph().text = sentence
    deck.save(str(path))
    return path


def write_png(path: Path, lines: list[str], chinese: bool) -> Path:
    """A picture of text, large and clean enough for OCR to read."""
    from PIL import Image, ImageDraw, ImageFont

    font = (
        ImageFont.truetype(str(CHINESE_FONT_FILE), 28)
        if CHINESE_FONT_FILE.exists()
        else ImageFont.load_default(size=28)
    )
    picture = Image.new("RGB", (1200, 60 + 44 * len(lines)), "white")
    draw = ImageDraw.Draw(picture)
    for row, line in enumerate(lines):
        draw.text((30, 30 + 44 * row), line, fill="black", font=font)
    picture.save(path)
    return path


def _lines(text: str, width: int) -> list[str]:
    words = text.split() if " " in text else list(text)
    joiner = " " if " " in text else ""
    lines, line = [], ""
    for word in words:
        if line and len(line) + len(word) + len(joiner) > width:
            lines.append(line)
            line = ""
        line = f"{line}{joiner}{word}" if line else word
    return lines + ([line] if line else [])


EN_TABLE = [["Method", "nDCG@10", "Recall@100"], ["BM25", "0.679", "0.913"], ["Dense", "0.645", "0.925"]]
ZH_TABLE = [["方法", "nDCG@10", "召回率@100"], ["关键词检索", "0.983", "0.998"], ["向量检索", "0.912", "0.990"]]


def write_folder(folder: Path, scale: int = 1, only: tuple[str, ...] = ()) -> list[Path]:
    """The 12 files (or those named in ``only``), written into ``folder`` (made if missing); their
    paths, in name order."""
    folder.mkdir(parents=True, exist_ok=True)
    english = english_paragraphs(22 * scale)
    chinese = chinese_paragraphs(22 * scale)

    def take(pool: list[tuple[str, str]], start: int, count: int) -> list[tuple[str, str]]:
        return [pool[(start + i) % len(pool)] for i in range(count * scale)]

    en_notes = "\n\n".join(f"{name}\n\n{text}" for name, text in take(english, 14, 3))
    zh_notes = "\n\n".join(f"{name}\n\n{text}" for name, text in take(chinese, 12, 3))
    readme = "# Project notes\n\n" + "\n\n".join(f"## {name}\n\n{text}" for name, text in take(english, 17, 2))
    readme += "\n\n## 中文说明\n\n" + "\n\n".join(text for _, text in take(chinese, 15, 2)) + "\n"
    writers = {
        "en-report.pdf": lambda path: write_pdf(path, "Retrieval report", take(english, 0, 4), False, EN_TABLE),
        "zh-guide.pdf": lambda path: write_pdf(path, "检索增强生成实践指南", take(chinese, 0, 4), True, ZH_TABLE),
        "en-paper.pdf": lambda path: write_pdf(
            path, "A paper with a figure", take(english, 4, 2), False, EN_TABLE, picture=True
        ),
        "en-handbook.docx": lambda path: write_docx(path, "Team handbook", take(english, 6, 3), EN_TABLE),
        "zh-spec.docx": lambda path: write_docx(path, "开发规范", take(chinese, 4, 3), ZH_TABLE),
        "en-slides.pptx": lambda path: write_pptx(path, "Quarterly review", take(english, 9, 4)),
        "zh-slides.pptx": lambda path: write_pptx(path, "季度回顾", take(chinese, 7, 4)),
        "en-whiteboard.png": lambda path: write_png(path, _lines(english[13][1][:400], 70), False),
        "zh-whiteboard.png": lambda path: write_png(path, _lines(chinese[11][1][:200], 36), True),
        "en-notes.txt": lambda path: _write_text(path, en_notes + "\n"),
        "zh-notes.txt": lambda path: _write_text(path, zh_notes + "\n"),
        "readme.md": lambda path: _write_text(path, readme),
    }
    unknown = set(only) - set(writers)
    if unknown:
        raise ValueError(f"no file {', '.join(sorted(unknown))} in the folder; it has: {', '.join(sorted(writers))}")
    return sorted(writer(folder / name) for name, writer in writers.items() if not only or name in only)


def _write_text(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit("usage: python -m bench.mixed_folder DIR [SCALE]")
    written = write_folder(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    for written_path in written:
        print(f"{written_path.stat().st_size:>10,}  {written_path}")
