"""Judging pools and the judgements given on them. All their SQL lives here.

Each function is one unit of work: it opens the catalog, runs one transaction and closes it
(see ``store.catalog``). A judgement names its document and character span as well as the chunk
id, so an exported golden set still means the same text after the collection is re-chunked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from store.catalog import Catalog, single_int
from store.repository import NotFoundError, insert_frame


@dataclass(frozen=True)
class PoolItem:
    """One pooled chunk of one query, in the order the judge sees it."""

    query_position: int  # the query's place in its query set
    query_id: str
    query: str
    position: int  # the chunk's place in the query's shuffled pool
    chunk_id: int
    document: str  # external id or file name: how golden sets name documents
    start: int
    end: int


@dataclass(frozen=True)
class PoolRow:
    name: str
    collection: str
    query_set: str
    configs: list  # the configurations pooled: [{"name": ..., "overrides": {...}}, ...]
    depth: int
    seed: int
    created_at: datetime | None = None


@dataclass(frozen=True)
class Judgement:
    pool: str
    query_id: str
    query: str
    chunk_id: int
    document: str
    start: int
    end: int
    grade: int  # 0 not relevant .. 3 perfectly relevant
    judge: str  # a person's name, or "model@prompt-hash"
    reason: str | None = None
    judged_at: datetime | None = None  # set by the catalog when recorded


_JUDGEMENT_COLUMNS = (
    "pool, query_id, query, chunk_id, document, start_offset, end_offset, grade, judge, reason, judged_at"
)


def _known_pools(con) -> str:
    names = [row[0] for row in con.execute("SELECT name FROM pools ORDER BY name").fetchall()]
    return ", ".join(names) or "none yet (build one with: python -m workbench golden pool)"


def _pool_row(row) -> PoolRow:
    return PoolRow(row[0], row[1], row[2], json.loads(row[3]), row[4], row[5], row[6])


def save_pool(catalog: Catalog, pool: PoolRow, items: list[PoolItem], *, replace: bool = False) -> PoolRow:
    """Store a pool and its items. An existing pool of that name is an error unless ``replace``,
    which swaps its items and keeps the judgements already given (they are keyed by chunk)."""
    import pandas as pd

    frame = pd.DataFrame(
        {
            "pool": [pool.name] * len(items),
            "query_position": [i.query_position for i in items],
            "query_id": [i.query_id for i in items],
            "query": [i.query for i in items],
            "position": [i.position for i in items],
            "chunk_id": pd.array([i.chunk_id for i in items], dtype="int64"),
            "document": [i.document for i in items],
            "start_offset": pd.array([i.start for i in items], dtype="int32"),
            "end_offset": pd.array([i.end for i in items], dtype="int32"),
        }
    )
    with catalog.connect() as con:
        exists = single_int(con, "SELECT count(*) FROM pools WHERE name = ?", [pool.name])
        if exists and not replace:
            raise ValueError(
                f"pool {pool.name!r} exists already; pick another name, or replace it (its judgements are kept)"
            )
        con.execute("DELETE FROM pool_items WHERE pool = ?", [pool.name])
        con.execute("DELETE FROM pools WHERE name = ?", [pool.name])
        con.execute(
            "INSERT INTO pools (name, collection, query_set, configs, depth, seed) VALUES (?, ?, ?, ?, ?, ?)",
            [pool.name, pool.collection, pool.query_set, json.dumps(pool.configs), pool.depth, pool.seed],
        )
        if items:
            insert_frame(con, "pool_items", frame)
        row = con.execute(
            "SELECT name, collection, query_set, configs, depth, seed, created_at FROM pools WHERE name = ?",
            [pool.name],
        ).fetchone()
    return _pool_row(row)


def load_pool(catalog: Catalog, name: str) -> tuple[PoolRow, list[PoolItem]]:
    """The pool and its items (queries in set order, chunks in shuffled order)."""
    with catalog.connect() as con:
        row = con.execute(
            "SELECT name, collection, query_set, configs, depth, seed, created_at FROM pools WHERE name = ?", [name]
        ).fetchone()
        if row is None:
            raise NotFoundError(f"pool {name!r} not found; known: {_known_pools(con)}")
        rows = con.execute(
            "SELECT query_position, query_id, query, position, chunk_id, document, start_offset, end_offset"
            " FROM pool_items WHERE pool = ? ORDER BY query_position, position",
            [name],
        ).fetchall()
    return _pool_row(row), [PoolItem(*r) for r in rows]


def list_pools(catalog: Catalog) -> list[tuple[PoolRow, int, int]]:
    """Every pool with its item count and how many items have at least one judgement."""
    with catalog.connect() as con:
        rows = con.execute(
            "SELECT p.name, p.collection, p.query_set, p.configs, p.depth, p.seed, p.created_at,"
            " (SELECT count(*) FROM pool_items i WHERE i.pool = p.name),"
            " (SELECT count(DISTINCT (j.query_id, j.chunk_id)) FROM judgements j WHERE j.pool = p.name)"
            " FROM pools p ORDER BY p.name"
        ).fetchall()
    return [(_pool_row(r[:7]), int(r[7]), int(r[8])) for r in rows]


def record_judgement(catalog: Catalog, judgement: Judgement) -> Judgement:
    """Keep ``judgement``, replacing the same judge's earlier grade of that chunk; returns it as stored."""
    with catalog.connect() as con:
        if single_int(con, "SELECT count(*) FROM pools WHERE name = ?", [judgement.pool]) == 0:
            raise NotFoundError(f"pool {judgement.pool!r} not found; known: {_known_pools(con)}")
        con.execute(
            f"INSERT OR REPLACE INTO judgements ({_JUDGEMENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
            " current_timestamp)",
            [
                judgement.pool,
                judgement.query_id,
                judgement.query,
                judgement.chunk_id,
                judgement.document,
                judgement.start,
                judgement.end,
                judgement.grade,
                judgement.judge,
                judgement.reason,
            ],
        )
        row = con.execute(
            f"SELECT {_JUDGEMENT_COLUMNS} FROM judgements WHERE pool = ? AND query_id = ?"
            " AND chunk_id = ? AND judge = ?",
            [judgement.pool, judgement.query_id, judgement.chunk_id, judgement.judge],
        ).fetchone()
    if row is None:  # the row was written just above, in the same transaction
        raise RuntimeError(f"judgement of chunk {judgement.chunk_id} in pool {judgement.pool!r} was not stored")
    return Judgement(*row)


