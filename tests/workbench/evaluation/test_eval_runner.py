"""Evaluation runs end to end on a tiny collection whose BM25 rankings are known.

Fixed windows of 80 characters (no overlap) over the four documents, and what BM25 returns:

- d1 "kestrel scheduler" (beta.md, grade 2; no spans)  -> beta only
- s1 "walrus option" (alpha.md + a span in "Configuring") -> alpha's "Configuring" chunk only
- s2 "otter project numbers" (quote in gamma + all of delta) -> gamma's first chunk
- s3 "zebra toolkit" (quote in alpha + a span in a missing document) -> alpha's first chunk
"""

from __future__ import annotations

import json
import math

import pytest

from workbench.config import ConfigError
from workbench.evaluation.runner import evaluate_collection, evaluation_config, judge_for
from workbench.evaluation.stages import POOL_RECALL, POOL_SIZE

METRICS = ["ndcg@10", "recall@10", "mrr@10", "precision@5"]
LOG3 = math.log2(3)


def bm25(home):
    return home.bench.config_for(home.collection).with_value("retrieval.mode", "bm25")


def test_document_level_scores_by_hand(eval_home):
    result = evaluate_collection(
        eval_home.bench, "notes", eval_home.golden(), bm25(eval_home), level="doc", metric_names=METRICS
    )
    per = {q.query_id: q for q in result.per_query}
    assert [q.ranked_doc_ids for q in result.per_query] == [["beta.md"], ["alpha.md"], ["gamma.md"], ["alpha.md"]]
    assert per["d1"].metrics == {"ndcg@10": 1.0, "recall@10": 1.0, "mrr@10": 1.0, "precision@5": 0.2}
    # s2 judges gamma and delta; only gamma is retrieved, at rank 1
    assert per["s2"].metrics["ndcg@10"] == pytest.approx(1 / (1 + 1 / LOG3))
    assert per["s2"].metrics["recall@10"] == 0.5
    # s3's missing.md is relevant but can never be retrieved
    assert per["s3"].metrics["recall@10"] == 0.5 and per["s3"].relevant == 2
    assert result.metrics["ndcg@10"] == pytest.approx((1 + 1 + 2 / (1 + 1 / LOG3)) / 4)
    assert any("missing.md" in note for note in result.notes)
    assert result.skipped == []


def test_span_level_counts_relevant_chunks_of_the_layout(eval_home):
    config = bm25(eval_home)
    result = evaluate_collection(
        eval_home.bench, "notes", eval_home.golden(), config, level="span", metric_names=METRICS
    )
    assert [s.query_id for s in result.skipped] == ["d1"]
    per = {q.query_id: q for q in result.per_query}
    judge = judge_for(eval_home.bench, "notes", config)
    chunks = {c.chunk_id: c for c in judge.chunks_of("gamma.md") + judge.chunks_of("delta.md")}
    # s2: the quote's chunk in gamma plus both delta chunks are relevant; BM25 ranks the quote's chunk first
    assert per["s2"].relevant == 3
    first, *rest = per["s2"].ranked_chunk_ids
    assert "Quarterly numbers for the otter project" in chunks[first].text
    assert all(chunks[c].source == "gamma.md" for c in rest)  # gamma's other chunk, if at all: not relevant
    assert per["s2"].metrics["ndcg@10"] == pytest.approx(1 / (1 + 1 / LOG3 + 1 / 2))
    assert per["s2"].metrics["recall@10"] == pytest.approx(1 / 3)
    # s1: alpha's document item is superseded by its span, which lies in one chunk
    assert per["s1"].relevant == 1 and per["s1"].metrics["ndcg@10"] == 1.0
    # s3: the span in missing.md matches no chunk and counts as one relevant chunk never retrieved
    assert per["s3"].relevant == 2 and per["s3"].metrics["recall@10"] == 0.5
    assert any("match no chunk" in note for note in result.notes)
    assert any("skipped 1 queries: no span judgements" in note for note in result.notes)


def test_rechunking_changes_units_not_judgements(eval_home):
    """The same golden set at span level on a coarser chunking: one chunk now holds alpha's span."""
    coarse = bm25(eval_home).with_value("chunking.size", 400)
    result = evaluate_collection(
        eval_home.bench, "notes", eval_home.golden(), coarse, level="span", metric_names=METRICS
    )
    per = {q.query_id: q for q in result.per_query}
    assert per["s1"].relevant == 1 and per["s1"].metrics["ndcg@10"] == 1.0
    assert per["s2"].relevant == 2  # gamma's one chunk and delta's one chunk


def test_every_stage_is_scored_and_the_pool_ceiling_reported(eval_home):
    config = eval_home.bench.config_for("notes")  # hybrid: dense, bm25, fusion, final
    result = evaluate_collection(
        eval_home.bench, "notes", eval_home.golden(), config, level="doc", metric_names=METRICS
    )
    assert list(result.stage_metrics) == ["dense", "bm25", "fusion", "final"]
    for row in result.stage_metrics.values():
        assert set(row) == {*METRICS, POOL_RECALL, POOL_SIZE}
    # the dense route ranks every chunk, so its pool holds all 4 documents and every judged one in it
    assert result.stage_metrics["dense"][POOL_SIZE] == 4.0
    assert result.stage_metrics["dense"][POOL_RECALL] == pytest.approx((1 + 1 + 1 + 0.5) / 4)
    assert result.stage_metrics["bm25"][POOL_SIZE] == 1.0
    assert result.stage_metrics["final"] == {**result.stage_metrics["final"], **{m: result.metrics[m] for m in METRICS}}


