import os
from itertools import pairwise
from pathlib import Path

import pytest

from workbench.chunking.fixed import FixedSizeConfig, split, window_bounds
from workbench.chunking.tokens import HuggingFaceTokenSpans, TokenMeasure
from workbench.config import ChunkingConfig

os.environ.setdefault("HF_HUB_OFFLINE", "1")
FIXTURE = Path(__file__).parent / "data" / "field_guide.md"


@pytest.fixture(scope="module")
def minilm() -> HuggingFaceTokenSpans:
    return HuggingFaceTokenSpans("all-MiniLM-L6-v2")


def test_window_bounds_hand_computed():
    assert window_bounds(10, 4, 1) == [(0, 4), (3, 7), (6, 10)]
    assert window_bounds(11, 4, 1) == [(0, 4), (3, 7), (6, 10), (9, 11)]
    assert window_bounds(3, 4, 1) == [(0, 3)]
    assert window_bounds(8, 4, 0) == [(0, 4), (4, 8)]
    assert window_bounds(0, 4, 1) == []


def test_character_windows_overlap_by_exactly_overlap():
    chunks = split("abcdefghij", FixedSizeConfig(size=4, overlap=1))
    assert [(c.text, c.start, c.end) for c in chunks] == [("abcd", 0, 4), ("defg", 3, 7), ("ghij", 6, 10)]


def test_edge_whitespace_is_trimmed_from_offsets_and_blank_windows_dropped():
    markdown = "ab    cd"
    chunks = split(markdown, FixedSizeConfig(size=3, overlap=0))
    assert [(c.text, c.start) for c in chunks] == [("ab", 0), ("cd", 6)]  # window "   " is dropped


def test_fixture_windows_share_text_with_their_neighbours():
    markdown = FIXTURE.read_text(encoding="utf-8")
    chunks = split(markdown, FixedSizeConfig(size=300, overlap=60))
    assert len(chunks) == len(window_bounds(len(markdown), 300, 60))
    for previous, following in pairwise(chunks):
        shared = markdown[following.start : previous.end]
        assert previous.end - following.start >= 50, "overlap lost more than edge whitespace"
        assert shared and previous.text.endswith(shared) and following.text.startswith(shared)
    assert all(len(c.text) <= 300 for c in chunks)


def test_token_windows_hold_size_tokens_and_share_overlap_tokens(minilm):
    markdown = FIXTURE.read_text(encoding="utf-8")
    chunks = split(markdown, FixedSizeConfig(size=50, overlap=10, unit="tokens"), tokens=minilm)
    measure = TokenMeasure(minilm.spans(markdown))
    assert [measure.length(c.start, c.end) for c in chunks[:-1]] == [50] * (len(chunks) - 1)
    assert 0 < measure.length(chunks[-1].start, chunks[-1].end) <= 50
    for previous, following in pairwise(chunks):
        assert measure.length(following.start, previous.end) == 10
    assert chunks[-1].end == minilm.spans(markdown)[-1][1]


def test_tokens_unit_without_tokenizer_says_what_to_pass():
    with pytest.raises(ValueError, match="tokens=HuggingFaceTokenSpans"):
        split("some text", FixedSizeConfig(size=10, overlap=2, unit="tokens"))


def test_config_from_chunking_and_validation():
    config = FixedSizeConfig.from_chunking(ChunkingConfig(strategy="fixed", size=256, overlap=32, unit="tokens"))
    assert config == FixedSizeConfig(size=256, overlap=32, unit="tokens")
    with pytest.raises(ValueError, match="chunking.overlap"):
        FixedSizeConfig(size=10, overlap=10)
    with pytest.raises(ValueError, match="chunking.size"):
        FixedSizeConfig(size=0, overlap=0)
