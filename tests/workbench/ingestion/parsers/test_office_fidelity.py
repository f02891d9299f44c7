"""DOCX and PPTX as their authors wrote them (issue 48): code blocks keep their lines, pictures
become their text (OCR) or a named placeholder, never base64, and links come from relationships,
never from field codes that carry the author's local paths.

The files are made here with python-docx and python-pptx; the pictures are drawn with Pillow
(``tests.workbench.ingestion.pictures``).
"""

from __future__ import annotations

import io

import pytest

from tests.workbench.ingestion.pictures import TABLE_ZH, photo_like, table_screenshot
from tests.workbench.ingestion.test_images import needs_ocr
from workbench.config import IngestConfig
from workbench.ingestion.parsers import parse_bytes
from workbench.ingestion.parsers.image_notes import describe_images

W_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
R_NS = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
HYPERLINK_TYPE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink"
CODE = ["from typing import TYPE_CHECKING", "if TYPE_CHECKING:", "    import numpy as np"]


def _append_xml(paragraph, xml: str) -> None:
    from docx.oxml import parse_xml

    paragraph._p.append(parse_xml(xml))


def _link(document, paragraph, target: str, text: str) -> None:
    """A <w:hyperlink r:id> whose target is in document.xml.rels, as Word writes one."""
    rel = document.part.relate_to(target, HYPERLINK_TYPE, is_external=True)
    _append_xml(paragraph, f'<w:hyperlink {W_NS} {R_NS} r:id="{rel}"><w:r><w:t>{text}</w:t></w:r></w:hyperlink>')


def _field_link(paragraph, instruction: str, text: str) -> None:
    """A HYPERLINK complex field, its instruction split over two runs as Word often does."""
    half = len(instruction) // 2
    for xml in (
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r>',
        f'<w:r><w:instrText xml:space="preserve">{instruction[:half]}</w:instrText></w:r>',
        f'<w:r><w:instrText xml:space="preserve">{instruction[half:]}</w:instrText></w:r>',
        '<w:r><w:fldChar w:fldCharType="separate"/></w:r>',
        f"<w:r><w:t>{text}</w:t></w:r>",
        '<w:r><w:fldChar w:fldCharType="end"/></w:r>',
    ):
        _append_xml(paragraph, xml.replace("<w:r>", f"<w:r {W_NS}>", 1))


@pytest.fixture(scope="module")
def docx_bytes() -> bytes:
    import docx
    from docx.enum.style import WD_STYLE_TYPE
    from docx.shared import Inches

    document = docx.Document()
    document.add_heading("Type checking", level=1)
    document.add_paragraph("Import the types only while checking:")
    document.styles.add_style("Code", WD_STYLE_TYPE.PARAGRAPH)
    styled = document.add_paragraph(style="Code")  # one paragraph, its lines split by <w:br/>
    for number, line in enumerate(CODE):
        run = styled.add_run(line)
        if number < len(CODE) - 1:
            run.add_break()
    document.add_paragraph("Or in a monospace font, a paragraph a line:")
    for line in ("def area(r):", "    return 3.14 * r * r"):
        document.add_paragraph().add_run(line).font.name = "Consolas"
    carriage = document.add_paragraph()  # lines split by <w:cr/>, which mammoth drops
    carriage.add_run("x = 1").font.name = "Courier New"
    _append_xml(carriage, f'<w:r {W_NS}><w:rPr><w:rFonts w:ascii="Courier New" w:hAnsi="Courier New"/></w:rPr>'
                          "<w:cr/><w:t>y = 2</w:t></w:r>")  # fmt: skip
    links = document.add_paragraph("See ")
    _link(document, links, "https://example.com/docs", "the docs")
    links.add_run(", ")
    _link(document, links, "file:///Users/alice/Private/notes.docx", "my notes")
    links.add_run(", ")
    _field_link(links, ' HYPERLINK "https://example.org/guide" \\t "/Users/alice/Desktop/frame" ', "the guide")
    links.add_run(" and ")
    _append_xml(
        links,
        f'<w:fldSimple {W_NS} w:instr=" HYPERLINK &quot;/Users/alice/spec.pdf&quot; "><w:r><w:t>the spec</w:t>'
        "</w:r></w:fldSimple>",
    )
    links.add_run(".")
    document.add_paragraph("The models compared:")
    document.add_picture(io.BytesIO(table_screenshot()), width=Inches(6))
    document.add_paragraph("Where we met:")
    document.add_picture(io.BytesIO(photo_like()), width=Inches(3))
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


@pytest.fixture(scope="module")
def parsed_docx(docx_bytes):
    return parse_bytes(docx_bytes, "typing.docx")


