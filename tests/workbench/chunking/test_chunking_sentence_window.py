import pytest

from workbench.chunking.sentence_window import SentenceWindowConfig, split
from workbench.config import ChunkingConfig

TEXT = "Alpha one. Beta two. Gamma three. Delta four."


def test_each_sentence_gets_its_neighbours():
    chunks = split(TEXT, SentenceWindowConfig(window=1))
    assert [c.text for c in chunks] == [
        "Alpha one. Beta two.",
        "Alpha one. Beta two. Gamma three.",
        "Beta two. Gamma three. Delta four.",
        "Gamma three. Delta four.",
    ]
    assert [(c.metadata["sentence_start"], c.metadata["sentence_end"]) for c in chunks] == [
        (0, 10),
        (11, 20),
        (21, 33),
        (34, 45),
    ]
    assert [c.metadata["sentence_index"] for c in chunks] == [0, 1, 2, 3]


def test_window_zero_gives_plain_sentences_and_two_reaches_further():
    assert [c.text for c in split(TEXT, SentenceWindowConfig(window=0))] == [
        "Alpha one.",
        "Beta two.",
        "Gamma three.",
        "Delta four.",
    ]
    assert split(TEXT, SentenceWindowConfig(window=2))[0].text == "Alpha one. Beta two. Gamma three."


def test_size_limits_the_context_nearest_first():
    # "Alpha one. Beta two. Gamma three." is 33 characters; with size 25 only one neighbour fits.
    chunks = split(TEXT, SentenceWindowConfig(window=1, size=25))
    assert chunks[1].text == "Alpha one. Beta two."  # left neighbour first, the right one no longer fits
    assert all(len(c.text) <= 25 for c in chunks)


def test_sentence_longer_than_size_is_cut_into_parts():
    chunks = split("Short one. Long" + " word" * 20 + " end.", SentenceWindowConfig(window=0, size=30))
    assert chunks[0].text == "Short one."
    assert len(chunks) > 3 and all(len(c.text) <= 30 for c in chunks)


def test_config_from_chunking_and_validation():
    assert SentenceWindowConfig.from_chunking(ChunkingConfig(window=3, size=500)) == SentenceWindowConfig(3, 500)
    with pytest.raises(ValueError, match="chunking.window"):
        SentenceWindowConfig(window=-1)
