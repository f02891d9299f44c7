"""Catalog reads and writes for evaluation runs and sweeps. All their SQL lives here.

Functions take an open connection, so ``store.evaluation_runs`` decides what one transaction
holds: a run and its per-query rows are written together or not at all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from store.repository import NotFoundError, insert_frame


@dataclass(frozen=True)
class RunRow:
    id: int
    collection: str
    golden: str
    level: str
    label: str
    config: dict
    overrides: dict
    metrics: dict
    stage_metrics: dict
    evaluated_top_k: int
    queries: int
    skipped: list
    notes: list
    elapsed_s: float
    sweep_id: int | None
    created_at: datetime
    abstention: dict | None = None  # counts of the confidence verdict against no-answer queries
    golden_hash: str | None = None  # content hash of the golden set (None for runs stored before it was kept)
    #: what else the numbers depend on: {"corpus": {"documents", "hash"}, "config_hash"} (None before it was kept)
    inputs: dict | None = None


@dataclass(frozen=True)
class QueryResultRow:
    query_id: str
    query: str
    metrics: dict
    ranked_doc_ids: list
    ranked_chunk_ids: list
    relevant: int
    stage_metrics: dict
    verdict: str | None = None  # relevant | ambiguous | no_answer
    answer: dict | None = None  # eval --answers: the generated answer, verdicts and cost


@dataclass(frozen=True)
class SweepRow:
    id: int
    collection: str
    golden: str
    level: str
    base_config: dict
    grid: dict
    metrics: list
    status: str
    summary: dict | None
    created_at: datetime
    finished_at: datetime | None


_RUN_COLUMNS = (
    "id, collection, golden, level, label, config, overrides, metrics, stage_metrics, evaluated_top_k,"
    " queries, skipped, notes, elapsed_s, sweep_id, created_at, abstention, golden_hash, inputs"
)
_JSON_RUN_FIELDS = (5, 6, 7, 8, 11, 12)
_ABSTENTION_FIELD = 16
_INPUTS_FIELD = 18


def _run(row) -> RunRow:
    values = list(row)
    for index in _JSON_RUN_FIELDS:
        values[index] = json.loads(values[index])
    values[_ABSTENTION_FIELD] = json.loads(values[_ABSTENTION_FIELD]) if values[_ABSTENTION_FIELD] else None
    values[_INPUTS_FIELD] = json.loads(values[_INPUTS_FIELD]) if values[_INPUTS_FIELD] else None
    return RunRow(*values)


def insert_run(
    con,
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
    queries: int,
    skipped: list,
    notes: list,
    elapsed_s: float,
    sweep_id: int | None = None,
    abstention: dict | None = None,
    golden_hash: str | None = None,
    inputs: dict | None = None,
) -> int:
    return con.execute(
        "INSERT INTO evaluation_runs (collection, golden, level, label, config, overrides, metrics, stage_metrics,"
        " evaluated_top_k, queries, skipped, notes, elapsed_s, sweep_id, abstention, golden_hash, inputs)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        [
            collection,
            golden,
            level,
            label,
            json.dumps(config),
            json.dumps(overrides),
            json.dumps(metrics),
            json.dumps(stage_metrics),
            evaluated_top_k,
            queries,
            json.dumps(skipped),
            json.dumps(notes),
            elapsed_s,
            sweep_id,
            json.dumps(abstention) if abstention is not None else None,
            golden_hash,
            json.dumps(inputs, sort_keys=True) if inputs else None,
        ],
    ).fetchone()[0]


def insert_query_results(con, run_id: int, rows: list[QueryResultRow]) -> None:
    if not rows:
        return
    import pandas as pd

    frame = pd.DataFrame(
        {
            "run_id": run_id,
            "position": list(range(1, len(rows) + 1)),
            "query_id": [r.query_id for r in rows],
            "query": [r.query for r in rows],
            "metrics": [json.dumps(r.metrics) for r in rows],
            "ranked_doc_ids": [json.dumps(r.ranked_doc_ids, ensure_ascii=False) for r in rows],
            "ranked_chunk_ids": [json.dumps(r.ranked_chunk_ids) for r in rows],
            "relevant": [r.relevant for r in rows],
            "stage_metrics": [json.dumps(r.stage_metrics) for r in rows],
            "verdict": [r.verdict for r in rows],
            "answer": [None if r.answer is None else json.dumps(r.answer, ensure_ascii=False) for r in rows],
        }
    )
    insert_frame(con, "evaluation_query_results", frame)


def find_run(con, run_id: int) -> RunRow | None:
    row = con.execute(f"SELECT {_RUN_COLUMNS} FROM evaluation_runs WHERE id = ?", [run_id]).fetchone()
    return _run(row) if row else None


def get_run(con, run_id: int) -> RunRow:
    found = find_run(con, run_id)
    if found is None:
        latest = con.execute("SELECT max(id) FROM evaluation_runs").fetchone()[0]
        hint = f"run ids go up to {latest}" if latest else "no runs stored yet"
        raise NotFoundError(f"evaluation run {run_id} not found; {hint} (list them with: python -m workbench runs)")
    return found


def query_results(con, run_id: int) -> list[QueryResultRow]:
    rows = con.execute(
        "SELECT query_id, query, metrics, ranked_doc_ids, ranked_chunk_ids, relevant, stage_metrics, verdict, answer"
        " FROM evaluation_query_results WHERE run_id = ? ORDER BY position",
        [run_id],
    ).fetchall()
    return [
        QueryResultRow(
            qid,
            text,
            json.loads(metrics),
            json.loads(docs),
            json.loads(chunks),
            relevant,
            json.loads(stages),
            verdict,
            json.loads(answer) if answer else None,
        )
        for qid, text, metrics, docs, chunks, relevant, stages, verdict, answer in rows
    ]


def query_metrics(con, run_ids: list[int]) -> dict[int, list[dict[str, float]]]:
    """Each run's per-query metrics (run id -> one dict per query), for intervals in a runs table."""
    found: dict[int, list[dict[str, float]]] = {run_id: [] for run_id in run_ids}
    if not run_ids:
        return found
    marks = ", ".join("?" for _ in run_ids)
    rows = con.execute(
        f"SELECT run_id, metrics FROM evaluation_query_results WHERE run_id IN ({marks}) ORDER BY run_id, position",
        list(run_ids),
    ).fetchall()
    for run_id, metrics in rows:
        found[run_id].append(json.loads(metrics))
    return found


