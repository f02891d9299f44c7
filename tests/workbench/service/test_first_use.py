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

        self.queries: list[str] = []

    def snapshot(self, collection, config):
        self.snapshots.append(collection)

    def embed_query_cost_ms(self, model, text):
        """What embedding the query took: 12.5 ms, as if it was embedded ahead while the page drew."""
        self.query_vectors.append((model, text))
        return 12.5

    def query(self, text, collection, config):
        self.queries.append(text)


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
            "first en query on these indexes (lazy loads)",
        ]
        assert cost.steps[2].ms == 12.5  # the embedding's own time, however long the page waited for it
        assert bench.queries == ["what is rrf?"]  # one untimed run for both sides, logged nowhere
        # the next query: the model is warm, only its vector is new
        again = warm_up(bench, "notes", "bm25?", [config])
        assert [step.what for step in again.steps] == ["load the indexes of notes", "embed the query"]
        assert embedders[0].calls == [["warm up"]]
        # a BM25-only side needs no vectors
        assert [
            s.what for s in warm_up(FakeBench(), "other", "q", [config.with_value("retrieval.mode", "bm25")]).steps
        ] == ["load the indexes of other", "first en query on these indexes (lazy loads)"]
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


FIRST_CHINESE_QUERY = """
import json, sys
from workbench.service.first_use import warm_up
from workbench.service import Workbench

bench = Workbench(sys.argv[1])
config = bench.config_for("mixed").with_value("retrieval.mode", "bm25")
steps = {}
for query in ("检索增强生成怎么回答问题？", "混合检索的排名如何融合？", "How are ranks fused?"):
    steps[query] = [step.what for step in warm_up(bench, "mixed", query, [config, config]).steps]
print(json.dumps(steps, ensure_ascii=False))
"""


def test_the_first_chinese_query_loads_the_segmenter_before_either_side_is_timed(tmp_path):
    """In a fresh process, as a new server meets it: jieba's dictionary and the first query of each
    language on the indexes are first-use cost, not side A's BM25 time."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from workbench.ingestion.ingest import Source
    from workbench.service import Workbench

    home = tmp_path / "home"
    notes = {
        "zh.md": "# 检索\n\n检索增强生成先检索相关段落，再让模型根据这些段落回答问题。混合检索融合两种排名。\n",
        "en.md": "# Fusion\n\nReciprocal rank fusion adds one over k plus rank for every list a chunk is in.\n",
    }
    report = Workbench(home).ingest("mixed", [Source.from_markdown(name, text) for name, text in notes.items()])
    assert not report.failures
    project = Path(__file__).resolve().parents[3]
    output = subprocess.run(
        [sys.executable, "-c", FIRST_CHINESE_QUERY, str(home)],
        capture_output=True,
        text=True,
        check=True,
        cwd=project,
        env={**__import__("os").environ, "PYTHONPATH": str(project)},
    ).stdout
    steps = json.loads(output.strip().splitlines()[-1])
    first, second, english = steps.values()
    assert first == [
        "load the indexes of mixed",
        "load the Chinese word segmenter (jieba)",
        "first zh query on these indexes (lazy loads)",
    ]
    assert second == ["load the indexes of mixed"]  # loaded once per process, and per language
    assert english == ["load the indexes of mixed", "first en query on these indexes (lazy loads)"]
