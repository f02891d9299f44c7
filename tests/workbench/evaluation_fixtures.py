"""Homes for the evaluation tests, built with a deterministic hashing embedder (no model load).

- ``eval_home``: four small Markdown documents and a golden set with document and span items.
- ``scifact_slice``: a real slice of SciFact (queries, their judged abstracts and distractors)
  imported through the BEIR reader, for checking metrics against ranx on real rankings.

The embedder is registered under its own name for the whole session, so the function-scoped
``fake_embedder`` fixture (which unregisters its model afterwards) cannot pull it away.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import HashingEmbedder, registered_hashing_embedder

EVAL_MODEL = "eval-hashing-embedder"
SCIFACT_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "scifact"
SLICE_QUERIES = 120
SLICE_DISTRACTORS = 200

ALPHA = """# Alpha guide

## Installing

Install the zebra toolkit with pip before anything else. It needs Python 3.11.

## Configuring

Set the walrus option to true when the cluster has more than eight nodes.
"""

BETA = """# Beta notes

Beta explains how the kestrel scheduler assigns jobs to queues. Queues drain in order.

The kestrel scheduler retries failed jobs three times.
"""

GAMMA = """# Gamma report

Quarterly numbers for the otter project went up. The otter team hired two people.
"""

DELTA = """# Delta overview

A short overview of nothing in particular: lemurs, pelicans and a note on tea.
"""

DOCUMENTS = {"alpha.md": ALPHA, "beta.md": BETA, "gamma.md": GAMMA, "delta.md": DELTA}


def span_of(markdown: str, text: str) -> tuple[int, int]:
    start = markdown.index(text)
    return start, start + len(text)


def golden_lines() -> list[dict]:
    walrus = span_of(ALPHA, "Set the walrus option to true")
    return [
        # document-level only: skipped at span level
        {"id": "d1", "query": "kestrel scheduler", "relevant": [{"doc": "beta.md", "grade": 2}]},
        # a span inside alpha's "Configuring" section
        {
            "id": "s1",
            "query": "walrus option",
            "relevant": [{"doc": "alpha.md"}, {"doc": "alpha", "start": walrus[0], "end": walrus[1], "grade": 2}],
        },
        # a quote, and a second document judged as a whole
        {
            "id": "s2",
            "query": "otter project numbers",
            "relevant": [{"doc": "gamma.md", "quote": "Quarterly numbers for the otter project"}, {"doc": "delta.md"}],
        },
        # names a document the collection does not hold
        {
            "id": "s3",
            "query": "zebra toolkit",
            "relevant": [
                {"doc": "alpha.md", "quote": "Install the zebra toolkit"},
                {"doc": "missing.md", "start": 0, "end": 5},
            ],
        },
    ]


@pytest.fixture(scope="session")
def eval_embedder() -> HashingEmbedder:
    with registered_hashing_embedder(EVAL_MODEL) as instance:
        yield instance


def eval_config(overrides: dict | None = None):
    from workbench.config import WorkbenchConfig

    config = WorkbenchConfig().with_overrides(
        [
            # fixed windows: chunk boundaries follow from the sizes alone, so tests can reason about them
            f"embedding.model={EVAL_MODEL}",
            "chunking.strategy=fixed",
            "chunking.size=80",
            "chunking.overlap=0",
            "dense.exact=true",
        ]
    )
    for key, value in (overrides or {}).items():
        config = config.with_value(key, value)
    return config


@dataclass
class EvalHome:
    bench: object
    collection: str
    golden_path: Path
    embedder: HashingEmbedder

    def golden(self):
        from workbench.evaluation import golden

        return golden.load(self.golden_path)


def build_eval_home(root: Path, embedder: HashingEmbedder) -> EvalHome:
    from workbench.ingestion.ingest import Source
    from workbench.service import Workbench

    bench = Workbench(root / "home")
    report = bench.ingest(
        "notes", [Source.from_markdown(name, text) for name, text in DOCUMENTS.items()], eval_config()
    )
    assert not report.failures, report.summary()
    path = bench.home / "golden_sets" / "notes.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in golden_lines()), encoding="utf-8")
    return EvalHome(bench, "notes", path, embedder)


@pytest.fixture
def eval_home(tmp_path, eval_embedder) -> EvalHome:
    return build_eval_home(tmp_path, eval_embedder)


@dataclass
class SciFactSlice:
    bench: object
    collection: str
    golden: object


@pytest.fixture(scope="session")
def scifact_slice(tmp_path_factory, eval_embedder) -> SciFactSlice:
    """The first SLICE_QUERIES SciFact test queries, their abstracts and SLICE_DISTRACTORS others."""
    if not (SCIFACT_DIR / "corpus.jsonl").exists():
        pytest.skip(f"SciFact is not at {SCIFACT_DIR}")
    from workbench.evaluation.golden import GoldenSet
    from workbench.ingestion.beir import corpus_sources, golden_set
    from workbench.service import Workbench

    sources, offsets = corpus_sources(SCIFACT_DIR)
    full = golden_set(SCIFACT_DIR, "scifact", offsets)
    queries = full.queries[:SLICE_QUERIES]
    judged = {item.doc for q in queries for item in q.relevant}
    distractors = [s for s in sources if s.external_id not in judged][:SLICE_DISTRACTORS]
    chosen = [s for s in sources if s.external_id in judged] + distractors
    bench = Workbench(tmp_path_factory.mktemp("scifact-slice") / "home")
    report = bench.ingest("scifact", chosen, eval_config({"chunking.size": 400, "chunking.overlap": 40}))
    assert not report.failures, report.summary()
    return SciFactSlice(bench, "scifact", GoldenSet("scifact-slice", queries))
