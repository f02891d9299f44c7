"""A small real collection for the analysis tests: Markdown documents split at headings, indexed
with a deterministic bag-of-words embedder so no model loads and every vector is reproducible."""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path

import numpy as np
import pytest

from workbench.embedding.base import Embedder
from workbench.embedding.registry import register_embedder, unregister_embedder
from workbench.ingestion.ingest import Source
from workbench.service import Workbench

FAKE_MODEL = "analysis-test-bag-of-words"
COLLECTION = "lab"
DIMENSION = 48

DOCUMENTS = {
    "install.md": (
        "# Install\n\n"
        "## Linux\n\nInstall foo on Linux with apt-get install foo. The foo package needs Python 3.\n\n"
        "## Windows\n\nRun the foo installer on Windows and restart. Windows asks for admin rights.\n\n"
        "## macOS\n\nOn a Mac, brew install foo gets the latest release.\n"
    ),
    "faq.md": (
        "# FAQ\n\n"
        "## Why is foo slow?\n\nFoo is slow when its cache is cold; run foo warm to fill the cache.\n\n"
        "## Install problems\n\nIf apt-get install foo fails on Linux, run apt-get update and install foo again.\n"
    ),
    "usage.md": (
        "# Usage\n\n"
        "## Commands\n\nfoo --help lists every command; foo --version prints the version.\n\n"
        "## Configuration\n\nfoo reads foo.toml from the current folder, then from your home folder.\n"
    ),
    "linux-notes.md": (
        "# Linux notes\n\n"
        "## Installing\n\nOn Linux, install foo with apt-get install foo; the foo package needs Python 3.\n"
    ),
}

GOLDEN = [
    {
        "id": "q1",
        "query": "install foo on linux",
        "relevant": [{"doc": "install.md", "quote": "apt-get install foo", "grade": 2}, {"doc": "faq.md"}],
    },
    {"id": "q2", "query": "why is foo slow", "relevant": [{"doc": "faq.md", "quote": "cache is cold"}]},
]


class BagOfWordsEmbedder(Embedder):
    """Each word adds ±1 to a hashed dimension; a constant last dimension keeps vectors non-zero."""

    dimension = DIMENSION

    def __init__(self, name: str) -> None:
        self.name = name

    def embed(self, texts: list[str]) -> np.ndarray:
        vectors = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                code = zlib.crc32(word.encode("utf-8"))
                vectors[row, code % (DIMENSION - 1)] += 1.0 if (code >> 16) & 1 else -1.0
            vectors[row, DIMENSION - 1] = 0.5
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@pytest.fixture(scope="session")
def lab_workbench(tmp_path_factory: pytest.TempPathFactory) -> Workbench:
    register_embedder(FAKE_MODEL, BagOfWordsEmbedder)
    home = tmp_path_factory.mktemp("analysis-home")
    workbench = Workbench(home)
    config = workbench.config_for(None, overrides={"embedding.model": FAKE_MODEL, "chunking.strategy": "markdown"})
    workbench.create_collection(COLLECTION, config)
    report = workbench.ingest(COLLECTION, [Source.from_markdown(name, text) for name, text in DOCUMENTS.items()])
    assert not report.failures, report.summary()
    golden_dir = Path(home) / "golden_sets"
    golden_dir.mkdir()
    (golden_dir / "lab.jsonl").write_text("".join(json.dumps(q) + "\n" for q in GOLDEN), encoding="utf-8")
    yield workbench
    unregister_embedder(FAKE_MODEL)
