"""Evaluation runs in the catalog: a run and its per-query rows are stored together or not at all."""

from __future__ import annotations

import pytest

from store import evaluation_runs as runs
from store.catalog import Catalog
from store.repository import NotFoundError
from store.runs_repository import QueryResultRow


def _save(catalog: Catalog, results: list, sweep_id: int | None = None):
    return runs.save_run(
        catalog,
        collection="kb",
        golden="g",
        level="doc",
        label="first",
        config={"retrieval.mode": "bm25"},
        overrides={},
        metrics={"ndcg@10": 0.5},
        stage_metrics={},
        evaluated_top_k=10,
        skipped=[],
        notes=[],
        elapsed_s=1.0,
        sweep_id=sweep_id,
        results=results,
    )


def test_a_run_is_stored_with_its_query_rows_and_can_be_relabelled_and_deleted(tmp_path):
    catalog = Catalog.in_home(tmp_path)
    row = _save(catalog, [QueryResultRow("q1", "what?", {"ndcg@10": 0.5}, ["d1"], [7], 1, {})])
    assert (row.label, row.queries, row.metrics) == ("first", 1, {"ndcg@10": 0.5})
    loaded, results = runs.load_run(catalog, row.id)
    assert loaded == row and [(r.query_id, r.ranked_chunk_ids) for r in results] == [("q1", [7])]
    runs.label_run(catalog, row.id, "baseline")
    assert runs.list_runs(catalog)[0].label == "baseline"
    runs.delete_run(catalog, row.id)
    with pytest.raises(NotFoundError, match=f"evaluation run {row.id} not found"):
        runs.load_run(catalog, row.id)


def test_a_run_whose_query_rows_fail_to_store_leaves_nothing_behind(tmp_path):
    catalog = Catalog.in_home(tmp_path)
    unstorable = QueryResultRow("q1", "what?", {"ndcg@10": object()}, [], [], 0, {})  # not JSON
    with pytest.raises(TypeError):
        _save(catalog, [unstorable])
    assert runs.list_runs(catalog) == []


def test_a_sweep_is_opened_then_finished_with_its_summary(tmp_path):
    catalog = Catalog.in_home(tmp_path)
    sweep_id = runs.start_sweep(
        catalog, collection="kb", golden="g", level="doc", base_config={}, grid={"a": [1]}, metrics=["ndcg@10"]
    )
    assert runs.get_sweep(catalog, sweep_id).status == "running"
    runs.finish_sweep(catalog, sweep_id, "done", {"points": 1})
    finished = runs.get_sweep(catalog, sweep_id)
    assert (finished.status, finished.summary) == ("done", {"points": 1})
    assert [s.id for s in runs.list_sweeps(catalog, "kb")] == [sweep_id] and runs.list_sweeps(catalog, "x") == []
