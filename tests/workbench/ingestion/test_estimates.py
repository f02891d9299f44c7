"""Ingest estimates from what the files hold (issue 48: "about 1,555 chunks, roughly 3 min" for
what became 198 chunks in 35 s): text read from Office XML and a PDF's text layer rather than
guessed from the file's size, tokens counted per CJK character, chunks cut to the model's window."""

from __future__ import annotations

import math

import pytest

from tests.workbench.office_files import make_docx, make_pdf, make_pptx
from workbench.chunking.preparation import model_reads
from workbench.config import ChunkingConfig
from workbench.ingestion.estimates import (
    TOKENS_PER_WORD,
    WINDOW_FILL,
    WINDOW_MARGIN_TOKENS,
    estimate_chunks,
    markdown_size,
    model_window,
    text_size,
)

ROOM = (256 - WINDOW_MARGIN_TOKENS) * WINDOW_FILL  # tokens of a 256-token window a cut piece fills


def test_english_chunks_are_cut_to_the_window_when_they_outgrow_it():
    # 9,000 characters at 4 a token: steps of 900 (size 1000, overlap 100) make 10 chunks of ~250 tokens
    assert estimate_chunks(9000, ChunkingConfig()) == 10
    assert estimate_chunks(9000, ChunkingConfig(), window=256) == math.ceil(10 * 250 / ROOM) == 14
    assert estimate_chunks(9000, ChunkingConfig(fit_window=False), window=256) == 10


def test_chinese_text_is_a_token_a_character_so_its_chunks_are_cut_in_several():
    # 2,000 CJK characters: 3 chunks of (2000/3 + 100) characters, each that many tokens
    assert estimate_chunks(2000, ChunkingConfig(), tokens=2000, window=256) == math.ceil(3 * (2000 / 3 + 100) / ROOM)
    assert estimate_chunks(2000, ChunkingConfig(), tokens=2000, window=256) == 13
    # tokens as the unit: 200-token chunks of Chinese text are 200 characters, steps of 180
    tokens = ChunkingConfig(unit="tokens", size=200, overlap=20)
    assert estimate_chunks(2000, tokens, tokens=2000) == math.ceil(1980 / 180) == 11


def test_tokens_are_counted_per_cjk_character_per_word_and_per_mark():
    size = markdown_size("混合检索 fuses ranks.")
    assert size.characters == 17 and size.read
    assert size.tokens == pytest.approx(4 + 2 * TOKENS_PER_WORD + 1)


def test_office_files_and_pdfs_are_read_not_weighed(tmp_path):
    docx = make_docx(tmp_path / "wind.docx")
    read = text_size(docx.name, docx.read_bytes(), docx.stat().st_size)
    # "Wind energy" and "Turbines turn wind into electricity offshore.", one line each
    assert read.characters == 57 and read.read
    assert read.tokens == pytest.approx(8 * TOKENS_PER_WORD + 1)
    assert docx.stat().st_size > 30 * read.characters  # the size alone said ~a dozen times more text

    deck = make_pptx(tmp_path / "geo.pptx")
    slides = text_size(deck.name, deck.read_bytes(), deck.stat().st_size)
    assert slides.characters == len("Volcanoes\nLava flows downhill\nEarthquakes\nFaults slip suddenly")

    pdf = make_pdf(tmp_path / "two.pdf", ["Page one says hello.", "Page two says goodbye."])
    pages = text_size(pdf.name, pdf.read_bytes(), pdf.stat().st_size)
    assert pages.read and 42 <= pages.characters <= 50  # the two lines and pdfium's page ends


def test_what_cannot_be_read_cheaply_is_guessed_from_its_size():
    picture = text_size("scan.png", b"\x89PNG...", 500_000)
    assert not picture.read and picture.tokens is None and picture.characters == 600
    broken = text_size("broken.docx", b"not a zip", 3000)
    assert not broken.read and broken.characters == 1000  # the parser says why it fails


def test_the_window_comes_from_the_catalogue_without_loading_the_model():
    assert model_window("all-MiniLM-L6-v2") == 256
    assert model_window("all-MiniLM-L6-v2@onnx-int8") == 256
    assert model_window("someone/unknown-model") is None


def test_only_text_the_model_reads_is_cut_to_its_window():
    """Chunking cuts a document to the window only when the model reads its language
    (``chunking.preparation.fitted_to_window``); the estimate asks the same question, without
    loading the model: the English-only default reads English, not Chinese."""
    reads = model_reads("all-MiniLM-L6-v2@openvino-fp32")
    assert reads("Hybrid retrieval fuses the BM25 and the dense rankings.")
    assert not reads("混合检索把关键词检索和向量检索的排名融合在一起。倒数排名融合只看名次，不看分数。")
    assert model_reads("someone/unknown-model")("任何文字")  # languages unknown: cut as before
