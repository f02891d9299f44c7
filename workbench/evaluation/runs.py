"""Evaluation runs in the catalog: every evaluation stored with its config, metrics and per-query results.

A stored run is everything needed to trust and reproduce a number later: the full
configuration it ran, the golden set and level, the averaged and per-stage metrics, and each
query's metrics and ranking (which is what a comparison between two runs pairs up).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict

from store import evaluation_runs as stored_runs
from store.catalog import Catalog
from store.runs_repository import QueryResultRow, RunRow, SweepRow
from workbench.evaluation.abstention import AbstentionReport
from workbench.evaluation.intervals import MeanInterval, metric_intervals
from workbench.evaluation.runner import EvaluationResult, QueryResult, SkippedQuery


def save_run(
    catalog: Catalog,
    result: EvaluationResult,
    *,
    label: str = "",
    overrides: dict[str, object] | None = None,
    sweep_id: int | None = None,
) -> int:
    """Store ``result`` (one transaction) and return its run id; also sets ``result.run_id``."""
    rows = [
        QueryResultRow(
            q.query_id,
            q.query,
            q.metrics,
            q.ranked_doc_ids,
            q.ranked_chunk_ids,
            q.relevant,
            q.stage_metrics,
            q.verdict,
            q.answer,
        )
        for q in result.per_query
    ]
    stored = stored_runs.save_run(
        catalog,
        collection=result.collection,
        golden=result.golden,
        level=result.level,
        label=label or result.label,
        config=result.config,
        overrides=overrides or {},
        metrics=result.metrics,
        stage_metrics=result.stage_metrics,
        evaluated_top_k=result.evaluated_top_k,
        skipped=[asdict(s) for s in result.skipped],
        notes=result.notes,
        elapsed_s=result.elapsed_s,
        sweep_id=sweep_id,
        results=rows,
        abstention=result.abstention.to_dict() if result.abstention else None,
        golden_hash=result.golden_hash or None,
        inputs=result.inputs or None,
    )
    result.run_id = stored.id
    result.label = stored.label
    result.created_at = stored.created_at.isoformat(timespec="seconds")
    return stored.id


def load_run(catalog: Catalog, run_id: int) -> EvaluationResult:
    return _result(*stored_runs.load_run(catalog, int(run_id)))


def _result(row: RunRow, results: list[QueryResultRow]) -> EvaluationResult:
    return EvaluationResult(
        collection=row.collection,
        golden=row.golden,
        level=row.level,
        config=row.config,
        metrics=row.metrics,
        per_query=[
            QueryResult(
                r.query_id,
                r.query,
                r.metrics,
                r.ranked_doc_ids,
                r.ranked_chunk_ids,
                r.relevant,
                r.stage_metrics,
                r.verdict,
                r.answer,
            )
            for r in results
        ],
        elapsed_s=row.elapsed_s,
        stage_metrics=row.stage_metrics,
        skipped=[SkippedQuery(**s) for s in row.skipped],
        notes=row.notes,
        evaluated_top_k=row.evaluated_top_k,
        run_id=row.id,
        label=row.label,
        created_at=row.created_at.isoformat(timespec="seconds"),
        abstention=AbstentionReport.from_dict(row.abstention) if row.abstention else None,
        golden_hash=row.golden_hash or "",
        inputs=row.inputs or {},
    )


def list_runs(
    catalog: Catalog,
    *,
    collection: str | None = None,
    golden: str | None = None,
    sweep_id: int | None = None,
    include_sweeps: bool = True,
    limit: int = 200,
) -> list[RunRow]:
    """Stored runs, newest first (metrics and config, without per-query rows)."""
    return stored_runs.list_runs(
        catalog, collection=collection, golden=golden, sweep_id=sweep_id, include_sweeps=include_sweeps, limit=limit
    )


def run_intervals(catalog: Catalog, metric_names: Mapping[int, Sequence[str]]) -> dict[int, dict[str, MeanInterval]]:
    """For each run id, its metrics ``metric_names[id]``, each with its 95% interval over the run's queries."""
    per_query = stored_runs.query_metrics(catalog, list(metric_names))
    return {run_id: metric_intervals(per_query.get(run_id, []), names) for run_id, names in metric_names.items()}


#: metrics per run shown with an interval in runs tables (the first ones the run measured)
SHOWN_WITH_INTERVAL = 3


def shown_metrics(rows: Sequence[RunRow]) -> dict[int, tuple[str, ...]]:
    return {row.id: tuple(list(row.metrics)[:SHOWN_WITH_INTERVAL]) for row in rows}


def list_sweeps(catalog: Catalog, collection: str | None = None, limit: int = 50) -> list[SweepRow]:
    """Stored sweeps, newest first, with their grid and summary (points, reuse, run ids)."""
    return stored_runs.list_sweeps(catalog, collection, limit)


def get_sweep(catalog: Catalog, sweep_id: int) -> SweepRow:
    return stored_runs.get_sweep(catalog, int(sweep_id))


def label_run(catalog: Catalog, run_id: int, label: str) -> None:
    stored_runs.label_run(catalog, int(run_id), label)


def delete_run(catalog: Catalog, run_id: int) -> None:
    stored_runs.delete_run(catalog, int(run_id))


def describe(row: RunRow | EvaluationResult) -> str:
    """A one-line name for a run in lists and pickers: id, label, collection/golden, level."""
    run_id = row.id if isinstance(row, RunRow) else row.run_id
    label = f" {row.label}" if row.label else ""
    return f"#{run_id}{label} - {row.collection}/{row.golden} ({row.level})"
