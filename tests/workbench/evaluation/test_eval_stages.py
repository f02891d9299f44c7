"""Per-stage metrics from a hand-made trace: rankings at both levels and the pool ceiling."""

from __future__ import annotations

import math

import pytest

from workbench.evaluation.stages import (
    POOL_RECALL,
    POOL_SIZE,
    average_stage_metrics,
    document_keys,
    ranked_documents,
    stage_metrics,
    stage_rankings,
)
from workbench.retrieval.ranking import RankedList
from workbench.retrieval.trace import ChunkView, StageTrace, Trace


def view(chunk_id: int, doc_id: int, source: str, external_id: str | None = None) -> ChunkView:
    return ChunkView(chunk_id, doc_id, source, external_id, "md", source, (), None, 0, 1, "x")


CHUNKS = {1: view(1, 10, "a.md"), 2: view(2, 10, "a.md"), 3: view(3, 20, "b.md", "B"), 4: view(4, 30, "c.md")}


def ranked(name: str, chunk_ids: list[int]) -> RankedList:
    return RankedList.from_ordered(name, [(c, CHUNKS[c].doc_id, 1.0 / (i + 1)) for i, c in enumerate(chunk_ids)])


def trace() -> Trace:
    stages = (
        StageTrace("dense", {}, ranked("dense", [4, 2, 1, 3]), 1.0),
        StageTrace("bm25", {}, ranked("bm25", [1, 2]), 1.0),
        StageTrace("fusion", {}, ranked("fusion", [1, 4, 2, 3]), 1.0),
        StageTrace("final", {}, ranked("final", [1, 4]), 0.0),
    )
    return Trace("q", "c", {}, stages, CHUNKS, 2.0)


def test_documents_rank_where_their_best_chunk_ranks_named_by_external_id():
    assert ranked_documents(ranked("x", [2, 3, 1, 4]), document_keys(CHUNKS)) == ["a.md", "B", "c.md"]


def test_rankings_at_each_level():
    assert stage_rankings(trace(), "doc") == {
        "dense": ["c.md", "a.md", "B"],
        "bm25": ["a.md"],
        "fusion": ["a.md", "c.md", "B"],
        "final": ["a.md", "c.md"],
    }
    assert stage_rankings(trace(), "span")["fusion"] == [1, 4, 2, 3]
    with pytest.raises(ValueError, match="unknown evaluation level"):
        stage_rankings(trace(), "page")


def test_stage_metrics_and_the_pool_recall_ceiling():
    relevant = {"B": 1, "a.md": 1}
    table = stage_metrics(stage_rankings(trace(), "doc"), relevant, ["recall@1", "ndcg@2"])
    # dense: c, a, B -> recall@1 0; ndcg@2 = (1/log2 3) / (1 + 1/log2 3); the pool holds both
    assert table["dense"]["recall@1"] == 0.0
    assert table["dense"]["ndcg@2"] == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3)))
    assert table["dense"][POOL_RECALL] == 1.0 and table["dense"][POOL_SIZE] == 3.0
    # bm25 never saw B: its ceiling is 1/2, and the final top 2 lost B again
    assert table["bm25"][POOL_RECALL] == 0.5
    assert table["final"][POOL_RECALL] == 0.5 and table["final"]["recall@1"] == 0.5


def test_averages_over_queries_per_stage():
    first = {"dense": {"x": 1.0}, "rerank": {"x": 0.5}}
    second = {"dense": {"x": 0.0}}
    assert average_stage_metrics([first, second]) == {"dense": {"x": 0.5}, "rerank": {"x": 0.5}}
