"""Properties every strategy keeps, on a realistic fixture and on real SciFact abstracts."""

import json
import os
import re
import zlib
from pathlib import Path

import numpy as np
import pytest

from workbench.chunking import CHUNKERS, chunk_markdown
from workbench.chunking.headings import HeadingIndex
from workbench.chunking.tokens import HuggingFaceTokenSpans, TokenMeasure
from workbench.config import ChunkingConfig

os.environ.setdefault("HF_HUB_OFFLINE", "1")

FIXTURE = Path(__file__).parent / "data" / "field_guide.md"
REPO_ROOT = Path(__file__).resolve().parents[3]
SCIFACT_CORPUS = REPO_ROOT / ".." / "shared" / "datasets" / "scifact" / "corpus.jsonl"
EMBEDDING_DIMENSIONS = 64


def hashed_bag_of_words(texts: list[str]) -> np.ndarray:
    """A deterministic stand-in for a sentence encoder: word counts hashed into 64 buckets."""
    rows = np.zeros((len(texts), EMBEDDING_DIMENSIONS))
    for row, text in zip(rows, texts, strict=False):
        for word in re.findall(r"\w+", text.lower()):
            row[zlib.crc32(word.encode("utf-8")) % EMBEDDING_DIMENSIONS] += 1.0
        if not row.any():
            row[0] = 1.0  # punctuation-only sentences still get a unit vector
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def minilm() -> HuggingFaceTokenSpans:
    return HuggingFaceTokenSpans("all-MiniLM-L6-v2")


@pytest.fixture(scope="module")
def scifact_documents() -> list[str]:
    if not SCIFACT_CORPUS.is_file():
        pytest.skip(f"SciFact corpus not found at {SCIFACT_CORPUS.resolve()} (expected ../shared next to the repo)")
    documents = []
    with SCIFACT_CORPUS.open(encoding="utf-8") as corpus:
        for line in corpus:
            record = json.loads(line)
            documents.append(f"# {record['title']}\n\n{record['text']}\n")
            if len(documents) == 50:
                break
    return documents


# (strategy, unit, size, overlap): small sizes so every strategy really has to cut.
CASES = [
    ("fixed", "chars", 300, 50),
    ("fixed", "tokens", 64, 16),
    ("recursive", "chars", 300, 50),
    ("recursive", "tokens", 64, 16),
    ("markdown", "chars", 300, 50),
    ("markdown", "tokens", 64, 16),
    ("sentence_window", "chars", 300, 0),
    ("sentence_window", "tokens", 64, 0),
    ("semantic", "chars", 300, 50),
    ("semantic", "tokens", 64, 16),
    ("code", "chars", 300, 50),
    ("code", "tokens", 64, 16),
]


def check_invariants(markdown: str, strategy: str, unit: str, size: int, overlap: int, tokenizer) -> None:
    config = ChunkingConfig(strategy=strategy, unit=unit, size=size, overlap=overlap, window=1, threshold=0.25)
    chunks = chunk_markdown(markdown, config, tokens=tokenizer, embed_sentences=hashed_bag_of_words)
    assert chunks, f"{strategy}/{unit} produced no chunks"
    headings = HeadingIndex(markdown)
    measure = TokenMeasure(tokenizer.spans(markdown)) if unit == "tokens" else None
    for chunk in chunks:
        assert markdown[chunk.start : chunk.end] == chunk.text
        assert chunk.text.strip() and chunk.text == chunk.text.strip(), "chunk edges must not be whitespace"
        expected_path = headings.path_at(chunk.start)
        if chunk.metadata.get("code"):  # the code strategy names the function or class a chunk holds
            expected_path += (chunk.metadata["code"],)
        assert chunk.heading_path == expected_path
        if unit == "chars":
            assert len(chunk.text) <= size
        else:
            assert measure.length(chunk.start, chunk.end) <= size
            if strategy != "fixed":  # fixed windows may cut inside a word, where re-tokenising differs
                assert len(tokenizer.spans(chunk.text)) <= size
    starts = [chunk.start for chunk in chunks]
    assert starts == sorted(starts)
    repeated = chunk_markdown(markdown, config, tokens=tokenizer, embed_sentences=hashed_bag_of_words)
    assert [(c.start, c.end, c.metadata) for c in repeated] == [(c.start, c.end, c.metadata) for c in chunks]


@pytest.mark.parametrize(("strategy", "unit", "size", "overlap"), CASES)
def test_invariants_on_fixture(strategy, unit, size, overlap, minilm):
    check_invariants(FIXTURE.read_text(encoding="utf-8"), strategy, unit, size, overlap, minilm)


@pytest.mark.parametrize(("strategy", "unit", "size", "overlap"), CASES)
def test_invariants_on_scifact_abstracts(strategy, unit, size, overlap, minilm, scifact_documents):
    for document in scifact_documents:
        check_invariants(document, strategy, unit, size, overlap, minilm)


@pytest.mark.parametrize("strategy", sorted(CHUNKERS.names()))
def test_code_comment_never_starts_a_heading_path(strategy):
    markdown = FIXTURE.read_text(encoding="utf-8")
    chunks = chunk_markdown(
        markdown, ChunkingConfig(strategy=strategy, size=120, overlap=20), embed_sentences=hashed_bag_of_words
    )
    paths = {part for chunk in chunks for part in chunk.heading_path}
    assert not any("not a heading" in part for part in paths)
    assert paths == {
        "Field Guide to the Workbench",
        "Install",
        "Requirements",
        "Usage",
        "中文文档",
        "Advanced Settings",
        "Troubleshooting",
        "Appendix",
    }


def test_every_strategy_says_in_one_line_what_it_cuts_at():
    assert all(chunker.doc and "\n" not in chunker.doc for chunker in CHUNKERS)


@pytest.mark.parametrize("strategy", sorted(CHUNKERS.names()))
@pytest.mark.parametrize("markdown", ["", "   \n\n\t "])
def test_blank_markdown_gives_no_chunks(strategy, markdown):
    assert chunk_markdown(markdown, ChunkingConfig(strategy=strategy), embed_sentences=hashed_bag_of_words) == []


def test_errors_name_the_missing_piece():
    with pytest.raises(ValueError, match="chunking strategy 'paragraphs' not found; known: fixed, recursive"):
        chunk_markdown("text", ChunkingConfig(strategy="paragraphs"))
    with pytest.raises(ValueError, match="pass tokens=HuggingFaceTokenSpans"):
        chunk_markdown("", ChunkingConfig(strategy="recursive", unit="tokens"))
    with pytest.raises(ValueError, match="pass embed_sentences="):
        chunk_markdown("", ChunkingConfig(strategy="semantic"))
    with pytest.raises(ValueError, match="chunking.unit"):
        chunk_markdown("text", ChunkingConfig(strategy="fixed", unit="words"))