def test_docx_code_keeps_its_lines_in_fenced_blocks(parsed_docx):
    markdown = parsed_docx.markdown
    assert "```\n" + "\n".join(CODE) + "\n```" in markdown
    # a paragraph a line in a monospace font is one block; <w:cr/> is a line break too
    assert "```\ndef area(r):\n    return 3.14 * r * r\nx = 1\ny = 2\n```" in markdown
    assert "TYPE\\_CHECKING" not in markdown and "CHECKINGif" not in markdown


def test_docx_links_come_from_relationships_and_local_paths_never_leak(parsed_docx):
    markdown = parsed_docx.markdown
    assert "[the docs](https://example.com/docs)" in markdown
    # a file on the author's disk, a field code's switches and paths: the text stays, no link
    assert "See the docs, my notes, the guide and the spec." in markdown.replace(
        "[the docs](https://example.com/docs)", "the docs"
    )
    for leak in ("/Users", "alice", "%5C", "%22", "file:", "example.org"):
        assert leak not in markdown


@needs_ocr
def test_docx_pictures_become_their_text_or_a_named_placeholder_never_base64(parsed_docx):
    markdown = parsed_docx.markdown
    assert "base64" not in markdown and "data:image" not in markdown and "![" not in markdown
    _, after_table = markdown.split("The models compared:")
    quote, after_quote = after_table.strip().split("\n\n", 1)
    assert quote.startswith("> Text in the image (OCR):\n>\n> Model")
    assert all(cell in quote for cell in ("bge-small", "0.69", "jina-v2", "550MB"))
    assert after_quote.strip().split("\n\n") == ["Where we met:", "[image: image2.png]"]
    table, photo = parsed_docx.images
    assert (table.name, table.page, table.read) == ("image1.png", 0, True) and table.characters > 150
    assert photo.name == "image2.png" and photo.skipped.startswith("no text found by the quick check")
    assert not photo.retryable
    assert describe_images(parsed_docx.images)[0].startswith("OCR read the text of 1 image (image1.png): ")


def test_docx_pictures_without_ocr_are_named_and_listed_for_a_retry(docx_bytes, monkeypatch):
    from workbench.ingestion.parsers import images

    monkeypatch.setattr(images, "tesseract_path", lambda: None)
    monkeypatch.setattr(images, "installed_ocr_languages", lambda: frozenset())
    parsed = parse_bytes(docx_bytes, "typing.docx", limits=IngestConfig())
    assert "[image: image1.png]" in parsed.markdown and "[image: image2.png]" in parsed.markdown
    assert [note.retryable for note in parsed.images] == [True, True]
    assert parsed.images[0].skipped.startswith("OCR is not installed")


@pytest.fixture(scope="module")
def parsed_pptx():
    import pptx
    from pptx.util import Inches

    deck = pptx.Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[1])
    first.shapes.title.text = "检索模型对比"
    first.placeholders[1].text = "下一页是各模型的指标。"
    table = deck.slides.add_slide(deck.slide_layouts[5])
    table.shapes.title.text = "指标"
    table.shapes.add_picture(io.BytesIO(table_screenshot(TABLE_ZH)), Inches(0.5), Inches(2), width=Inches(9))
    table.shapes.add_textbox(Inches(0.5), Inches(5.5), Inches(9), Inches(1)).text_frame.text = "数据来自基准测试。"
    photo = deck.slides.add_slide(deck.slide_layouts[5])
    photo.shapes.title.text = "团队"
    photo.shapes.add_picture(io.BytesIO(photo_like()), Inches(2), Inches(2), width=Inches(6))
    out = io.BytesIO()
    deck.save(out)
    return parse_bytes(out.getvalue(), "对比.pptx")


@needs_ocr
def test_a_chinese_table_screenshot_in_a_pptx_is_read_on_its_slide(parsed_pptx):
    slide = parsed_pptx.markdown[parsed_pptx.page_starts[1] : parsed_pptx.page_starts[2]]
    assert slide.startswith("# 指标\n\n> 图中文字（OCR）：\n>\n> ")
    assert all(cell in slide for cell in ("模型", "准确率", "召回率", "0.69", "8192"))
    assert slide.rstrip().endswith("\n\n数据来自基准测试。")  # its own paragraph, not the quote's last line
    table, photo = parsed_pptx.images
    assert (table.page, table.name, table.read) == (2, "image1.png", True)
    assert (photo.page, photo.name) == (3, "image2.png") and photo.skipped.startswith("no text found")
    last = parsed_pptx.markdown[parsed_pptx.page_starts[2] :]
    assert last.strip() == "# 团队\n\n[image: image2.png]" and "![" not in parsed_pptx.markdown