def list_runs(
    con,
    *,
    collection: str | None = None,
    golden: str | None = None,
    sweep_id: int | None = None,
    include_sweeps: bool = True,
    limit: int = 200,
) -> list[RunRow]:
    clauses: list[str] = []
    params: list[object] = []
    if collection:
        clauses.append("collection = ?")
        params.append(collection)
    if golden:
        clauses.append("golden = ?")
        params.append(golden)
    if sweep_id is not None:
        clauses.append("sweep_id = ?")
        params.append(sweep_id)
    elif not include_sweeps:
        clauses.append("sweep_id IS NULL")
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    rows = con.execute(
        f"SELECT {_RUN_COLUMNS} FROM evaluation_runs{where} ORDER BY id DESC LIMIT ?", [*params, limit]
    ).fetchall()
    return [_run(r) for r in rows]


def set_label(con, run_id: int, label: str) -> None:
    get_run(con, run_id)
    con.execute("UPDATE evaluation_runs SET label = ? WHERE id = ?", [label, run_id])


def delete_run(con, run_id: int) -> None:
    get_run(con, run_id)
    con.execute("DELETE FROM evaluation_query_results WHERE run_id = ?", [run_id])
    con.execute("DELETE FROM evaluation_runs WHERE id = ?", [run_id])


# -- sweeps -------------------------------------------------------------------------------------

_SWEEP_COLUMNS = "id, collection, golden, level, base_config, grid, metrics, status, summary, created_at, finished_at"


def _sweep(row) -> SweepRow:
    values = list(row)
    for index in (4, 5, 6):
        values[index] = json.loads(values[index])
    values[8] = json.loads(values[8]) if values[8] else None
    return SweepRow(*values)


def insert_sweep(con, *, collection: str, golden: str, level: str, base_config: dict, grid: dict, metrics: list) -> int:
    return con.execute(
        "INSERT INTO evaluation_sweeps (collection, golden, level, base_config, grid, metrics)"
        " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
        [collection, golden, level, json.dumps(base_config), json.dumps(grid), json.dumps(metrics)],
    ).fetchone()[0]


def finish_sweep(con, sweep_id: int, status: str, summary: dict) -> None:
    con.execute(
        "UPDATE evaluation_sweeps SET status = ?, summary = ?, finished_at = current_timestamp WHERE id = ?",
        [status, json.dumps(summary), sweep_id],
    )


def get_sweep(con, sweep_id: int) -> SweepRow:
    row = con.execute(f"SELECT {_SWEEP_COLUMNS} FROM evaluation_sweeps WHERE id = ?", [sweep_id]).fetchone()
    if row is None:
        latest = con.execute("SELECT max(id) FROM evaluation_sweeps").fetchone()[0]
        hint = f"sweep ids go up to {latest}" if latest else "no sweeps stored yet"
        raise NotFoundError(f"sweep {sweep_id} not found; {hint}")
    return _sweep(row)


def list_sweeps(con, collection: str | None = None, limit: int = 50) -> list[SweepRow]:
    where, params = (" WHERE collection = ?", [collection]) if collection else ("", [])
    rows = con.execute(
        f"SELECT {_SWEEP_COLUMNS} FROM evaluation_sweeps{where} ORDER BY id DESC LIMIT ?", [*params, limit]
    ).fetchall()
    return [_sweep(r) for r in rows]
