import re

import numpy as np
import pytest

from workbench.chunking.semantic import SemanticConfig, adjacent_similarities, breakpoints, split
from workbench.config import ChunkingConfig

TOPICS = {
    "cats": {"cat", "kitten", "purr", "whiskers"},
    "finance": {"stock", "market", "investors", "shares", "prices"},
    "cooking": {"boil", "pasta", "simmer", "sauce"},
}


def topic_embedder(texts: list[str]) -> np.ndarray:
    """Counts of each topic's words plus one shared background dimension, L2-normalised.

    Every sentence below has exactly two topic words, so a row is (2, 0, 0, 1) / sqrt(5) up to
    order: same-topic neighbours have similarity 1, different topics 1/5.
    """
    rows = []
    for text in texts:
        words = re.findall(r"[a-z]+", text.lower())
        row = [sum(word in vocabulary for word in words) for vocabulary in TOPICS.values()] + [1.0]
        rows.append(np.array(row, dtype=float) / np.linalg.norm(row))
    return np.vstack(rows)


CATS = "The cat chased a kitten. A kitten will purr softly. Every cat has whiskers."
FINANCE = "The stock market fell today. Investors sold their shares. Prices on the market recovered."
COOKING = "Boil the pasta in salted water. Simmer the sauce slowly."
TEXT = f"{CATS} {FINANCE}\n\n{COOKING}"


def test_adjacent_similarities_hand_computed():
    np.testing.assert_allclose(adjacent_similarities(np.array([[1.0, 0.0], [0.0, 1.0], [3.0, 4.0]])), [0.0, 0.8])
    np.testing.assert_allclose(adjacent_similarities(np.array([[1.0, 0.0], [0.0, 0.0]])), [0.0])
    assert adjacent_similarities(np.ones((1, 3))).shape == (0,)


def test_breakpoints_use_the_threshold_quantile():
    similarities = np.array([0.9, 0.1, 0.5, 0.3])
    # sorted 0.1 0.3 0.5 0.9: the 0.5 quantile lies halfway between 0.3 and 0.5
    breaks, cutoff = breakpoints(similarities, 0.5)
    assert breaks == [1, 3] and cutoff == pytest.approx(0.4)
    assert breakpoints(similarities, 0.0) == ([], pytest.approx(0.1))  # nothing lies below the minimum
    assert breakpoints(similarities, 1.0)[0] == [1, 2, 3]
    assert breakpoints(np.array([]), 0.25) == ([], None)


def test_groups_break_where_the_topic_changes():
    chunks = split(TEXT, SemanticConfig(threshold=0.25, size=1000, overlap=0), embed_sentences=topic_embedder)
    assert [c.text for c in chunks] == [CATS, FINANCE, COOKING]
    # similarities are 1 1 0.2 1 1 0.2 1; their 0.25 quantile is 0.2 + 0.5 * 0.8 = 0.6
    assert [c.metadata["breakpoint_similarity"] for c in chunks] == [None, pytest.approx(0.2), pytest.approx(0.2)]
    assert all(c.metadata["threshold_similarity"] == pytest.approx(0.6) for c in chunks)
    assert [c.metadata["semantic_group"] for c in chunks] == [0, 1, 2]


def test_threshold_zero_keeps_one_group():
    chunks = split(TEXT, SemanticConfig(threshold=0.0, size=1000, overlap=0), embed_sentences=topic_embedder)
    assert [c.text for c in chunks] == [TEXT]


def test_groups_longer_than_size_are_split_and_only_their_first_part_marks_the_break():
    chunks = split(TEXT, SemanticConfig(threshold=0.25, size=40, overlap=0), embed_sentences=topic_embedder)
    assert all(len(c.text) <= 40 for c in chunks)
    finance = [c for c in chunks if c.metadata["semantic_group"] == 1]
    assert [c.text for c in finance] == [
        "The stock market fell today.",
        "Investors sold their shares.",
        "Prices on the market recovered.",
    ]
    assert [c.metadata["breakpoint_similarity"] for c in finance] == [pytest.approx(0.2), None, None]


def test_embedder_must_return_one_row_per_sentence():
    with pytest.raises(ValueError, match="one row per sentence"):
        split(TEXT, SemanticConfig(), embed_sentences=lambda texts: np.ones((1, 4)))


def test_config_from_chunking_and_validation():
    config = SemanticConfig.from_chunking(ChunkingConfig(threshold=0.4, size=300, overlap=30))
    assert config == SemanticConfig(threshold=0.4, size=300, overlap=30)
    with pytest.raises(ValueError, match="chunking.threshold"):
        SemanticConfig(threshold=1.5)
