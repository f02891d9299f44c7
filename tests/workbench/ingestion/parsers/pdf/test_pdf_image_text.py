"""Text in the pictures of PDF pages that have text of their own (issue 35 item 2): OCR'd, placed
where the picture stands, marked as OCR text, and every picture reported (read, or skipped and why).

The pages are drawn with reportlab here: paragraphs and a caption as glyphs, and pictures of text
rendered with Pillow (the Chinese ones in WenQuanYi Micro Hei).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.workbench.ingestion.pictures import A4, picture_page
from tests.workbench.ingestion.test_images import needs_ocr
from workbench.config import IngestConfig
from workbench.ingestion.parsers import parse_bytes
from workbench.ingestion.parsers.image_notes import ImageNote, describe_images, images_in_brief, notes_of
from workbench.ingestion.parsers.pdf.blocks import Style, TextBlock
from workbench.ingestion.parsers.pdf.glyphs import Glyph
from workbench.ingestion.parsers.pdf.image_text import (
    ImageText,
    PageImage,
    image_text_markdown,
    with_image_text,
)
from workbench.ingestion.parsers.pdf.rows import Row
from workbench.ingestion.parsers.picture_text import _chinese_first

#: 450 x 300 points: 26.9% of an A4 page
LARGE = (72.0, 380.0, 450.0, 300.0)
ENGLISH = ["Hybrid search fuses BM25", "with dense vectors, then", "reranks the candidates."]
CHINESE = ["检索增强生成把文档切成块，", "再用向量和关键词找回", "最相关的内容交给模型。"]


def around(above: str, caption: str, below: str) -> list[tuple[float, float, str]]:
    return [(72, 770, above), (72, 700, caption), (72, 340, below)]


@pytest.fixture(scope="module")
def english():
    data = picture_page(
        around("The paragraph before the figure.", "Figure 1: the settings.", "The paragraph after the figure."),
        [(ENGLISH, LARGE)],
    )
    return parse_bytes(data, "settings.pdf")


@pytest.fixture(scope="module")
def chinese():
    texts = around("图片前面的段落。", "图一：设置页面截图", "图片后面的段落。")
    data = picture_page(texts, [(CHINESE, LARGE)], chinese=True)
    return parse_bytes(data, "设置.pdf")


def quote_of(markdown: str) -> list[str]:
    return [line for line in markdown.splitlines() if line.startswith(">")]


@needs_ocr
def test_an_english_picture_is_read_and_placed_between_the_paragraphs_around_it(english):
    text = "Hybrid search fuses BM25 with dense vectors, then reranks the candidates."
    # the picture's three lines make one paragraph, as the page's own lines are joined
    assert english.markdown.strip().split("\n\n") == [
        "The paragraph before the figure.",
        "Figure 1: the settings.",
        f"> Text in the image (OCR):\n>\n> {text}",
        "The paragraph after the figure.",
    ]
    (note,) = english.images
    assert note == ImageNote(1, pytest.approx(450 * 300 / (A4[0] * A4[1])), len(text))  # type: ignore[arg-type]


@needs_ocr
def test_a_chinese_picture_is_read_and_placed_between_the_paragraphs_around_it(chinese):
    above, caption, quote, below = chinese.markdown.strip().split("\n\n")
    assert (above, caption, below) == ("图片前面的段落。", "图一：设置页面截图", "图片后面的段落。")
    label, blank, text = quote.split("\n")
    assert (label, blank) == ("> 图中文字（OCR）：", ">")
    # the lines joined with no space between Chinese characters; tesseract may misread a character
    assert "再用向量和关键词找回" in text and "内容交给模型。" in text and " " not in text[2:]
    (note,) = chinese.images
    assert note.read and note.characters == len(text) - 2


@pytest.fixture(scope="module")
def three_pictures() -> bytes:
    """A small picture at the top, then two large ones, each under a caption."""
    return picture_page(
        [(72, 800, "Three pictures."), (72, 745, "A logo."), (72, 470, "First large."), (72, 60, "Second large.")],
        [(["tiny"], (72, 760, 100, 30)), (ENGLISH, (72, 160, 450, 300)), (CHINESE, (72, 80, 120, 70))],
    )


@needs_ocr
def test_a_table_screenshot_at_15_percent_of_a_page_is_read_and_a_chart_and_a_photo_are_only_checked():
    from tests.workbench.ingestion.pictures import bar_chart, photo_like, table_screenshot

    table = table_screenshot(cell=(150, 60))  # 1220 x 380 pixels: at 500 points wide, 156 high
    data = picture_page(
        [(72, 800, "Benchmarks."), (72, 560, "A chart and a photo."), (72, 100, "The end.")],
        [(table, (72, 620, 500, 156)), (bar_chart(), (72, 330, 300, 200)), (photo_like(), (72, 120, 300, 200))],
    )
    parsed = parse_bytes(data, "ocr_03.pdf")
    table_note, chart_note, photo_note = parsed.images
    assert table_note.share == pytest.approx(500 * 156 / (A4[0] * A4[1])) and 0.15 < table_note.share < 0.16
    assert table_note.read and table_note.characters > 150
    quote = "\n".join(quote_of(parsed.markdown))
    for cell in ("Model", "Window", "bge-small", "0.69", "jina-v2", "8192", "550MB"):
        assert cell in quote
    # the chart's title and axis labels are two lines of text, the photo none (or a speck): no tesseract
    assert chart_note.skipped == NO_TEXT.format(2)
    assert photo_note.skipped in (NO_TEXT.format(0), NO_TEXT.format(1))
    assert parsed.markdown.count("Text in the image (OCR):") == 1


NO_TEXT = "no text found by the quick check ({} text lines, under 3; ingest.ocr_text_check=false reads every picture)"


@needs_ocr
def test_pictures_without_text_and_past_the_limit_are_skipped_and_said_why(three_pictures):
    parsed = parse_bytes(three_pictures, "three.pdf", limits=IngestConfig(max_ocr_images=1))
    small, large, second = parsed.images
    assert small.skipped.startswith("no text found by the quick check (") and not small.retryable
    assert large.read and large.characters > 50
    assert second.skipped == "over the limit of 1 images a document (ingest.max_ocr_images=1)" and second.retryable
    unchecked = parse_bytes(three_pictures, "three.pdf", limits=IngestConfig(max_ocr_images=1, ocr_text_check=False))
    assert [note.read for note in unchecked.images] == [True, False, False]
    assert describe_images(unchecked.images)[1] == (
        "skipped 2 images, over the limit of 1 images a document (ingest.max_ocr_images=1) (page 1)"
    )
    # the old floor on a picture's share of the page is still a setting: none by default
    shared = parse_bytes(three_pictures, "three.pdf", limits=IngestConfig(ocr_image_share=0.25))
    assert shared.images[0].skipped == "under 25% of the page (ingest.ocr_image_share=0.25)"


@needs_ocr
def test_a_picture_past_its_own_budget_is_skipped_naming_the_setting_and_sync_ocr(three_pictures):
    parsed = parse_bytes(three_pictures, "three.pdf", limits=IngestConfig(ocr_budget_s=0.1))
    large = parsed.images[1]
    assert large.skipped == (
        "OCR took longer than 0.1 s on this image (ingest.ocr_budget_s=0.1, each image); retry with "
        "sync --ocr when the machine is less busy, or raise ingest.ocr_budget_s"
    )
    assert large.retryable and "Hybrid" not in parsed.markdown and parsed.markdown.startswith("Three pictures.")


@needs_ocr
def test_pictures_past_the_documents_share_of_the_parse_timeout_are_skipped_naming_it(three_pictures):
    limits = IngestConfig(parse_timeout_s=0.2, ocr_text_check=False)  # a document's OCR gets half: 0.1 s
    parsed = parse_bytes(three_pictures, "three.pdf", limits=limits)
    reason = (
        "past the 0.1 s the OCR of one document may take (half of ingest.parse_timeout_s=0.2); "
        "retry with sync --ocr, or raise ingest.parse_timeout_s"
    )
    assert [note.skipped for note in parsed.images] == [reason] * 3
    assert all(note.retryable for note in parsed.images)


def test_without_tesseract_every_picture_is_skipped_saying_how_to_install_it(three_pictures, monkeypatch):
    from workbench.ingestion.parsers import images

    monkeypatch.setattr(images, "tesseract_path", lambda: None)
    monkeypatch.setattr(images, "installed_ocr_languages", lambda: frozenset())
    parsed = parse_bytes(three_pictures, "three.pdf")
    assert {note.skipped for note in parsed.images} == {
        "OCR is not installed: install Debian's tesseract-ocr (apt-get install tesseract-ocr tesseract-ocr-eng "
        "tesseract-ocr-chi-sim)"
    }
    assert images_in_brief(parsed.images) == "0 read by OCR, 3 skipped"


def test_a_picture_under_the_pages_own_text_is_not_read_again():
    words = [(80 + 40 * (n % 10), 600 - 20 * (n // 10), "word") for n in range(30)]  # 120 glyphs over it
    data = picture_page([(72, 770, "A scan with its text layer."), *words], [(ENGLISH, LARGE)])
    (note,) = parse_bytes(data, "layer.pdf").images
    assert note.skipped == "the page's own text is drawn over it (that text is read instead)"


def test_no_limits_reads_no_picture(english):
    from workbench.ingestion.parsers.pdf.layout import read_pages

    data = picture_page(around("Before.", "Caption.", "After."), [(ENGLISH, LARGE)])
    pages = read_pages(data)  # what the benches time: layout alone
    assert pages.images == () and pages.markdown == ("Before.\n\nCaption.\n\nAfter.",)


# -- by hand: placement, Markdown, notes ------------------------------------------------------------


def block(text: str, x0: float, top: float, x1: float) -> TextBlock:
    row = Row((Glyph(text[0], x0, x1, top, top + 10, 10.0, False),))
    return TextBlock("paragraph", text, 10.0, False, 1, first=row, last=row)


def picture(x0: float, top: float, x1: float, bottom: float, text: str) -> ImageText:
    return ImageText(PageImage(0, x0, top, x1, bottom, 0.3, 0, (0, 0, 0, 0)), text)


STYLE = Style(10.0, 12.0)


def test_a_picture_goes_after_the_blocks_above_it_in_its_own_column():
    left_top, left_low = block("L1", 50, 100, 280), block("L2", 50, 600, 280)
    right_top, right_low = block("R1", 320, 100, 550), block("R2", 320, 600, 550)
    blocks = [left_top, left_low, right_top, right_low]  # reading order: the left column, then the right
    placed = with_image_text(blocks, [picture(320, 200, 550, 500, "> right")], STYLE)
    assert [b.text for b in placed] == ["L1", "L2", "R1", "> right", "R2"]
    placed = with_image_text(blocks, [picture(50, 200, 280, 500, "> left")], STYLE)
    assert [b.text for b in placed] == ["L1", "> left", "L2", "R1", "R2"]
    # two pictures one above the other keep their order; one at the top of a page goes first
    placed = with_image_text(
        [left_low], [picture(50, 300, 280, 400, "> second"), picture(50, 150, 280, 250, "> first")], STYLE
    )
    assert [b.text for b in placed] == ["> first", "> second", "L2"]
    (only,) = with_image_text([], [picture(50, 150, 280, 250, "> alone")], STYLE)
    assert only.kind == "image_text" and only.size == 10.0


def test_ocr_text_becomes_a_labelled_quote_with_paragraphs_joined_and_list_lines_kept():
    text = "Hybrid search fuses\nBM25 with vectors.\n\n1. Parse\n2. Chunk\n\n- keep\nthis item"
    assert image_text_markdown(text) == (
        "> Text in the image (OCR):\n>\n> Hybrid search fuses BM25 with vectors.\n>\n> 1. Parse\n>\n"
        "> 2. Chunk\n>\n> - keep this item"
    )
    assert image_text_markdown("检索增强生成把文档\n切成块。") == "> 图中文字（OCR）：\n>\n> 检索增强生成把文档切成块。"


def test_chinese_packs_go_first_for_a_second_reading():
    assert _chinese_first("eng+chi_sim") == "chi_sim+eng"
    assert _chinese_first("chi_sim+eng") == "chi_sim+eng" and _chinese_first("eng") == "eng"


def test_notes_are_summed_up_by_outcome_and_reason_and_kept_as_json():
    notes = [
        ImageNote(3, 0.4, characters=500),
        ImageNote(5, 0.3, characters=312),
        ImageNote(4, 0.3),
        ImageNote(1, 0.05, skipped="under 25% of the page (ingest.ocr_image_share=0.25)"),
        ImageNote(2, 0.05, skipped="under 25% of the page (ingest.ocr_image_share=0.25)"),
    ]
    assert describe_images(notes) == [
        "OCR read the text of 2 images (pages 3, 5): 812 characters",
        "OCR found no text in 1 image (page 4)",
        "skipped 2 images, under 25% of the page (ingest.ocr_image_share=0.25) (pages 1, 2)",
    ]
    assert images_in_brief(notes) == "3 read by OCR, 2 skipped" and images_in_brief([]) == ""
    assert notes_of({"images": [note.to_json() for note in notes]}) == notes and notes_of(None) == []
    named = [ImageNote(0, 0.0, characters=40, name="image1.png"), ImageNote(0, 0.0, skipped="x", name="image2.png")]
    assert describe_images(named) == [
        "OCR read the text of 1 image (image1.png): 40 characters",
        "skipped 1 image, x (image2.png)",
    ]
    assert notes_of({"images": [note.to_json() for note in named]}) == named
    # notes stored before names and retries: every skip but the covered one may be retried
    old = {"page": 1, "share": 0.1, "characters": 0, "skipped": "under 25% of the page"}
    covered = {**old, "skipped": "the page's own text is drawn over it (that text is read instead)"}
    assert [note.retryable for note in notes_of({"images": [old, covered]})] == [True, False]
    assert replace(notes[0], characters=0) == ImageNote(3, 0.4)


# -- end to end: ingest says it, the catalog keeps it, a query finds the text -----------------------


@needs_ocr
def test_ingest_lists_what_ocr_read_and_skipped_and_the_text_is_searchable(
    tmp_path, capsys, fake_embedder, three_pictures
):
    from tests.conftest import FAKE_MODEL
    from workbench.cli import main
    from workbench.service import Workbench

    pdf = tmp_path / "three.pdf"
    pdf.write_bytes(three_pictures)
    home = tmp_path / "home"
    code = main(["ingest", str(pdf), "--home", str(home), "--collection", "pictures"]
                + ["--set", f"embedding.model={FAKE_MODEL}"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    images = [line for line in out.splitlines() if line.startswith("  images in three.pdf: ")]
    # the small Chinese picture (1.7% of the page) is read too; the tiny one-word logo is not
    assert images[0].startswith("  images in three.pdf: OCR read the text of 2 images (page 1): ")
    assert images[1:] == ["  images in three.pdf: skipped 1 image, " + NO_TEXT.format(0) + " (page 1)"]
    bench = Workbench(home)
    (document,) = bench.documents("pictures")
    assert [note.read for note in notes_of(document.parse_report)] == [False, True, True]
    config = bench.config_for("pictures", None, ["retrieval.mode=bm25"])
    hits = bench.query("reranks the candidates", "pictures", config).final_chunks()
    assert hits and "> Text in the image (OCR):" in hits[0].text and "reranks the candidates" in hits[0].text
