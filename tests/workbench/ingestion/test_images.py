"""Images and scans: OCR by Debian's tesseract, captions from a vision endpoint, both searchable.

The pictures are drawn with Pillow here; the vision endpoint is ``tests.fake_openai``, a real
HTTP server on 127.0.0.1 that captions each picture by its hash.
"""

from __future__ import annotations

import hashlib
import io

import pytest

from tests.fake_openai import FakeOpenAI
from workbench.ingestion.ingest import Source
from workbench.ingestion.parsers.images import ocr_languages

LATIN_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
CHINESE_FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
needs_ocr = pytest.mark.skipif(
    ocr_languages("eng+chi_sim") != "eng+chi_sim",
    reason="tesseract-ocr with eng and chi_sim data is not installed (.ci/run installs it)",
)


def draw_text(lines: list[str], font_path: str, fmt: str = "PNG") -> bytes:
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (1100, 80 + 70 * len(lines)), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(font_path, 40)
    for number, line in enumerate(lines):
        draw.text((40, 40 + 70 * number), line, fill="black", font=font)
    out = io.BytesIO()
    image.save(out, fmt)
    return out.getvalue()


def red_square() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (320, 240), (200, 20, 20)).save(out, "PNG")
    return out.getvalue()


def _top_source(bench, query: str, config, mode: str) -> str:
    trace = bench.query(query, "pictures", config.with_overrides([f"retrieval.mode={mode}"]))
    return trace.chunks[trace.final.hits[0].chunk_id].source


@needs_ocr
def test_english_and_chinese_text_in_images_is_found_by_a_query(bench, fake_embedder, fake_config, monkeypatch):
    monkeypatch.delenv("WORKBENCH_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    sources = [
        Source(
            "lighthouse.png",
            data=draw_text(["Lighthouse keepers trim the wick", "before the evening storm."], LATIN_FONT),
        ),
        Source("tea.jpg", data=draw_text(["灯塔看守人在暴风雨前", "修剪灯芯。"], CHINESE_FONT, "JPEG")),
        Source("notes.md", data=b"# Notes\n\nThe orchard needs pruning in winter.\n"),
    ]
    report = bench.ingest("pictures", sources, fake_config)
    assert not report.failures, report.failures
    english = bench.document("lighthouse.png", "pictures")
    assert english.doc_type == "png"
    markdown, _ = bench.markdown(english.id)
    assert "Lighthouse keepers trim the wick" in markdown
    chinese_markdown, _ = bench.markdown(bench.document("tea.jpg", "pictures").id)
    assert "灯塔看守人在暴风雨前" in chinese_markdown
    for mode in ("bm25", "hybrid"):
        assert _top_source(bench, "keepers trim the wick", fake_config, mode) == "lighthouse.png"
        assert _top_source(bench, "灯塔看守人", fake_config, mode) == "tea.jpg"
    # the picture itself is kept for the chunk browser and MCP get_chunk
    data, mime = bench.original_image(english)
    assert mime == "image/png" and data == sources[0].data


def _captioner(captions: dict[str, str]):
    def respond(request: dict) -> str | None:
        images = request["images"]
        return captions.get(hashlib.sha256(images[0]).hexdigest()) if images else None

    return respond


