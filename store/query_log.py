"""The query log: each process appends to its own JSONL file; the catalog gathers them later.

A query must never wait for the catalog (another process's ingest may hold it for minutes), so
the query path only appends one line to this process's file under ``<home>/query_log/``. Reading
the log (``log list``, ``golden from-log``) first folds every file into the ``query_log`` table,
one transaction, from where the previous fold stopped (``query_log_files``). A file whose process
has exited is removed once it is folded.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from store.catalog import Catalog, single_int

log = logging.getLogger(__name__)

QUERY_LOG_DIR = "query_log"


@dataclass(frozen=True)
class LoggedQuery:
    logged_at: datetime  # UTC
    source: str  # lab, cli, mcp
    collection: str
    query: str
    config_hash: str
    chunk_ids: tuple[int, ...]


@dataclass(frozen=True)
class QueryCount:
    query: str
    count: int
    last_at: datetime
    sources: tuple[str, ...]


class QueryLogFile:
    """This process's log file: one JSON line per query, appended with a single ``write``."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self._lock = threading.Lock()
        self._path: Path | None = None
        self._pid = 0

    @property
    def path(self) -> Path:
        if self._path is None or self._pid != os.getpid():  # a forked child gets a file of its own
            self._pid = os.getpid()
            self._path = self.folder / f"{self._pid}-{secrets.token_hex(4)}.jsonl"
        return self._path

    def append(self, entry: LoggedQuery) -> None:
        """Append one entry. Raises ``OSError`` when the folder cannot be written."""
        line = (
            json.dumps(
                {
                    "at": entry.logged_at.isoformat(),
                    "source": entry.source,
                    "collection": entry.collection,
                    "query": entry.query,
                    "config": entry.config_hash,
                    "chunks": list(entry.chunk_ids),
                },
                ensure_ascii=False,
            )
            + "\n"
        )
        data = line.encode("utf-8")
        with self._lock:
            path = self.path
            path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(descriptor, data)
            finally:
                os.close(descriptor)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _file_pid(path: Path) -> int | None:
    head = path.stem.split("-", 1)[0]
    return int(head) if head.isdigit() else None


def _parse(line: bytes) -> tuple | None:
    try:
        data = json.loads(line)
        return (
            datetime.fromisoformat(data["at"]).replace(tzinfo=None),
            str(data["source"]),
            str(data["collection"]),
            str(data["query"]),
            str(data["config"]),
            [int(c) for c in data["chunks"]],
        )
    except (ValueError, KeyError, TypeError) as error:
        log.warning("query log: skipping a malformed line (%s)", error)
        return None


def fold(catalog: Catalog, folder: Path) -> int:
    """Move what the log files gained since the last fold into the catalog; returns the new entries."""
    import pandas as pd

    folder = Path(folder)
    files = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
    added = 0
    with catalog.connect() as con:
        folded = dict(con.execute("SELECT log_file, folded_bytes FROM query_log_files").fetchall())
        for path in files:
            start = int(folded.get(path.name, 0))
            try:
                with path.open("rb") as handle:
                    size = os.fstat(handle.fileno()).st_size
                    if size < start:  # truncated by a purge since: start over
                        start = 0
                    handle.seek(start)
                    data = handle.read(size - start)
            except FileNotFoundError:
                continue
            complete = data[: data.rfind(b"\n") + 1]  # a line being written is left for the next fold
            rows, offset = [], start
            for line in complete.splitlines(keepends=True):
                parsed = _parse(line) if line.strip() else None
                if parsed is not None:
                    rows.append((path.name, offset, *parsed))
                offset += len(line)
            if rows:
                frame = pd.DataFrame(
                    rows,
                    columns=[
                        "log_file",
                        "line_offset",
                        "logged_at",
                        "source",
                        "collection",
                        "query",
                        "config_hash",
                        "chunk_ids",
                    ],
                )
                con.register("_query_log_rows", frame)
                con.execute(
                    "INSERT OR IGNORE INTO query_log SELECT log_file, line_offset, logged_at, source,"
                    " collection, query, config_hash, CAST(chunk_ids AS BIGINT[]) FROM _query_log_rows"
                )
                con.unregister("_query_log_rows")
                added += len(rows)
            end = start + len(complete)
            pid = _file_pid(path)
            if end == size and pid is not None and pid != os.getpid() and not _process_alive(pid):
                path.unlink(missing_ok=True)
                con.execute("DELETE FROM query_log_files WHERE log_file = ?", [path.name])
            else:
                con.execute("INSERT OR REPLACE INTO query_log_files VALUES (?, ?)", [path.name, end])
    return added


def purge(catalog: Catalog, folder: Path) -> int:
    """Empty the log: the catalog's entries and every process's file. Returns the entries removed."""
    folder = Path(folder)
    fold(catalog, folder)  # so the count below includes what only the files held
    with catalog.connect() as con:
        removed = single_int(con, "SELECT count(*) FROM query_log")
        con.execute("DELETE FROM query_log")
        con.execute("DELETE FROM query_log_files")
        for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
            pid = _file_pid(path)
            if pid is not None and pid != os.getpid() and not _process_alive(pid):
                path.unlink(missing_ok=True)
                continue
            try:
                # a live writer appends with O_APPEND, so it simply continues at the new, empty end
                os.truncate(path, 0)
            except FileNotFoundError:
                pass
    return removed


def _where(
    since: datetime | None, until: datetime | None, sources: tuple[str, ...], collection: str | None
) -> tuple[str, list[object]]:
    clauses: list[str] = []
    params: list[object] = []
    if since is not None:
        clauses.append("logged_at >= ?")
        params.append(since)
    if until is not None:
        clauses.append("logged_at < ?")
        params.append(until)
    if sources:
        clauses.append(f"source IN ({', '.join('?' for _ in sources)})")
        params.extend(sources)
    if collection:
        clauses.append("collection = ?")
        params.append(collection)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def entries(
    catalog: Catalog,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    sources: tuple[str, ...] = (),
    collection: str | None = None,
    limit: int = 100,
) -> list[LoggedQuery]:
    """Logged queries, newest first (fold first to include what the files hold)."""
    where, params = _where(since, until, sources, collection)
    with catalog.connect() as con:
        rows = con.execute(
            f"SELECT logged_at, source, collection, query, config_hash, chunk_ids FROM query_log{where}"
            " ORDER BY logged_at DESC, log_file, line_offset DESC LIMIT ?",
            params + [limit],
        ).fetchall()
    return [LoggedQuery(r[0], r[1], r[2], r[3], r[4], tuple(r[5])) for r in rows]


def count(catalog: Catalog) -> int:
    with catalog.connect() as con:
        return single_int(con, "SELECT count(*) FROM query_log")


def query_counts(
    catalog: Catalog,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    sources: tuple[str, ...] = (),
    collection: str | None = None,
) -> list[QueryCount]:
    """Distinct queries (whitespace collapsed), most frequent first, then most recent."""
    where, params = _where(since, until, sources, collection)
    with catalog.connect() as con:
        rows = con.execute(
            "SELECT regexp_replace(trim(query), '\\s+', ' ', 'g') AS text, count(*) AS n, max(logged_at) AS last,"
            f" list(DISTINCT source ORDER BY source) FROM query_log{where} GROUP BY text HAVING text <> ''"
            " ORDER BY n DESC, last DESC, text",
            params,
        ).fetchall()
    return [QueryCount(text, int(n), last, tuple(sources_)) for text, n, last, sources_ in rows]
