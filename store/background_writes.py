"""Writes to the catalog made on a thread of their own, in the order given.

A commit costs the catalog 20-40 ms (the log written to disk); a person grading chunks by
keyboard should not wait for it between keys. What they gave is kept in memory by the caller and
stored here, one write after another. Whoever reads the catalog for what was written waits
first (``settle``), so a read never misses a write queued before it. A write that fails is
reported to whoever submitted it when they next ask (``failures``), never raised on the thread.

One queue per catalog file in a process: every session of the app shares it, so writes from two
sessions keep their order too. The queue is drained at interpreter exit.
"""

from __future__ import annotations

import atexit
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from store.catalog import Catalog

log = logging.getLogger(__name__)

#: how long interpreter exit waits for the writes still queued
DRAIN_AT_EXIT_S = 10.0


@dataclass(frozen=True)
class Write:
    """One write: what it does to the catalog, and how to name it when it fails."""

    apply: Callable[[Catalog], object]
    describe: str
    owner: object  # who hears of it when it fails (compared by equality: a name, a key)


class BackgroundWrites:
    """A catalog's queue of writes and the thread that applies them."""

    def __init__(self, catalog: Catalog):
        self._catalog = catalog
        self._queue: queue.Queue[Write] = queue.Queue()
        self._failures: list[tuple[object, str]] = []
        self._guard = threading.Lock()
        self._thread: threading.Thread | None = None

    def submit(self, apply: Callable[[Catalog], object], describe: str, owner: object = None) -> None:
        """Queue ``apply(catalog)``; it runs after every write submitted before it. Should it fail,
        ``failures(owner)`` says so, naming it by ``describe``."""
        self._queue.put(Write(apply, describe, owner))
        with self._guard:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name=f"catalog-writes {self._catalog.path}", daemon=True
                )
                self._thread.start()

    def settle(self) -> None:
        """Wait until every write submitted so far is applied (or has failed)."""
        self._queue.join()

    def failures(self, owner: object = None) -> list[str]:
        """What ``owner`` submitted that failed since it last asked, oldest first, each as
        "<describe> was not stored: <why>"."""
        with self._guard:
            failed = [message for who, message in self._failures if who == owner]
            self._failures = [(who, message) for who, message in self._failures if who != owner]
        return failed

    def _run(self) -> None:
        while True:
            write = self._queue.get()
            try:
                write.apply(self._catalog)
            except Exception as error:  # the caller hears of it through failures(), the thread lives on
                log.warning("%s was not stored: %s", write.describe, error)
                with self._guard:
                    self._failures.append((write.owner, f"{write.describe} was not stored: {error}"))
            finally:
                self._queue.task_done()


_QUEUES: dict[Path, BackgroundWrites] = {}
_QUEUES_GUARD = threading.Lock()


def background_writes(catalog: Catalog) -> BackgroundWrites:
    """The process's write queue for ``catalog``'s file (one per file, whichever handle asks)."""
    path = catalog.path.resolve()
    with _QUEUES_GUARD:
        if path not in _QUEUES:
            _QUEUES[path] = BackgroundWrites(catalog)
        return _QUEUES[path]


def _drain_at_exit() -> None:
    with _QUEUES_GUARD:
        queues = list(_QUEUES.values())
    for writes in queues:
        done = threading.Thread(target=writes.settle, daemon=True)
        done.start()
        done.join(DRAIN_AT_EXIT_S)


atexit.register(_drain_at_exit)
