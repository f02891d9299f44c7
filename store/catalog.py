"""The DuckDB catalog: schema migrations and short-lived connections.

DuckDB lets one process at a time hold a file read-write, so no process keeps a connection
open: each unit of work opens the file, does its work in one transaction and closes it. A run
of writes with no wait between them (an ingest's commits) keeps the file open across its
transactions (``kept_open``) and lets go whenever it waits or computes for long. A
process that finds the file locked by another waits and retries (``lock_timeout_s``); within a
process a lock serialises threads (Streamlit runs every session in its own thread). Readers on
the query path never come here: they read immutable index snapshots (see ``store.index_set``).

A process that serves people (the app) asks the catalog to ``hold_between`` units of work: the
file stays open for a moment after the last one, so a burst of small transactions (a page drawn,
a judging key) pays the opening and the checkpoint once, while another process still gets its
turn within ``HOLD_IDLE_S`` of the app going quiet, and within ``HOLD_MAX_S`` at the latest.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Generic, TypeVar

import duckdb

log = logging.getLogger(__name__)

_PROCESS_LOCKS: dict[Path, threading.RLock] = {}
_PROCESS_LOCKS_GUARD = threading.Lock()
#: held around each opening and closing of a catalog file, and nothing else. DuckDB shares one
#: open database among a process's connections to a file; a connection made while another thread
#: opens that database (the first connection) or closes it (the last) can find the Python client's
#: table functions missing, and its next Arrow insert fails ("Table Function with name
#: python_arrow_scan does not exist"; tests/store/test_catalog.py). A leaf lock: no other lock is
#: taken while it is held.
_OPENING = threading.Lock()


class CatalogBusyError(RuntimeError):
    """Another process held the catalog for longer than the lock timeout."""


def _process_lock(path: Path) -> threading.RLock:
    with _PROCESS_LOCKS_GUARD:
        return _PROCESS_LOCKS.setdefault(path, threading.RLock())


def _connect(path: Path) -> duckdb.DuckDBPyConnection:
    with _OPENING:
        return duckdb.connect(str(path))


def _close(connection: duckdb.DuckDBPyConnection) -> None:
    with _OPENING:
        connection.close()


#: a DuckDB file holds three 4 KiB header blocks from the moment it is made; a shorter one is being
#: made (or its making was cut short: empty)
HEADERS_BYTES = 3 * 4096


@contextlib.contextmanager
def _made_alone(path: Path) -> Iterator[None]:
    """While the catalog file is missing or shorter than its headers, one process at a time opens it.

    DuckDB makes a new file in two steps: it creates the file, then locks it and writes the
    headers. A process opening it between the two finds it empty and fails ("exists, but it is not
    a valid DuckDB database file"; 1 of 36 openings in tests/store/test_catalog.py before this),
    and that process's command with it. An exclusive ``flock`` on the home folder, taken only
    here, lets the maker finish first. An empty file found under it holds nothing (a making cut
    short by a crash) and would be refused by every opening: it is made again.
    """
    try:
        made = path.stat().st_size >= HEADERS_BYTES
    except FileNotFoundError:
        made = False
    if made:
        yield
        return
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        with contextlib.suppress(FileNotFoundError):
            if path.stat().st_size == 0:
                log.warning("catalog %s is empty (its making was cut short); making it again", path)
                path.unlink()
        yield
    finally:
        os.close(folder)  # lets go of the flock


def migrations() -> list[tuple[int, str, str]]:
    """Numbered ``NNN_name.sql`` files in ``store/migrations``, in order."""
    found = []
    for entry in resources.files("store.migrations").iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:3].isdigit():
            found.append((int(name[:3]), name[4:-4], entry.read_text(encoding="utf-8")))
    return sorted(found)


def single_int(con: duckdb.DuckDBPyConnection, sql: str, parameters: Sequence[object] = ()) -> int:
    """The one integer an aggregate query returns (``count(*)``, ``coalesce(max(...), 0)``)."""
    row = con.execute(sql, parameters).fetchone()
    if row is None:  # an aggregate without GROUP BY always returns a row: only a mistaken query gets here
        raise ValueError(f"expected one row from {sql!r}, got none")
    return int(row[0])


#: the catalog's file inside a workbench home
CATALOG_FILE_NAME = "catalog.duckdb"
#: a file changed less than this long ago may change again without its time stamp moving (the
#: file system stamps with a coarse clock): a read of it is not kept (git's "racily clean" entries)
RACY_S = 0.1

#: the catalog file and its write-ahead log as they are on disk: (name, inode, size, mtime) each
FileState = tuple[tuple[str, int, int, int], ...]
K = TypeVar("K")
V = TypeVar("V")
#: ``hold_between``: the file is let go this long after the last unit of work...
HOLD_IDLE_S = 1.0
#: ...or after this long held without a break, and not taken up again for ``HOLD_PAUSE_S``, so a
#: steady stream of clicks cannot keep a waiting ingest out
HOLD_MAX_S = 5.0
HOLD_PAUSE_S = 0.5


class _Hold:
    """One extra connection that keeps the file open in this process between units of work.

    DuckDB shares one open database among a process's connections to a file and closes it
    (checkpointing) when the last one closes; while this one is open, a unit of work connects and
    disconnects for about a millisecond. A daemon thread lets it go once it is idle or held too
    long; with nothing held the thread sleeps without a timeout, so an idle app costs nothing.
    """

    def __init__(self, path: Path, idle_s: float, max_s: float, pause_s: float):
        self._path, self._idle_s, self._max_s, self._pause_s = path, idle_s, max_s, pause_s
        self._held: duckdb.DuckDBPyConnection | None = None
        self._held_since = self._last_used = 0.0
        self._let_go_at = -pause_s
        self._wake = threading.Condition()
        threading.Thread(target=self._let_go_when_due, name=f"catalog-hold {path.name}", daemon=True).start()

    def touch(self) -> None:
        """A unit of work is running (the file is open): hold it past its end."""
        with self._wake:
            now = time.monotonic()
            self._last_used = now
            if self._held is None and now - self._let_go_at >= self._pause_s:
                self._held = _connect(self._path)  # the open database's, not a new opening
                self._held_since = now
                self._wake.notify()

    def _let_go_when_due(self) -> None:
        with self._wake:
            while True:
                if self._held is None:
                    self._wake.wait()
                    continue
                due = min(self._last_used + self._idle_s, self._held_since + self._max_s)
                now = time.monotonic()
                if now < due:
                    self._wake.wait(due - now)
                    continue
                _close(self._held)
                self._held, self._let_go_at = None, now


class KeptReads(Generic[K, V]):
    """Values read from a catalog, each kept while the catalog's files stay as they were when it
    was read (``Catalog.file_state``); a value read while a write landed is not kept."""

    def __init__(self) -> None:
        self._kept: dict[K, tuple[FileState, V]] = {}
        self._lock = threading.Lock()

    def get(self, catalog: Catalog, key: K, read: Callable[[], V]) -> V:
        before = catalog.file_state()
        with self._lock:
            kept = self._kept.get(key)
        if before is not None and kept is not None and kept[0] == before:
            return kept[1]
        value = read()
        if before is not None and catalog.file_state() == before:
            with self._lock:
                self._kept[key] = (before, value)
        return value

    def peek(self, catalog: Catalog, key: K) -> V | None:
        """The value kept for ``key`` if the catalog's files are as they were when it was read;
        None where ``get`` would read the catalog first. Costs a stat, never a read."""
        state = catalog.file_state()
        with self._lock:
            kept = self._kept.get(key)
        return kept[1] if state is not None and kept is not None and kept[0] == state else None


class Catalog:
    """A handle on the catalog file; holds no open connection between units of work.

    Only ``store`` opens transactions (``connect``): everything above calls the named functions
    of ``store.collections``, ``store.settings``, ``store.documents``, ``store.embedding_cache``
    and ``store.evaluation_runs``, each of which is one transaction.
    """

    @classmethod
    def in_home(cls, home: Path) -> Catalog:
        return cls(Path(home) / CATALOG_FILE_NAME)

    def __init__(self, path: Path, lock_timeout_s: float = 60.0):
        self.path = Path(path)
        self.lock_timeout_s = lock_timeout_s
        self._lock = _process_lock(self.path.resolve())
        self._migrated = False
        self._local = threading.local()
        self._hold: _Hold | None = None

    def file_state(self) -> FileState | None:
        """The catalog file and its write-ahead log as they are on disk, or None when either
        changed too recently (``RACY_S``) for the next change to be told from it.

        Every committed write changes one of them: the log grows, or a checkpoint rewrites the
        file and removes the log. Reading changes neither, so an equal state means equal contents.
        """
        state = []
        now = time.time_ns()
        for path in (self.path, self.path.with_name(self.path.name + ".wal")):
            try:
                found = path.stat()
            except FileNotFoundError:
                continue
            if now - found.st_mtime_ns < RACY_S * 1e9:
                return None
            state.append((path.name, found.st_ino, found.st_size, found.st_mtime_ns))
        return tuple(state)

    def hold_between(
        self, idle_s: float = HOLD_IDLE_S, max_s: float = HOLD_MAX_S, pause_s: float = HOLD_PAUSE_S
    ) -> None:
        """Keep the file open in this process for ``idle_s`` after each unit of work (at most
        ``max_s`` in a row, then a ``pause_s`` break for other processes). For a process that
        serves people, where many small transactions come in bursts; see the module's docstring."""
        if self._hold is None:
            self._hold = _Hold(self.path, idle_s, max_s, pause_s)

    @contextlib.contextmanager
    def connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A connection inside one transaction: committed on success, rolled back on error.

        Re-entrant within a thread: a nested ``connect()`` joins the outer transaction.
        """
        outer = getattr(self._local, "connection", None)
        if outer is not None:
            yield outer
            return
        with self._lock:
            connection = self._open()
            if self._hold is not None:
                self._hold.touch()
            self._local.connection = connection
            try:
                if not self._migrated:
                    self._migrate(connection)
                connection.execute("BEGIN TRANSACTION")
                try:
                    yield connection
                except BaseException:
                    connection.execute("ROLLBACK")
                    raise
                else:
                    connection.execute("COMMIT")
            finally:
                self._local.connection = None
                if self._hold is not None:
                    self._hold.touch()  # held from the end of the work, not its start
                _close(connection)

    @contextlib.contextmanager
    def kept_open(self) -> Iterator[KeptOpen]:
        """Keeps the file open in this process across the transactions made inside.

        Opening the file replays its log and closing it checkpoints: some 20-90 ms, against about
        1 ms for a transaction on a file this process already has open (DuckDB shares one open
        database among a process's connections). The file stays locked against other processes
        meanwhile, so hold it for a run of work, and ``let_go`` while waiting or computing.
        """
        kept = KeptOpen(self)
        try:
            yield kept
        finally:
            kept.close()

    def _open(self) -> duckdb.DuckDBPyConnection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + self.lock_timeout_s
        delay = 0.02
        while True:
            try:
                with _made_alone(self.path):
                    return _connect(self.path)
            except duckdb.IOException as error:
                if "lock" not in str(error).lower():
                    raise
                if time.monotonic() > deadline:
                    raise CatalogBusyError(
                        f"catalog {self.path} stayed locked by another process for "
                        f"{self.lock_timeout_s:.0f} s; wait for that ingest to finish or stop it"
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.25)

    def _migrate(self, connection: duckdb.DuckDBPyConnection) -> None:
        connection.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version INTEGER PRIMARY KEY, name VARCHAR NOT NULL,"
            " applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)"
        )
        applied = {row[0] for row in connection.execute("SELECT version FROM schema_migrations").fetchall()}
        for version, name, sql in migrations():
            if version in applied:
                continue
            log.info("applying catalog migration %03d_%s", version, name)
            connection.execute("BEGIN TRANSACTION")
            try:
                connection.execute(sql)
                connection.execute("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", [version, name])
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise
        self._migrated = True

    def schema_version(self) -> int:
        with self.connect() as con:
            return single_int(con, "SELECT coalesce(max(version), 0) FROM schema_migrations")


class KeptOpen:
    """The file held open by ``Catalog.kept_open``."""

    def __init__(self, catalog: Catalog):
        self._catalog = catalog
        self._connection: duckdb.DuckDBPyConnection | None = catalog._open()
        self._touch()

    @contextlib.contextmanager
    def let_go(self) -> Iterator[None]:
        """Closes the file for a long computation inside, so other processes get their turn."""
        self.close()
        yield
        self._connection = self._catalog._open()  # not after an error: the caller is unwinding

    def close(self) -> None:
        if self._connection is not None:
            self._touch()  # held from the end of the work, not its start
            _close(self._connection)
            self._connection = None

    def _touch(self) -> None:
        if self._catalog._hold is not None:
            self._catalog._hold.touch()
