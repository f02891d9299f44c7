"""A home where one configuration is truly better, and a golden set where none is.

``lexicon_home``: 60 short Markdown notes, each naming one made-up code word among filler words
every note shares. The deterministic hashing embedder (64 buckets) drowns the code word in the
filler, while BM25 weighs it by its rarity: for a query naming the code word, BM25 ranks its note
first and dense retrieval mostly does not. Two golden sets:

- ``codes``: each query names a note's code word; its note is relevant (BM25 is truly better
  than dense);
- ``noise``: the same queries judged against a random other note (no configuration is better
  than another except by luck).
"""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import registered_hashing_embedder

TUNE_MODEL = "tune-hashing-embedder"
NOTES = 60
FILLER = (
    "river stone cloud lamp paper garden window letter harbor candle meadow orchard valley bridge tower "
    "market winter summer silver copper marble velvet amber forest island canyon glacier prairie lagoon"
).split()


def code_word(number: int) -> str:
    return f"zq{number:02d}{'abcdefghij'[number % 10]}x"


def note_text(number: int, rng: random.Random) -> str:
    words = rng.sample(FILLER, 24)
    words.insert(rng.randrange(len(words)), code_word(number))
    return f"# Note {number}\n\n{' '.join(words)}.\n"


def golden_lines(kind: str) -> list[dict]:
    rng = random.Random(11)
    lines = []
    for number in range(NOTES):
        query = f"{code_word(number)} {' '.join(rng.sample(FILLER, 3))}"
        target = number if kind == "codes" else rng.choice([n for n in range(NOTES) if n != number])
        lines.append({"id": f"q{number:02d}", "query": query, "relevant": [{"doc": f"note-{target:02d}.md"}]})
    return lines


def tune_config(overrides: list[str] | None = None):
    from workbench.config import WorkbenchConfig

    return WorkbenchConfig().with_overrides(
        [f"embedding.model={TUNE_MODEL}", "chunking.size=100", "chunking.overlap=0", "dense.exact=true"]
        + (overrides or [])
    )


@dataclass
class LexiconHome:
    home: Path
    collection: str = "lex"

    def bench(self):
        from workbench.service import Workbench

        return Workbench(self.home)


@pytest.fixture(scope="session")
def tune_embedder():
    with registered_hashing_embedder(TUNE_MODEL) as instance:
        yield instance


@pytest.fixture(scope="session")
def lexicon_template(tmp_path_factory, tune_embedder) -> Path:
    from workbench.ingestion.ingest import Source
    from workbench.service import Workbench

    home = tmp_path_factory.mktemp("lexicon") / "home"
    bench = Workbench(home)
    rng = random.Random(5)
    sources = [Source.from_markdown(f"note-{n:02d}.md", note_text(n, rng)) for n in range(NOTES)]
    report = bench.ingest("lex", sources, tune_config())
    assert not report.failures, report.summary()
    folder = home / "golden_sets"
    folder.mkdir(parents=True, exist_ok=True)
    for kind in ("codes", "noise"):
        (folder / f"{kind}.jsonl").write_text(
            "".join(json.dumps(line) + "\n" for line in golden_lines(kind)), encoding="utf-8"
        )
    return home


@pytest.fixture
def lexicon_home(tmp_path, lexicon_template) -> LexiconHome:
    """A fresh copy of the lexicon home for one test (studies and presets written there stay there)."""
    home = tmp_path / "home"
    shutil.copytree(lexicon_template, home)
    return LexiconHome(home)