def test_only_top_k_is_raised_for_the_evaluation(eval_home):
    config = bm25(eval_home).with_value("retrieval.candidates", 7)
    deep = evaluation_config(config, ["ndcg@10", "recall@50"], "doc")
    assert deep.retrieval.top_k == 150 and deep.retrieval.candidates == 7
    assert deep.flat() == {**config.flat(), "retrieval.top_k": 150}
    assert evaluation_config(config, ["ndcg@10"], "span").retrieval.top_k == 10
    result = evaluate_collection(eval_home.bench, "notes", eval_home.golden(), config, metric_names=METRICS)
    assert result.config == config.to_dict() and result.evaluated_top_k == 30


def test_metrics_deeper_than_top_k_allows_name_the_limit(eval_home):
    config = bm25(eval_home)
    assert evaluation_config(config, ["recall@333"], "doc").retrieval.top_k == 999
    assert evaluation_config(config, ["recall@1000"], "span").retrieval.top_k == 1000
    with pytest.raises(
        ConfigError,
        match=r"metrics ndcg@10, recall@1000 at doc level read the first 3000 results "
        r"\(3 chunks per document\), more than retrieval.top_k allows \(1000\); "
        r"use smaller cutoffs \(at most 333 at doc level\) or the span level",
    ):
        evaluation_config(config, ["ndcg@10", "recall@1000"], "doc")


def test_json_shape_of_a_result(eval_home):
    result = evaluate_collection(eval_home.bench, "notes", eval_home.golden(), bm25(eval_home), metric_names=METRICS)
    data = json.loads(json.dumps(result.to_dict()))
    assert set(data["metrics"]) == set(METRICS)
    assert data["config"]["retrieval"]["mode"] == "bm25"
    assert {"query_id", "metrics", "ranked_doc_ids"} <= set(data["per_query"][0])


def test_unknown_level_is_refused(eval_home):
    with pytest.raises(ValueError, match="use doc or span"):
        evaluate_collection(eval_home.bench, "notes", eval_home.golden(), bm25(eval_home), level="chunk")


def test_mmr_and_rerank_stages_are_scored_too(eval_home, tiny_cross_encoder_dir):
    config = eval_home.bench.config_for("notes").with_overrides(
        ["mmr.enabled=true", f"rerank.model={tiny_cross_encoder_dir}", "rerank.top_m=5"]
    )
    result = evaluate_collection(
        eval_home.bench, "notes", eval_home.golden(), config, level="span", metric_names=METRICS
    )
    assert list(result.stage_metrics) == ["dense", "bm25", "fusion", "mmr", "rerank", "final"]
    # MMR and rerank only reorder: their pools hold what fusion handed them (MMR keeps its pool of 50)
    assert result.stage_metrics["rerank"][POOL_RECALL] == result.stage_metrics["fusion"][POOL_RECALL]


class _Unread(dict):
    """Chunk views that fail when read: evaluation must not need them."""

    def __getitem__(self, key):
        raise AssertionError("evaluation read a chunk view")

    get = __getitem__


@pytest.mark.parametrize("level", ["doc", "span"])
def test_evaluation_reads_ids_and_scores_only(eval_home, level):
    from dataclasses import replace

    from workbench.evaluation.runner import evaluate

    config = eval_home.bench.config_for("notes")  # hybrid: the fusion breakdown is never built either
    judge = judge_for(eval_home.bench, "notes", config)
    traces = []

    def lean_query(text, cfg):
        trace = eval_home.bench.query(text, "notes", cfg)
        traces.append(trace)
        return replace(trace, chunks=_Unread())

    lean = evaluate(lean_query, eval_home.golden(), config, "notes", judge, level=level, metric_names=METRICS)
    full = evaluate_collection(eval_home.bench, "notes", eval_home.golden(), config, level=level, metric_names=METRICS)
    assert lean.metrics == full.metrics and lean.stage_metrics == full.stage_metrics
    assert [q.ranked_doc_ids for q in lean.per_query] == [q.ranked_doc_ids for q in full.per_query]
    fusion_details = [trace.stage("fusion").details for trace in traces]
    assert fusion_details and not any(details.built for details in fusion_details)  # never formatted


def test_a_runs_time_counts_loading_and_embedding_the_queries(eval_home, monkeypatch):
    """Regression: a run header said "0.0 s" for a 5.6 s run (only the ranking loop was timed)."""
    import time

    bench = eval_home.bench
    embed = bench.embed_queries

    def slow_embed(model, texts):
        time.sleep(0.4)
        return embed(model, texts)

    monkeypatch.setattr(bench, "embed_queries", slow_embed)
    config = bench.config_for("notes").with_value("retrieval.mode", "dense")
    result = evaluate_collection(bench, "notes", eval_home.golden(), config, level="doc", metric_names=METRICS)
    assert result.elapsed_s >= 0.4
