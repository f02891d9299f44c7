"""Questions before jobs: a long job's next step waits while the server is answering a tool call.

A ``tune`` or ``evaluate`` task runs its queries on a thread of this process, so it competes
with the agents' own ``query_knowledge_hub`` calls for the same interpreter (one GIL) and
cores. Left alone, a 40-trial ``tune`` took the p95 of eight clients' queries from about 50 ms
to 65-85 ms on two cores (``python bench/bench_mcp.py``). So every tool call the hub answers is
counted while it runs, and a job, between two of its queries, waits until none is, for at most
``max_wait_s``: under a steady stream of calls a job still makes a step every ``max_wait_s``,
and on a quiet server it never waits at all.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

#: the longest a job's step waits for the calls being answered to finish
DEFAULT_MAX_WAIT_S = 0.05


class Foreground:
    """The tool calls being answered now, and a wait for a moment without any."""

    def __init__(self, max_wait_s: float = DEFAULT_MAX_WAIT_S):
        if max_wait_s < 0:
            raise ValueError(f"a job's wait for the calls being answered must be 0 s or more, got {max_wait_s}")
        self.max_wait_s = max_wait_s
        self._answering = 0
        self._quiet = threading.Condition()

    @contextlib.contextmanager
    def answering(self) -> Iterator[None]:
        """Around one tool call: jobs wait while it runs."""
        with self._quiet:
            self._answering += 1
        try:
            yield
        finally:
            with self._quiet:
                self._answering -= 1
                if not self._answering:
                    self._quiet.notify_all()

    def wait_turn(self) -> bool:
        """Between a job's steps: wait until no call is being answered, at most ``max_wait_s``.
        True when the server is quiet, False when the wait ran out."""
        with self._quiet:
            return self._quiet.wait_for(lambda: not self._answering, timeout=self.max_wait_s)

    @property
    def answering_now(self) -> int:
        with self._quiet:
            return self._answering


#: this process's calls: the hub counts them, the jobs wait for them
FOREGROUND = Foreground()
