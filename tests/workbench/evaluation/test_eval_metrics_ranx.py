"""Our metrics agree with ranx to 1e-6 on real rankings of a SciFact slice, at both levels.

The rankings come from real evaluation runs (BM25 and hybrid) over the slice. ranx ranks by
score, so it is fed 1/rank (strictly decreasing) to reproduce our order exactly, and the same
judgements (document grades, or the judged chunks at span level). A second golden set gives
the items grades 1-3 so graded gains are checked too.
"""

from __future__ import annotations

import zlib
from dataclasses import replace

import pytest

from workbench.evaluation.runner import document_judgements, evaluate_collection, judge_for, span_judgements

# ranx compiles each metric with numba on its first use: about 45 CPU-seconds on a fresh virtualenv,
# which has no compiled cache yet. Interpreted, the same functions give the same values on this
# slice in a few seconds. numba reads the switch when ranx's functions are decorated, so before the import.
numba = pytest.importorskip("numba")
numba.config.DISABLE_JIT = True
ranx = pytest.importorskip("ranx")

OUR_TO_RANX = {
    "ndcg@10": "ndcg@10",
    "ndcg@3": "ndcg@3",
    "map@100": "map@100",
    "mrr@10": "mrr@10",
    "recall@10": "recall@10",
    "recall@100": "recall@100",
    "precision@5": "precision@5",
    "hit@10": "hit_rate@10",
}


def graded(golden):
    """The same queries with each item's grade set to 1, 2 or 3 (stable per query and document)."""
    queries = []
    for query in golden.queries:
        items = tuple(
            replace(item, grade=1 + zlib.crc32(f"{query.id}/{item.doc}".encode()) % 3) for item in query.relevant
        )
        queries.append(replace(query, relevant=items))
    return replace(golden, queries=tuple(queries), name="graded")


def ranx_scores(result, judgements: dict[str, dict]) -> dict[str, dict[str, float]]:
    """Per query id, ranx's value of each metric for the run's stored rankings."""
    level = result.level
    qrels = {qid: {str(k): int(g) for k, g in rel.items()} for qid, rel in judgements.items() if rel}
    run = {}
    for q in result.per_query:
        if q.query_id not in qrels:
            continue
        ranking = q.ranked_doc_ids if level == "doc" else [str(c) for c in q.ranked_chunk_ids]
        # a dummy last entry keeps every query's run non-empty (ranx rejects empty ones); it
        # never matches a judgement, so no metric changes
        run[q.query_id] = {
            **{unit: 1.0 / rank for rank, unit in enumerate(ranking, start=1)},
            "__none__": 1.0 / (len(ranking) + 2),
        }
    ranx_run = ranx.Run(run)
    ranx.evaluate(ranx.Qrels(qrels), ranx_run, list(OUR_TO_RANX.values()), make_comparable=True)
    return {qid: {ours: float(ranx_run.scores[theirs][qid]) for ours, theirs in OUR_TO_RANX.items()} for qid in qrels}


def check_against_ranx(result, judgements):
    expected = ranx_scores(result, judgements)
    assert len(expected) >= 50  # a real sample, not a handful
    for q in result.per_query:
        if q.query_id in expected:
            for name, value in expected[q.query_id].items():
                assert q.metrics[name] == pytest.approx(value, abs=1e-6), (q.query_id, name)
    # and the averages, over the queries ranx sees (every evaluated query has a judgement here)
    evaluated = [q for q in result.per_query if q.query_id in expected]
    assert len(evaluated) == len(result.per_query)
    for name in OUR_TO_RANX:
        mean = sum(expected[q.query_id][name] for q in evaluated) / len(evaluated)
        assert result.metrics[name] == pytest.approx(mean, abs=1e-6)


@pytest.mark.parametrize("mode", ["bm25", "hybrid"])
@pytest.mark.parametrize("grades", ["binary", "graded"])
def test_document_level_matches_ranx(scifact_slice, mode, grades):
    bench, collection = scifact_slice.bench, scifact_slice.collection
    golden = scifact_slice.golden if grades == "binary" else graded(scifact_slice.golden)
    config = bench.config_for(collection).with_value("retrieval.mode", mode)
    result = evaluate_collection(bench, collection, golden, config, level="doc", metric_names=list(OUR_TO_RANX))
    judge = judge_for(bench, collection, config)
    judgements = {q.id: document_judgements(q, judge.names) for q in golden.queries}
    assert result.metrics["ndcg@10"] > 0.3  # the rankings are real, not noise
    check_against_ranx(result, judgements)


@pytest.mark.parametrize("grades", ["binary", "graded"])
def test_span_level_matches_ranx(scifact_slice, grades):
    bench, collection = scifact_slice.bench, scifact_slice.collection
    golden = scifact_slice.golden if grades == "binary" else graded(scifact_slice.golden)
    config = bench.config_for(collection).with_value("retrieval.mode", "bm25")
    result = evaluate_collection(bench, collection, golden, config, level="span", metric_names=list(OUR_TO_RANX))
    judge = judge_for(bench, collection, config)
    judgements = {q.id: span_judgements(q, judge) for q in golden.queries if q.has_spans}
    assert result.skipped and all(s.reason.startswith("no span") for s in result.skipped)
    assert sum(1 for rel in judgements.values() if len(rel) > 1) > 10  # several relevant chunks per query
    check_against_ranx(result, judgements)
