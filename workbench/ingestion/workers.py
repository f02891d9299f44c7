"""Parse workers: each file is read, parsed and chunked in a worker process, within limits.

Parsing is where hostile input bites: a zip bomb, a PDF that sends pdfminer into a loop, a
spreadsheet with a million cells. Here it cannot take the ingest down with it:

* A pool of worker processes (``ingest.workers``; by default one per available CPU core, at
  most four) takes one file at a time. Each worker is a fresh interpreter in its own session
  (``python -c ...``, not a fork of the parent: the parent holds model threads and catalog
  handles no child should inherit), talking to the parent over a socket pair.
* The parent watches every busy worker. Past ``ingest.parse_timeout_s`` seconds, or past
  ``ingest.parse_memory_mb`` of resident memory (the worker and the programs it runs, such as
  tesseract), it kills the worker's process group and fails that file with a reason naming the
  limit and the setting that raises it; a fresh worker takes the next file. A worker that dies
  on its own (a crash in a C library) fails only its file as well.
* Inside the worker an address-space limit (``RLIMIT_AS``) backs up the memory watch for
  allocations too fast for a poll to catch: they fail with MemoryError, reported the same way.

A worker returns the canonical Markdown and, for every chunking that needs no embedding model
(all but ``semantic``, in characters), the chunks; the parent embeds while workers parse.
"""

from __future__ import annotations

import os
import resource
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.config import ChunkingConfig, IngestConfig
from workbench.ingestion.estimates import describe_estimate, estimate_chunks

if TYPE_CHECKING:  # for the annotations only: run_task and parse_source import these when they run
    from workbench.chunking.chunk import Chunk
    from workbench.ingestion.parsers import ParsedDocument

MB = 1024 * 1024
#: most workers a pool starts by default (parsing beyond this competes with the embedder)
MAX_DEFAULT_WORKERS = 4
#: how often the parent checks busy workers' clocks and memory
POLL_S = 0.05
REPO_ROOT = Path(__file__).resolve().parents[2]
#: a worker's first message for each task: it has the task and starts on it now
STARTED = "started"
#: how long a new worker may take to start (a fresh interpreter importing the parsers)
WORKER_START_TIMEOUT_S = 120.0
#: a worker is replaced after this many files (a fresh interpreter costs about 0.3 s of CPU, taken
#: from the encoder), or at once when a file left it above half the memory limit
TASKS_PER_WORKER = 1000


def default_worker_count() -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(MAX_DEFAULT_WORKERS, cores))


def worker_count(limits: IngestConfig) -> int:
    return limits.workers if limits.workers > 0 else default_worker_count()


@dataclass(frozen=True)
class ChunkPlan:
    """A chunking the worker runs for the parent (one per chunk set that needs no model)."""

    chunkset_key: str
    chunking: ChunkingConfig


@dataclass(frozen=True)
class ParseTask:
    key: int
    name: str
    limits: IngestConfig
    path: str | None = None
    data: bytes | None = None
    markdown: str | None = None
    doc_type: str | None = None
    plans: tuple[ChunkPlan, ...] = ()
    #: chunks embedded per second here, for the cost in a "too many chunks" reason
    chunk_rate: float | None = None


@dataclass(frozen=True)
class ParseOutcome:
    key: int
    name: str
    parsed: ParsedDocument | None = None
    chunks: dict[str, list[Chunk]] = field(default_factory=dict)  # chunkset key -> its chunks
    reason: str = ""
    elapsed_s: float = 0.0
    peak_rss_mb: float = 0.0

    @property
    def ok(self) -> bool:
        return self.parsed is not None


# -- what a worker does -------------------------------------------------------------------------


def run_task(task: ParseTask) -> ParseOutcome:
    """Parse and chunk one source (in whatever process calls it); failures become reasons."""
    from workbench.chunking import chunk_markdown
    from workbench.ingestion.parsers import ParseError

    started = time.perf_counter()
    try:
        parsed = parse_source(task)
        for plan in task.plans:
            estimated = estimate_chunks(len(parsed.markdown), plan.chunking)
            if estimated > task.limits.max_chunks:
                raise ParseError(
                    task.name,
                    (
                        f"{len(parsed.markdown):,} characters of text would make "
                        f"{describe_estimate(estimated, task.chunk_rate)}, over the limit of "
                        f"{task.limits.max_chunks:,} chunks per file (ingest.max_chunks); to ingest it "
                        f"anyway: --set ingest.max_chunks={estimated + estimated // 10}"
                    ),
                )
        chunks = {plan.chunkset_key: chunk_markdown(parsed.markdown, plan.chunking) for plan in task.plans}
    except ParseError as error:
        return ParseOutcome(task.key, task.name, reason=error.reason, elapsed_s=time.perf_counter() - started)
    except MemoryError:
        return ParseOutcome(
            task.key, task.name, reason=memory_reason(task.name, task.limits), elapsed_s=time.perf_counter() - started
        )
    except RecursionError:
        return ParseOutcome(
            task.key,
            task.name,
            reason="nested too deeply to read; flatten it or save it in a simpler format",
            elapsed_s=time.perf_counter() - started,
        )
    except Exception as error:  # a parser bug on odd input is still this file's problem only
        return ParseOutcome(
            task.key,
            task.name,
            reason=f"could not be read ({type(error).__name__}: {str(error)[:300]}); check the file",
            elapsed_s=time.perf_counter() - started,
        )
    return ParseOutcome(task.key, task.name, parsed=parsed, chunks=chunks, elapsed_s=time.perf_counter() - started)


