"""Catalog reads and writes, as functions over an open connection.

These are the statements (a chunk's are in ``chunks_repository``, an evaluation run's in
``runs_repository``); the store modules that own a transaction (``store.collections``,
``store.settings``, ``store.documents``) compose them into units of work. Nothing above ``store``
calls them directly, since it has no connection to pass.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

import duckdb


class NotFoundError(LookupError):
    """A named thing does not exist; the message lists what does."""


@dataclass(frozen=True)
class CollectionRow:
    id: int
    name: str
    config: dict
    default_preset: str
    generation: int
    created_at: datetime


@dataclass(frozen=True)
class DocumentRow:
    id: int
    collection_id: int
    source: str
    external_id: str | None
    sha256: str
    size_bytes: int
    doc_type: str
    title: str | None
    status: str
    error: str | None
    ingested_at: datetime
    #: what the parser could not read, or read by OCR (``{"images": [...]}``); None: nothing to say
    parse_report: dict | None = None
    chunk_count: int = 0


@dataclass(frozen=True)
class NewChunk:
    ordinal: int
    text: str
    indexed_text: str
    start: int
    end: int
    heading_path: tuple[str, ...]
    page: int | None
    content_hash: str
    token_count: int | None
    over_max_length: bool
    metadata: dict


def insert_frame(con, table: str, frame, *, or_ignore: bool = False) -> None:
    """Bulk-insert a pandas frame (or an Arrow table) whose columns are named after ``table``'s columns.

    DuckDB scans a registered frame directly, which is far faster than row-by-row inserts.
    """
    columns = ", ".join(getattr(frame, "column_names", None) or frame.columns)  # an Arrow table or a pandas frame
    view = f"_insert_{table}"
    con.register(view, frame)
    verb = "INSERT OR IGNORE" if or_ignore else "INSERT"
    # no ``finally``: a failed insert aborts the transaction, which then refuses the unregister
    # too and would hide the insert's own error (the connection is discarded on rollback anyway)
    con.execute(f"{verb} INTO {table} ({columns}) SELECT {columns} FROM {view}")
    con.unregister(view)


# -- collections ------------------------------------------------------------------------------

_COLLECTION_COLUMNS = "id, name, config, default_preset, generation, created_at"


def _collection(row) -> CollectionRow:
    return CollectionRow(row[0], row[1], json.loads(row[2]), row[3], row[4], row[5])


def list_collections(con: duckdb.DuckDBPyConnection) -> list[CollectionRow]:
    rows = con.execute(f"SELECT {_COLLECTION_COLUMNS} FROM collections ORDER BY name").fetchall()
    return [_collection(r) for r in rows]


def find_collection(con, name: str) -> CollectionRow | None:
    row = con.execute(f"SELECT {_COLLECTION_COLUMNS} FROM collections WHERE name = ?", [name]).fetchone()
    return _collection(row) if row else None


def get_collection(con, name: str) -> CollectionRow:
    found = find_collection(con, name)
    if found is None:
        known = ", ".join(c.name for c in list_collections(con)) or "none yet"
        raise NotFoundError(f"collection {name!r} not found; known: {known}")
    return found


def create_collection(con, name: str, config: dict) -> CollectionRow:
    con.execute("INSERT INTO collections (name, config) VALUES (?, ?)", [name, json.dumps(config)])
    return get_collection(con, name)


def delete_collection(con, collection_id: int) -> None:
    con.execute("DELETE FROM chunks WHERE collection_id = ?", [collection_id])
    con.execute("DELETE FROM chunksets WHERE collection_id = ?", [collection_id])
    con.execute("DELETE FROM documents WHERE collection_id = ?", [collection_id])
    con.execute("DELETE FROM collections WHERE id = ?", [collection_id])


def bump_generation(con, collection_id: int) -> int:
    return con.execute(
        "UPDATE collections SET generation = generation + 1 WHERE id = ? RETURNING generation", [collection_id]
    ).fetchone()[0]


def update_collection_config(con, collection_id: int, config: dict) -> None:
    con.execute("UPDATE collections SET config = ? WHERE id = ?", [json.dumps(config), collection_id])


def set_default_preset(con, collection_id: int, preset: str) -> None:
    con.execute("UPDATE collections SET default_preset = ? WHERE id = ?", [preset, collection_id])


def collection_counts(con) -> dict[int, tuple[int, int]]:
    """Per collection id: (successful documents, chunks in its default chunk set)."""
    docs = dict(
        con.execute(
            "SELECT collection_id, count(*) FROM documents WHERE status = 'success' GROUP BY collection_id"
        ).fetchall()
    )
    chunks = dict(
        con.execute(
            "SELECT c.collection_id, count(*) FROM chunks c JOIN chunksets s"
            " ON s.collection_id = c.collection_id AND s.key = c.chunkset"
            " WHERE s.created_at = (SELECT min(created_at) FROM chunksets t WHERE t.collection_id = s.collection_id)"
            " GROUP BY c.collection_id"
        ).fetchall()
    )
    return {cid: (docs.get(cid, 0), chunks.get(cid, 0)) for cid in set(docs) | set(chunks)}


# -- chunk sets -------------------------------------------------------------------------------


def chunksets(con, collection_id: int) -> dict[str, dict]:
    rows = con.execute(
        "SELECT key, config FROM chunksets WHERE collection_id = ? ORDER BY created_at", [collection_id]
    ).fetchall()
    return {key: json.loads(config) for key, config in rows}


def add_chunkset(con, collection_id: int, key: str, config: dict) -> None:
    con.execute(
        "INSERT OR IGNORE INTO chunksets (collection_id, key, config) VALUES (?, ?, ?)",
        [collection_id, key, json.dumps(config)],
    )


# -- documents --------------------------------------------------------------------------------

_DOC_COLUMNS = (
    "d.id, d.collection_id, d.source, d.external_id, d.sha256, d.size_bytes, d.doc_type, d.title,"
    " d.status, d.error, d.ingested_at, d.parse_report"
)


def _document_row(row: tuple) -> DocumentRow:
    (doc_id, collection_id, source, external_id, sha256, size_bytes, doc_type, title, status, error, ingested_at,
     report, chunk_count) = row  # fmt: skip
    return DocumentRow(
        doc_id,
        collection_id,
        source,
        external_id,
        sha256,
        size_bytes,
        doc_type,
        title,
        status,
        error,
        ingested_at,
        json.loads(report) if report else None,
        chunk_count,
    )


def documents(con, collection_id: int, chunkset: str | None = None) -> list[DocumentRow]:
    rows = con.execute(
        f"SELECT {_DOC_COLUMNS}, (SELECT count(*) FROM chunks c WHERE c.document_id = d.id"
        " AND (? IS NULL OR c.chunkset = ?)) FROM documents d WHERE d.collection_id = ? ORDER BY d.source",
        [chunkset, chunkset, collection_id],
    ).fetchall()
    return [_document_row(row) for row in rows]


def find_document(con, collection_id: int | None, ref: str) -> DocumentRow | None:
    """By numeric id, external id, or source name (in that order of preference)."""
    scope = "" if collection_id is None else " AND d.collection_id = ?"
    params_tail = [] if collection_id is None else [collection_id]
    queries: list[tuple[str, int | str]] = []
    if ref.strip().isdigit():
        queries.append(("d.id = ?", int(ref)))
    queries += [("d.external_id = ?", ref), ("d.source = ?", ref)]
    for clause, value in queries:
        row = con.execute(
            f"SELECT {_DOC_COLUMNS}, (SELECT count(*) FROM chunks c WHERE c.document_id = d.id)"
            f" FROM documents d WHERE {clause}{scope} ORDER BY d.id LIMIT 1",
            [value, *params_tail],
        ).fetchone()
        if row:
            return _document_row(row)
    return None


def document_markdown(con, doc_id: int) -> tuple[str, list[int]]:
    row = con.execute("SELECT markdown, page_starts FROM documents WHERE id = ?", [doc_id]).fetchone()
    if row is None:
        raise NotFoundError(f"document {doc_id} not found")
    return row[0] or "", list(row[1] or [])


def delete_document(con, doc_id: int) -> None:
    con.execute("DELETE FROM chunks WHERE document_id = ?", [doc_id])
    con.execute("DELETE FROM documents WHERE id = ?", [doc_id])


def insert_document(
    con,
    collection_id: int,
    *,
    source: str,
    external_id: str | None,
    sha256: str,
    size_bytes: int,
    doc_type: str,
    title: str | None,
    markdown: str | None,
    page_starts: list[int],
    status: str,
    error: str | None,
) -> int:
    return con.execute(
        "INSERT INTO documents (collection_id, source, external_id, sha256, size_bytes, doc_type, title,"
        " markdown, page_starts, status, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        [collection_id, source, external_id, sha256, size_bytes, doc_type, title, markdown, page_starts, status, error],
    ).fetchone()[0]


def success_documents_markdown(con, collection_id: int) -> list[tuple[int, str, list[int]]]:
    return con.execute(
        "SELECT id, markdown, page_starts FROM documents WHERE collection_id = ? AND status = 'success' ORDER BY id",
        [collection_id],
    ).fetchall()


def documents_without_chunks(con, collection_id: int, chunkset: str) -> list[tuple[int, str, list[int]]]:
    return con.execute(
        "SELECT d.id, d.markdown, d.page_starts FROM documents d WHERE d.collection_id = ? AND d.status = 'success'"
        " AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id AND c.chunkset = ?) ORDER BY d.id",
        [collection_id, chunkset],
    ).fetchall()


def insert_documents(con, collection_id: int, documents: list[dict]) -> list[int]:
    """Insert successful documents (dicts of ``insert_document``'s keywords but status and error)
    in one statement; their ids, row-aligned. Ids come from the table's own sequence."""
    if not documents:
        return []
    import pyarrow as pa

    ids = [row[0] for row in con.execute("SELECT nextval('document_ids') FROM range(?)", [len(documents)]).fetchall()]
    column = lambda key: [d[key] for d in documents]  # noqa: E731
    table = pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "collection_id": pa.array([collection_id] * len(documents), pa.int64()),
            "source": pa.array(column("source"), pa.string()),
            "external_id": pa.array(column("external_id"), pa.string()),
            "sha256": pa.array(column("sha256"), pa.string()),
            "size_bytes": pa.array(column("size_bytes"), pa.int64()),
            "doc_type": pa.array(column("doc_type"), pa.string()),
            "title": pa.array(column("title"), pa.string()),
            "markdown": pa.array(column("markdown"), pa.string()),
            "page_starts": pa.array([list(p or []) for p in column("page_starts")], pa.list_(pa.int32())),
            "status": pa.array(["success"] * len(documents), pa.string()),
            "parser_version": pa.array([d.get("parser_version") for d in documents], pa.int32()),
            "parse_report": pa.array(
                [json.dumps(d["parse_report"]) if d.get("parse_report") else None for d in documents], pa.string()
            ),
        }
    )
    insert_frame(con, "documents", table)
    return ids


