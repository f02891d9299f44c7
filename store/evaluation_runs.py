"""Evaluation runs and sweeps: each function is one catalog transaction.

A run and its per-query rows are written together or not at all (``save_run``).
"""

from __future__ import annotations

from store import runs_repository as runs_repo
from store.catalog import Catalog
from store.runs_repository import QueryResultRow, RunRow, SweepRow


def save_run(
    catalog: Catalog,
    *,
    collection: str,
    golden: str,
    level: str,
    label: str,
    config: dict,
    overrides: dict,
    metrics: dict,
    stage_metrics: dict,
    evaluated_top_k: int,
    skipped: list,
    notes: list,
    elapsed_s: float,
    sweep_id: int | None,
    results: list[QueryResultRow],
    abstention: dict | None = None,
    golden_hash: str | None = None,
    inputs: dict | None = None,
) -> RunRow:
    """Store a run with its per-query results and return the stored row (id, label, time)."""
    with catalog.connect() as con:
        run_id = runs_repo.insert_run(
            con,
            collection=collection,
            golden=golden,
            level=level,
            label=label,
            config=config,
            overrides=overrides,
            metrics=metrics,
            stage_metrics=stage_metrics,
            evaluated_top_k=evaluated_top_k,
            queries=len(results),
            skipped=skipped,
            notes=notes,
            elapsed_s=elapsed_s,
            sweep_id=sweep_id,
            abstention=abstention,
            golden_hash=golden_hash,
            inputs=inputs,
        )
        runs_repo.insert_query_results(con, run_id, results)
        return runs_repo.get_run(con, run_id)


def load_run(catalog: Catalog, run_id: int) -> tuple[RunRow, list[QueryResultRow]]:
    with catalog.connect() as con:
        row = runs_repo.get_run(con, run_id)
        return row, runs_repo.query_results(con, row.id)


def list_runs(
    catalog: Catalog,
    *,
    collection: str | None = None,
    golden: str | None = None,
    sweep_id: int | None = None,
    include_sweeps: bool = True,
    limit: int = 200,
) -> list[RunRow]:
    with catalog.connect() as con:
        return runs_repo.list_runs(
            con, collection=collection, golden=golden, sweep_id=sweep_id, include_sweeps=include_sweeps, limit=limit
        )


def query_metrics(catalog: Catalog, run_ids: list[int]) -> dict[int, list[dict[str, float]]]:
    with catalog.connect() as con:
        return runs_repo.query_metrics(con, run_ids)


def label_run(catalog: Catalog, run_id: int, label: str) -> None:
    with catalog.connect() as con:
        runs_repo.set_label(con, run_id, label)


def delete_run(catalog: Catalog, run_id: int) -> None:
    with catalog.connect() as con:
        runs_repo.delete_run(con, run_id)


def start_sweep(
    catalog: Catalog, *, collection: str, golden: str, level: str, base_config: dict, grid: dict, metrics: list
) -> int:
    with catalog.connect() as con:
        return runs_repo.insert_sweep(
            con, collection=collection, golden=golden, level=level, base_config=base_config, grid=grid, metrics=metrics
        )


def finish_sweep(catalog: Catalog, sweep_id: int, status: str, summary: dict) -> None:
    with catalog.connect() as con:
        runs_repo.finish_sweep(con, sweep_id, status, summary)


def get_sweep(catalog: Catalog, sweep_id: int) -> SweepRow:
    with catalog.connect() as con:
        return runs_repo.get_sweep(con, sweep_id)


def list_sweeps(catalog: Catalog, collection: str | None = None, limit: int = 50) -> list[SweepRow]:
    with catalog.connect() as con:
        return runs_repo.list_sweeps(con, collection, limit)
