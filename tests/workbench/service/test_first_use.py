"""The lab's first-use work: done once, before either side is timed, and reported apart."""

from __future__ import annotations

import numpy as np

from workbench.config import WorkbenchConfig
from workbench.embedding.base import Embedder
from workbench.embedding.registry import register_embedder, unregister_embedder
from workbench.service.first_use import FirstUseCost, FirstUseStep, warm_up


class CountingEmbedder(Embedder):
    dimension = 4

    def __init__(self, name: str):
        self.name = name
        self.calls: list[list[str]] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.ones((len(texts), 4), dtype=np.float32)


class FakeBench:
    def __init__(self):
        self.snapshots: list[str] = []
        self.query_vectors: list[tuple[str, str]] = []

    def snapshot(self, collection, config):
        self.snapshots.append(collection)

    def embed_query(self, model, text):
        self.query_vectors.append((model, text))


def test_the_one_off_work_is_done_once_for_both_sides_and_shown_apart():
    name = "first-use-counting"
    embedders: list[CountingEmbedder] = []
    register_embedder(name, lambda n: embedders.append(CountingEmbedder(n)) or embedders[-1])
    try:
        config = WorkbenchConfig().with_value("embedding.model", name)
        bench = FakeBench()
        cost = warm_up(bench, "notes", "what is rrf?", [config, config.with_value("mmr.enabled", True)])
        assert bench.snapshots == ["notes", "notes"]
        assert bench.query_vectors == [(name, "what is rrf?")]  # one query vector for both sides
        assert embedders[0].calls == [["warm up"]]  # the model's first run, once
        assert [step.what for step in cost.steps] == [
            "load the indexes of notes",
            f"load embedding model {name}",
            "embed the query",
        ]
        # the next query: the model is warm, only its vector is new
        again = warm_up(bench, "notes", "bm25?", [config])
        assert [step.what for step in again.steps] == ["load the indexes of notes", "embed the query"]
        assert embedders[0].calls == [["warm up"]]
        # a BM25-only side needs no vectors
        assert [
            s.what for s in warm_up(FakeBench(), "notes", "q", [config.with_value("retrieval.mode", "bm25")]).steps
        ] == ["load the indexes of notes"]
    finally:
        unregister_embedder(name)


def test_the_cost_reads_as_one_line_and_says_nothing_when_nothing_was_slow():
    cost = FirstUseCost(
        (
            FirstUseStep("load the indexes of demo", 120.4),
            FirstUseStep("embed the query", 0.2),
            FirstUseStep("load embedding model m", 980.0),
        )
    )
    assert cost.describe() == (
        "First-use cost, paid once before either side was timed (1,101 ms): load the indexes "
        "of demo 120 ms, load embedding model m 980 ms"
    )
    assert FirstUseCost((FirstUseStep("embed the query", 0.3),)).describe() == ""