def parse_source(task: ParseTask) -> ParsedDocument:
    from workbench.ingestion.parsers import ParsedDocument, first_heading, parse_bytes

    if task.markdown is not None:
        title = first_heading(task.markdown) or task.name
        return ParsedDocument(markdown=task.markdown, doc_type=task.doc_type or "md", title=title)
    if task.data is not None:
        data = task.data
    elif task.path is not None:
        data = Path(task.path).read_bytes()
    else:
        raise ValueError(f"parse task {task.name!r} carries no markdown, data or path; give it one")
    return parse_bytes(data, task.name, limits=task.limits)


def memory_reason(name: str, limits: IngestConfig) -> str:
    return (
        f"parsing needed more than {limits.parse_memory_mb:,} MB of memory (ingest.parse_memory_mb); "
        f"if the file is genuine, raise it with --set ingest.parse_memory_mb={limits.parse_memory_mb * 2}"
    )


def timeout_reason(name: str, limits: IngestConfig) -> str:
    return (
        f"parsing took longer than {limits.parse_timeout_s:g} s (ingest.parse_timeout_s) and was "
        f"stopped; if the file is genuine, raise it with --set ingest.parse_timeout_s={limits.parse_timeout_s * 4:g}"
    )


def worker_main(argv: list[str] | None = None) -> None:
    """A worker's life: take a task, answer with its outcome, until told to stop (None or EOF).

    ``argv``: the socket's file descriptor and the memory limit in MB.
    """
    fd, memory_mb = (argv or sys.argv[1:])[:2]
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    warnings.simplefilter("ignore")  # parsers' warnings about odd input: the outcome says what matters
    _limit_address_space(int(memory_mb))
    connection = Connection(int(fd))
    import workbench.chunking
    import workbench.ingestion.parsers  # noqa: F401

    while True:
        try:
            task = connection.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            connection.send(STARTED)  # the file's time limit runs from here
            outcome = run_task(task)
            # the parent samples memory every POLL_S; a file faster than that still reports where it ended
            connection.send(
                ParseOutcome(**{**outcome.__dict__, "peak_rss_mb": max(outcome.peak_rss_mb, resident_mb(os.getpid()))})
            )
        except OSError:  # the parent is gone (killed, say): nobody to answer
            return


def _limit_address_space(memory_mb: int) -> None:
    # Generous on top of what the process already maps (shared libraries, thread arenas): this is
    # the backstop for runaway allocations, the parent's RSS watch is the limit users see.
    try:
        mapped = _vm_kb(os.getpid(), "VmSize") * 1024
        ceiling = mapped + 2 * memory_mb * MB
        resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))
    except (ValueError, OSError):
        pass


