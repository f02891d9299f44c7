"""Long tool calls run as jobs: a thread each, with a status, progress, cancel and a result by id.

Protocol-free: ``tasks.py`` maps a job onto the MCP Tasks extension. A job lives in this server
process, so any client (the one that started it after a reconnect, or another) reads it by id
until the server stops. The work a job does keeps its own durable state where the CLI keeps it:
a ``tune`` study stores every completed trial, so a job killed with the server continues with
``resume: true``, as ``tune --resume`` does.
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from workbench.mcp_server.foreground import FOREGROUND, Foreground

log = logging.getLogger(__name__)

WORKING, COMPLETED, FAILED, CANCELLED = "working", "completed", "failed", "cancelled"
TERMINAL = frozenset({COMPLETED, FAILED, CANCELLED})
#: how often a client should poll, in milliseconds (the Task's pollIntervalMs)
POLL_INTERVAL_MS = 500


class JobNotFoundError(LookupError):
    """No job has this id (a job lives until the server stops)."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Job:
    """One long call: what it is, how far it got, and how it ended."""

    job_id: str
    tool: str
    status: str = WORKING
    message: str = "started"
    created_at: str = field(default_factory=_now)
    updated_at: str = field(default_factory=_now)
    #: the tool's result (a CallToolResult as wire JSON) once completed
    result: dict[str, Any] | None = None
    #: the JSON-RPC error once failed
    error: dict[str, Any] | None = None
    cancel: threading.Event = field(default_factory=threading.Event, repr=False)
    done: threading.Event = field(default_factory=threading.Event, repr=False)

    def note(self, message: str) -> None:
        self.message = message
        self.updated_at = _now()


class Progress:
    """What a running tool reports: a line per step, whether it should stop, and ``pace``, which
    it calls between steps to let the calls being answered go first (``foreground.py``)."""

    def __init__(
        self,
        report: Callable[[str, float | None, float | None], None],
        cancel: threading.Event,
        pace: Callable[[], object] = lambda: None,
    ):
        self._report = report
        self.cancel = cancel
        self.pace = pace

    def __call__(self, message: str, done: float | None = None, total: float | None = None) -> None:
        self._report(message, done, total)


#: the progress of the tool call running in this context; tools read it with ``current_progress``
_PROGRESS: contextvars.ContextVar[Progress | None] = contextvars.ContextVar("workbench_mcp_progress", default=None)


def current_progress() -> Progress:
    """The running job's progress, or one that reports nothing and is never cancelled."""
    return _PROGRESS.get() or Progress(lambda message, done, total: None, threading.Event())


def with_progress(progress: Progress, work: Callable[[], Any]) -> Any:
    """Run ``work`` with ``progress`` as the current progress (in this thread's context)."""
    token = _PROGRESS.set(progress)
    try:
        return work()
    finally:
        _PROGRESS.reset(token)


class Jobs:
    """Every job this server started; ``task_tools`` names the tools that run as jobs, whose
    steps wait for the tool calls ``foreground`` counts."""

    def __init__(self, task_tools: frozenset[str], foreground: Foreground = FOREGROUND):
        self.task_tools = task_tools
        self.foreground = foreground
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def start(self, tool: str, run: Callable[[], tuple[dict[str, Any] | None, dict[str, Any] | None]]) -> Job:
        """Start ``run`` (which returns ``(result, error)``) in a thread under a new job."""
        job = Job(job_id=str(uuid.uuid4()), tool=tool)
        with self._lock:
            self._jobs[job.job_id] = job

        def report(message: str, done: float | None, total: float | None) -> None:
            job.note(message)

        def work() -> None:
            started = time.monotonic()
            try:
                result, error = with_progress(Progress(report, job.cancel, self.foreground.wait_turn), run)
            except BaseException as exc:  # a bug: the job fails with a message, the server stays up
                log.exception("job %s (%s) failed", job.job_id, tool)
                result, error = None, {"code": -32603, "message": f"{tool} failed: {exc}"}
            if job.cancel.is_set():
                job.status = CANCELLED
                job.note("cancelled; " + (_summary(result) or job.message))
            elif error is not None:
                job.status, job.error = FAILED, error
                job.note(str(error.get("message", "failed")))
            else:
                job.status, job.result = COMPLETED, result
                job.note(f"completed in {time.monotonic() - started:.1f} s")
            job.result = result if job.status != FAILED else None
            job.done.set()
            log.info("job %s (%s) %s", job.job_id, tool, job.status)

        threading.Thread(target=work, name=f"mcp-job-{tool}", daemon=True).start()
        log.info("job %s (%s) started", job.job_id, tool)
        return job

    def get(self, job_id: str) -> Job:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise JobNotFoundError(
                f"no task {job_id!r} on this server: task ids come from a tools/call answered with "
                "resultType 'task', and a task lives until the server stops"
            )
        return job

    def cancel(self, job_id: str) -> Job:
        job = self.get(job_id)
        if job.status not in TERMINAL:
            job.cancel.set()
            job.note("cancelling: stopping at the next step")
        return job


def _summary(result: dict[str, Any] | None) -> str:
    if not result:
        return ""
    content = result.get("content") or []
    return str(content[0].get("text", ""))[:200] if content else ""