def document_infos(con, collection_id: int) -> list[tuple]:
    return con.execute(
        "SELECT id, source, external_id, doc_type, coalesce(title, source) FROM documents"
        " WHERE collection_id = ? AND status = 'success' ORDER BY id",
        [collection_id],
    ).fetchall()


# -- ingestion history ------------------------------------------------------------------------


def start_run(con, collection_id: int, files_total: int) -> int:
    return con.execute(
        "INSERT INTO ingestion_runs (collection_id, status, files_total) VALUES (?, 'running', ?) RETURNING id",
        [collection_id, files_total],
    ).fetchone()[0]


def finish_run(con, run_id: int, *, status: str, parsed: int, skipped: int, failed: int, embedded: int) -> None:
    con.execute(
        "UPDATE ingestion_runs SET status = ?, finished_at = current_timestamp, parsed = ?, skipped = ?,"
        " failed = ?, chunks_embedded = ? WHERE id = ?",
        [status, parsed, skipped, failed, embedded, run_id],
    )


def record_event(con, run_id: int, source: str, sha256: str | None, outcome: str, reason: str | None) -> None:
    con.execute(
        "INSERT INTO ingestion_events (run_id, source, sha256, outcome, reason) VALUES (?, ?, ?, ?, ?)",
        [run_id, source, sha256, outcome, reason],
    )