def _vm_kb(pid: int, field_name: str) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith(field_name + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as listing:
            return [int(child) for child in listing.read().split()]
    except (OSError, ValueError):
        return []


def resident_mb(pid: int) -> float:
    """Resident memory of a process and its children (a worker and the tesseract it runs)."""
    total = _vm_kb(pid, "VmRSS")
    for child in _children(pid):
        total += _vm_kb(child, "VmRSS")
    return total / 1024


# -- the pool -----------------------------------------------------------------------------------


class WorkerStartError(RuntimeError):
    """A parse worker died before it took its file: the installation is broken, not the file."""

    def __init__(self, exit_code: int | None):
        super().__init__(
            f"a parse worker exited (code {exit_code}) before it could start on a file; this is a problem with the "
            f"installation, not with your files. See why with: {sys.executable} -c "
            "'import workbench.ingestion.workers, workbench.ingestion.parsers'"
        )


class _Slot:
    def __init__(self) -> None:
        # the worker: its process and the parent's end of its socket, set and cleared together
        self.process: subprocess.Popen[bytes] | None = None
        self.connection: Connection | None = None
        self.task: ParseTask | None = None
        self.started = 0.0
        self.running = False  # the worker acknowledged the task: its time limit runs
        self.peak_mb = 0.0
        self.served = 0

    @property
    def busy(self) -> bool:
        return self.task is not None

    def worker(self) -> tuple[subprocess.Popen[bytes], Connection]:
        """The worker's process and connection; the pool asks only a slot it has started."""
        if self.process is None or self.connection is None:
            raise RuntimeError("this parse slot has no worker; start one first")
        return self.process, self.connection

    def in_flight(self) -> ParseTask:
        """The task the worker is on; the pool asks only a busy slot."""
        if self.task is None:
            raise RuntimeError("this parse slot has no task in flight")
        return self.task


class ParsePool:
    """Worker processes that parse tasks under the time and memory limits; use as a context manager."""

    def __init__(self, limits: IngestConfig, size: int | None = None):
        self.limits = limits
        self.size = size or worker_count(limits)
        self._slots = [_Slot() for _ in range(self.size)]

    def __enter__(self) -> ParsePool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for slot in self._slots:
            self._retire(slot, kill=True)

    def outcomes(self, tasks: Iterable[ParseTask]) -> Iterator[ParseOutcome]:
        """Outcomes in completion order; at most ``size`` tasks are in flight at once."""
        pending = iter(tasks)
        exhausted = False
        while True:
            for slot in self._slots:
                if not slot.busy and not exhausted:
                    task = next(pending, None)
                    if task is None:
                        exhausted = True
                    else:
                        self._dispatch(slot, task)
            busy = [slot for slot in self._slots if slot.busy]
            if not busy:
                return
            ready = wait([slot.worker()[1] for slot in busy], timeout=POLL_S)
            for slot in busy:
                if slot.connection in ready:
                    outcome = self._collect(slot)
                    if outcome is not None:
                        yield outcome
                elif (outcome := self._enforce_limits(slot)) is not None:
                    yield outcome

    def _dispatch(self, slot: _Slot, task: ParseTask) -> None:
        if slot.process is None or slot.process.poll() is not None:
            self._start(slot)
        slot.task, slot.started, slot.peak_mb, slot.running = task, time.monotonic(), 0.0, False
        _, connection = slot.worker()
        connection.send(task)

    def _start(self, slot: _Slot) -> None:
        parent_end, child_end = socket.socketpair()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH", "")]))
        command = [
            sys.executable,
            "-c",
            "from workbench.ingestion.workers import worker_main; worker_main()",
            str(child_end.fileno()),
            str(self.limits.parse_memory_mb),
        ]
        # a session of its own: the parent stops it, and whatever it runs, as one process group
        process = subprocess.Popen(
            command, pass_fds=(child_end.fileno(),), env=env, start_new_session=True, stdin=subprocess.DEVNULL
        )
        child_end.close()
        slot.process, slot.connection, slot.served = process, Connection(parent_end.detach()), 0

    def _collect(self, slot: _Slot) -> ParseOutcome | None:
        """The task's outcome, or None when the message only says the worker started on it."""
        task = slot.in_flight()
        process, connection = slot.worker()
        try:
            outcome: ParseOutcome = connection.recv()
            if outcome == STARTED:
                slot.started, slot.running = time.monotonic(), True
                return None
        except (EOFError, OSError):
            code = process.poll()
            started = slot.running
            self._retire(slot, kill=True)
            if not started:
                raise WorkerStartError(code) from None
            return ParseOutcome(
                task.key,
                task.name,
                reason=(
                    f"the parser crashed (worker exit code {code}); the file is probably corrupt, "
                    "check it and upload it again"
                ),
                elapsed_s=time.monotonic() - slot.started,
            )
        outcome = ParseOutcome(**{**outcome.__dict__, "peak_rss_mb": max(slot.peak_mb, outcome.peak_rss_mb)})
        slot.task = None
        slot.served += 1
        if slot.served >= TASKS_PER_WORKER or resident_mb(process.pid) > self.limits.parse_memory_mb / 2:
            self._retire(slot, kill=False)  # hand back the memory a big file left behind
        return outcome

    def _enforce_limits(self, slot: _Slot) -> ParseOutcome | None:
        task = slot.in_flight()
        process, connection = slot.worker()
        elapsed = time.monotonic() - slot.started
        rss = resident_mb(process.pid)
        slot.peak_mb = max(slot.peak_mb, rss)
        if slot.running and elapsed > self.limits.parse_timeout_s:
            reason = timeout_reason(task.name, self.limits)
        elif not slot.running and elapsed > WORKER_START_TIMEOUT_S:
            reason = (
                f"no parse worker started within {WORKER_START_TIMEOUT_S:g} s (the machine is overloaded, or "
                "Python cannot start); try again"
            )
        elif rss > self.limits.parse_memory_mb:
            reason = memory_reason(task.name, self.limits)
        elif process.poll() is not None and not connection.poll():
            if not slot.running:
                code = process.returncode
                self._retire(slot, kill=True)
                raise WorkerStartError(code)
            reason = (
                f"the parser crashed (worker exit code {process.returncode}); the file is "
                "probably corrupt, check it and upload it again"
            )
        else:
            return None
        self._retire(slot, kill=True)
        return ParseOutcome(task.key, task.name, reason=reason, elapsed_s=elapsed, peak_rss_mb=slot.peak_mb)

    def _retire(self, slot: _Slot, kill: bool) -> None:
        process, connection = slot.process, slot.connection
        slot.process, slot.connection, slot.task = None, None, None
        if process is None or connection is None:
            return
        if not kill:
            try:
                connection.send(None)
                process.wait(timeout=5)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                kill = True
        if kill:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                process.kill()
            process.wait(timeout=10)
        connection.close()
