"""Chunk previews for the Chunking lab: spans, token counts, overlap and coverage."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.chunking.preview import ChunkPreview, preview_chunking
from workbench.config import ChunkingConfig
from workbench.embedding import Embedder

ALPHABET = "abcdefghijklmnopqrstuvwxy"  # 25 characters, no whitespace to trim


class WordCounter(Embedder):
    """Counts whitespace-separated words as tokens; the 'model' reads at most 5."""

    name = "word-counter"
    dimension = 2
    max_tokens = 5

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 2), dtype=np.float32) / np.sqrt(2)

    def token_counts(self, texts: list[str]) -> list[int]:
        return [len(text.split()) for text in texts]


def test_fixed_windows_of_ten_with_four_overlap():
    preview = preview_chunking(ALPHABET, ChunkingConfig(strategy="fixed", size=10, overlap=4), WordCounter())
    # windows start every 10 - 4 = 6 characters; the last one ends at the text's end
    assert preview.spans == ((0, 10), (6, 16), (12, 22), (18, 25))
    assert preview.token_counts == (1, 1, 1, 1)
    assert preview.overlap_chars == 4 + 4 + 4
    assert preview.covered_chars == 25
    assert preview.count == 4 and preview.over_limit == 0


def test_tokens_over_the_limit_are_counted():
    text = "one two three four five six seven eight nine ten"
    preview = preview_chunking(text, ChunkingConfig(strategy="fixed", size=30, overlap=0), WordCounter())
    assert [text[s:e] for s, e in preview.spans] == ["one two three four five six se", "ven eight nine ten"]
    assert preview.token_counts == (7, 4)
    assert preview.over_limit == 1
    assert preview.token_stats() == {"mean": 5.5, "median": 5.5, "max": 7.0}


def test_coverage_counts_gaps_once():
    preview = ChunkPreview(
        spans=((0, 4), (2, 6), (10, 12)), heading_paths=((), (), ()), token_counts=(1, 1, 1), max_tokens=None
    )
    assert preview.covered_chars == 6 + 2
    assert preview.overlap_chars == 2
    assert preview.over_limit == 0


def test_settings_no_splitter_honours_are_refused_with_the_key():
    with pytest.raises(ValueError, match="chunking.overlap must be at least 0 and below chunking.size"):
        preview_chunking(ALPHABET, ChunkingConfig(strategy="fixed", size=10, overlap=10), WordCounter())