def test_a_vision_endpoint_captions_images_in_their_language(bench, fake_embedder, fake_config, monkeypatch):
    picture = red_square()
    chinese = draw_text(["港口起重机安全规则"], CHINESE_FONT)
    captions = {
        hashlib.sha256(picture).hexdigest(): "A plain red square: the harbour crane warning signal.",
        hashlib.sha256(chinese).hexdigest(): "一张写着港口起重机安全规则的告示。",
    }
    with FakeOpenAI(_captioner(captions)) as server:
        monkeypatch.setenv("WORKBENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("WORKBENCH_LLM_MODEL", "text-model")
        monkeypatch.setenv("WORKBENCH_LLM_VISION_MODEL", "vision-model")
        monkeypatch.setenv("WORKBENCH_LLM_API_KEY", "secret-key")
        report = bench.ingest(
            "pictures", [Source("signal.png", data=picture), Source("rules.png", data=chinese)], fake_config
        )
    assert not report.failures, report.failures
    assert len(server.calls) == 2
    prompts = {}
    for request in server.calls:
        assert request["body"]["model"] == "vision-model"
        assert request["authorization"] == "Bearer secret-key"
        user = request["body"]["messages"][1]["content"][0]["text"]
        prompts[hashlib.sha256(request["images"][0]).hexdigest()] = user
    assert prompts[hashlib.sha256(picture).hexdigest()] == "Caption this image in English."
    if ocr_languages("eng+chi_sim") == "eng+chi_sim":  # OCR finds Chinese text, so the caption is asked in Chinese
        assert prompts[hashlib.sha256(chinese).hexdigest()] == "Caption this image in Simplified Chinese."
    signal = bench.document("signal.png", "pictures")
    rows = bench.chunks_of(signal.id)
    assert any("harbour crane warning signal" in row[5] for row in rows)
    assert _top_source(bench, "crane warning signal", fake_config, "bm25") == "signal.png"
    assert _top_source(bench, "起重机安全", fake_config, "bm25") == "rules.png"
    metadata = bench.chunk_metadata(rows[0][0])
    assert metadata["caption"] == "A plain red square: the harbour crane warning signal."
    assert metadata["caption_model"] == "vision-model"


def test_without_ocr_or_captions_an_image_fails_saying_what_to_install(bench, fake_embedder, fake_config, monkeypatch):
    for name in ("WORKBENCH_LLM_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "WORKBENCH_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    config = fake_config.with_overrides(["ingest.ocr_languages=tlh"])  # a language pack nobody has installed
    report = bench.ingest(
        "pictures", [Source("signal.png", data=red_square()), Source("ok.md", data=b"# Fine\n\ntext")], config
    )
    (failure,) = report.failures
    assert failure.source == "signal.png"
    assert "apt-get install tesseract-ocr" in failure.reason and "WORKBENCH_LLM_BASE_URL" in failure.reason
    assert report.count("ingested") == 1


def test_an_endpoint_error_is_the_reason_when_it_is_the_only_way(bench, fake_embedder, fake_config, monkeypatch):
    with FakeOpenAI(lambda request: None) as server:  # answers HTTP 500
        monkeypatch.setenv("WORKBENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("WORKBENCH_LLM_MODEL", "vision-model")
        report = bench.ingest(
            "pictures",
            [Source("signal.png", data=red_square())],
            fake_config.with_overrides(["ingest.ocr_languages=tlh"]),
        )
    (failure,) = report.failures
    assert "HTTP 500" in failure.reason and "no caption" in failure.reason


@needs_ocr
def test_scanned_pdf_pages_are_ocrd(bench, fake_embedder, fake_config, tmp_path):
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    path = tmp_path / "scan.pdf"
    pdf = canvas.Canvas(str(path))
    pdf.drawString(72, 750, "A page with a real text layer about granite quarries.")
    pdf.showPage()
    scan = draw_text(["Scanned memo: the ferry timetable", "changes on Monday."], LATIN_FONT)
    pdf.drawImage(ImageReader(io.BytesIO(scan)), 40, 500, width=520, height=520 * 220 / 1100)
    pdf.showPage()
    pdf.save()
    report = bench.ingest("pictures", [Source.from_path(path)], fake_config)
    assert not report.failures, report.failures
    document = bench.document("scan.pdf", "pictures")
    markdown, page_starts = bench.markdown(document.id)
    assert "granite quarries" in markdown and "ferry timetable" in markdown
    assert len(page_starts) == 2 and markdown.index("ferry timetable") >= page_starts[1]
    assert bench.chunk_metadata(bench.chunks_of(document.id)[0][0])["ocr_pages"] == [2]
    assert _top_source(bench, "ferry timetable Monday", fake_config, "bm25") == "scan.pdf"


@needs_ocr
def test_mcp_get_chunk_returns_the_picture(bench, fake_embedder, fake_config):
    from workbench.mcp_server.tools import KnowledgeHub

    data = draw_text(["Lighthouse keepers trim the wick"], LATIN_FONT)
    bench.ingest("pictures", [Source("lighthouse.png", data=data)], fake_config)
    chunk_id = bench.chunks_of(bench.document("lighthouse.png", "pictures").id)[0][0]
    output = KnowledgeHub(bench).get_chunk(chunk_id)
    assert output.images == ((data, "image/png"),)
    assert "Lighthouse keepers" in output.markdown