def record_judgements(catalog: Catalog, judgements: list[Judgement]) -> None:
    """Keep many judgements in one transaction (an LLM judge's batch); later ones replace earlier."""
    if not judgements:
        return
    with catalog.connect() as con:
        for judgement in judgements:
            con.execute(
                f"INSERT OR REPLACE INTO judgements ({_JUDGEMENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                " current_timestamp)",
                [
                    judgement.pool,
                    judgement.query_id,
                    judgement.query,
                    judgement.chunk_id,
                    judgement.document,
                    judgement.start,
                    judgement.end,
                    judgement.grade,
                    judgement.judge,
                    judgement.reason,
                ],
            )


def delete_judgement(catalog: Catalog, pool: str, query_id: str, chunk_id: int, judge: str) -> bool:
    """Remove one judge's grade of one chunk (undo); False when there was none."""
    with catalog.connect() as con:
        removed = con.execute(
            "DELETE FROM judgements WHERE pool = ? AND query_id = ? AND chunk_id = ? AND judge = ? RETURNING grade",
            [pool, query_id, int(chunk_id), judge],
        ).fetchall()
    return bool(removed)


def judgements_of(catalog: Catalog, pool: str, judge: str | None = None) -> list[Judgement]:
    """A pool's judgements (one judge's, or everyone's), oldest first."""
    where, params = "pool = ?", [pool]
    if judge is not None:
        where, params = where + " AND judge = ?", params + [judge]
    with catalog.connect() as con:
        rows = con.execute(
            f"SELECT {_JUDGEMENT_COLUMNS} FROM judgements WHERE {where} ORDER BY judged_at, query_id, chunk_id", params
        ).fetchall()
    return [Judgement(*row) for row in rows]