def record_events(con, run_id: int, events: list[tuple[str, str | None, str]]) -> None:
    """Several (source, sha256, outcome) events without a reason, in one statement."""
    if not events:
        return
    import pyarrow as pa

    insert_frame(
        con,
        "ingestion_events",
        pa.table(
            {
                "run_id": pa.array([run_id] * len(events), pa.int64()),
                "source": pa.array([e[0] for e in events], pa.string()),
                "sha256": pa.array([e[1] for e in events], pa.string()),
                "outcome": pa.array([e[2] for e in events], pa.string()),
            }
        ),
    )


def last_runs(con) -> dict[int, tuple[str, int, int]]:
    """Per collection id, its latest ingestion run: (status, files planned, files recorded)."""
    rows = con.execute(
        "SELECT r.collection_id, r.status, r.files_total,"
        " (SELECT count(DISTINCT e.source) FROM ingestion_events e WHERE e.run_id = r.id)"
        " FROM ingestion_runs r WHERE r.id = (SELECT max(id) FROM ingestion_runs t"
        " WHERE t.collection_id = r.collection_id)"
    ).fetchall()
    return {collection_id: (status, total, recorded) for collection_id, status, total, recorded in rows}


def recent_runs(con, collection_id: int, limit: int = 20) -> list[tuple]:
    return con.execute(
        "SELECT id, started_at, finished_at, status, files_total, parsed, skipped, failed, chunks_embedded"
        " FROM ingestion_runs WHERE collection_id = ? ORDER BY id DESC LIMIT ?",
        [collection_id, limit],
    ).fetchall()


# -- presets ----------------------------------------------------------------------------------


def list_presets(con) -> list[tuple[str, dict, str, datetime, dict | None]]:
    """(name, overrides, description, updated at, provenance or None) per preset, by name."""
    rows = con.execute("SELECT name, config, description, updated_at, provenance FROM presets ORDER BY name").fetchall()
    return [
        (name, json.loads(config), description, updated, json.loads(provenance) if provenance else None)
        for name, config, description, updated, provenance in rows
    ]


def find_preset(con, name: str) -> dict | None:
    row = con.execute("SELECT config FROM presets WHERE name = ?", [name]).fetchone()
    return json.loads(row[0]) if row else None


def save_preset(con, name: str, overrides: dict, description: str = "", provenance: dict | None = None) -> None:
    con.execute(
        "INSERT OR REPLACE INTO presets (name, config, description, updated_at, provenance)"
        " VALUES (?, ?, ?, current_timestamp, ?)",
        [
            name,
            json.dumps(overrides, sort_keys=True),
            description,
            json.dumps(provenance, sort_keys=True) if provenance is not None else None,
        ],
    )


def delete_preset(con, name: str) -> None:
    con.execute("DELETE FROM presets WHERE name = ?", [name])
