import os
from pathlib import Path

import pytest

from workbench.chunking.recursive import RecursiveConfig, split
from workbench.chunking.tokens import HuggingFaceTokenSpans, TokenMeasure

os.environ.setdefault("HF_HUB_OFFLINE", "1")
FIXTURE = Path(__file__).parent / "data" / "field_guide.md"


@pytest.fixture(scope="module")
def minilm() -> HuggingFaceTokenSpans:
    return HuggingFaceTokenSpans("all-MiniLM-L6-v2")


def texts(markdown: str, size: int, overlap: int) -> list[str]:
    return [chunk.text for chunk in split(markdown, RecursiveConfig(size=size, overlap=overlap))]


def test_small_document_is_one_trimmed_chunk():
    chunks = split("\n\n  # Title\n\nBody text.\n\n", RecursiveConfig(size=100, overlap=10))
    assert [(c.text, c.start, c.end, c.heading_path) for c in chunks] == [("# Title\n\nBody text.", 4, 23, ("Title",))]


def test_overlap_is_made_of_whole_trailing_pieces():
    # Pieces are the six words. Size 13 fits "one two three"; the 5-character overlap keeps
    # "three" but never a part of it, and then "four" (4 characters) alone.
    assert texts("one two three four five six", size=13, overlap=5) == [
        "one two three",
        "three four",
        "four five six",
    ]
    assert texts("one two three four five six", size=13, overlap=0) == ["one two three", "four five six"]


def test_headings_are_the_first_places_to_cut():
    markdown = "# A\n\nalpha beta.\n\n# B\n\ngamma delta."
    assert texts(markdown, size=20, overlap=0) == ["# A\n\nalpha beta.", "# B\n\ngamma delta."]
    chunks = split(markdown, RecursiveConfig(size=20, overlap=0))
    assert [c.heading_path for c in chunks] == [("A",), ("B",)]


def test_code_block_comment_is_not_a_cut_point():
    code = "```sh\n# not a heading\nmake all\n```"
    markdown = f"# Build\n\nRun the build.\n\n{code}\n\nThen relax."
    chunks = texts(markdown, size=40, overlap=0)
    assert code in chunks  # the fenced block stays whole instead of being cut at its comment line
    assert all(not chunk.startswith("# not a heading") for chunk in chunks)


def test_chinese_without_spaces_is_cut_at_sentence_ends():
    markdown = "第一句话比较短。第二句话也不长。第三句。"
    assert texts(markdown, size=10, overlap=0) == ["第一句话比较短。", "第二句话也不长。", "第三句。"]


def test_unbreakable_run_falls_back_to_single_characters():
    assert texts("x" * 10, size=4, overlap=1) == ["xxxx", "xxxx", "xxxx"]  # starts 0, 3, 6


def test_fixture_chunks_fit_and_have_no_edge_whitespace():
    markdown = FIXTURE.read_text(encoding="utf-8")
    for size, overlap in [(120, 20), (400, 80), (5000, 0)]:
        chunks = split(markdown, RecursiveConfig(size=size, overlap=overlap))
        assert chunks
        for chunk in chunks:
            assert markdown[chunk.start : chunk.end] == chunk.text
            assert len(chunk.text) <= size
            assert chunk.text == chunk.text.strip()
        # every visible character of the document lands in some chunk
        covered = set()
        for chunk in chunks:
            covered.update(range(chunk.start, chunk.end))
        assert all(i in covered for i, ch in enumerate(markdown) if not ch.isspace())


def test_token_unit_counts_minilm_tokens(minilm):
    markdown = FIXTURE.read_text(encoding="utf-8")
    chunks = split(markdown, RecursiveConfig(size=48, overlap=8, unit="tokens"), tokens=minilm)
    measure = TokenMeasure(minilm.spans(markdown))
    assert max(measure.length(c.start, c.end) for c in chunks) <= 48
    assert max(len(minilm.spans(c.text)) for c in chunks) <= 48  # also when each chunk is re-tokenised alone
    assert max(measure.length(c.start, c.end) for c in chunks) > 30  # pieces are really packed together
