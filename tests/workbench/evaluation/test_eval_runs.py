"""Runs stored in the catalog: everything comes back, listing filters, deletion, clear errors."""

from __future__ import annotations

import pytest

from store.repository import NotFoundError
from workbench.evaluation.runner import evaluate_collection
from workbench.evaluation.runs import delete_run, describe, label_run, list_runs, load_run, save_run


def test_a_stored_run_loads_back_whole(eval_home):
    bench = eval_home.bench
    config = bench.config_for("notes").with_value("retrieval.mode", "bm25")
    result = evaluate_collection(
        bench, "notes", eval_home.golden(), config, level="span", metric_names=["ndcg@10", "recall@10"]
    )
    run_id = save_run(bench.catalog, result, label="bm25 span", overrides={"retrieval.mode": "bm25"})
    assert result.run_id == run_id and result.created_at

    loaded = load_run(bench.catalog, run_id)
    assert loaded.to_dict() == result.to_dict()
    assert loaded.per_query[1].ranked_chunk_ids == result.per_query[1].ranked_chunk_ids
    assert loaded.stage_metrics == result.stage_metrics and loaded.skipped == result.skipped
    assert describe(loaded) == f"#{run_id} bm25 span - notes/notes (span)"


def test_listing_labels_and_deleting(eval_home):
    bench = eval_home.bench
    config = bench.config_for("notes")
    first = evaluate_collection(bench, "notes", eval_home.golden(), config, metric_names=["ndcg@10"])
    second = evaluate_collection(bench, "notes", eval_home.golden(), config, metric_names=["ndcg@10"])
    a = save_run(bench.catalog, first)
    b = save_run(bench.catalog, second, sweep_id=99)
    assert [r.id for r in list_runs(bench.catalog)] == [b, a]
    assert [r.id for r in list_runs(bench.catalog, include_sweeps=False)] == [a]
    assert [r.id for r in list_runs(bench.catalog, sweep_id=99)] == [b]
    assert list_runs(bench.catalog, collection="other") == []
    label_run(bench.catalog, a, "baseline")
    assert load_run(bench.catalog, a).label == "baseline"
    delete_run(bench.catalog, b)
    with pytest.raises(NotFoundError, match=f"evaluation run {b} not found; run ids go up to {a}"):
        load_run(bench.catalog, b)


def test_unknown_run_on_an_empty_catalog(bench):
    with pytest.raises(NotFoundError, match="no runs stored yet"):
        load_run(bench.catalog, 1)
