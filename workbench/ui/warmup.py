"""Loading what a first query needs, in the background, from the moment the app starts.

A fresh server process has loaded nothing: the first query would pay for reading the indexes,
loading the embedding model (and a rerank model, when the preset reranks) and the pipeline's
lazy loads, several seconds. ``make app`` (``workbench.ui.serve``) starts this warm-up before
Streamlit serves anything; ``app.py`` starts it on its first run when the server was started
some other way (``streamlit run app.py``, AppTest). It runs in a daemon thread, so the first
page is drawn meanwhile, and a query asked before it is done simply waits on the same locks.

What it warms is what the app opens with: the sidebar's first collection under its default
preset (the demo's, once the demo is loaded), or, in an empty home, the default embedding model
that loading the demo will use. The ``Workbench`` it warms is the one the app then uses
(``adopt``), so the loaded indexes are not read twice. The sidebar shows its ``status()``.

Streamlit-free: the launcher imports it before Streamlit starts.
"""

from __future__ import annotations

import functools
import gc
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from workbench.config import WorkbenchConfig
from workbench.models.long_lived import exempt_from_collection
from workbench.service import Workbench

log = logging.getLogger(__name__)

NOT_STARTED, WARMING, READY, FAILED = "not started", "warming", "ready", "failed"
WARM_QUERY = "warm up"


@dataclass(frozen=True)
class WarmUpStatus:
    state: str  # NOT_STARTED, WARMING, READY or FAILED
    doing: str  # what it is loading now ("" once it stopped)
    done: tuple[str, ...]  # what it loaded, in order
    seconds: float  # since it started, or how long it took
    problem: str = ""  # why it stopped early (FAILED)

    def describe(self) -> str:
        """One line for the sidebar and the server log."""
        loaded = ", ".join(self.done)
        if self.state == WARMING:
            return f"Warming up ({self.seconds:.0f} s): {self.doing}. Pages work meanwhile; a query waits for it."
        if self.state == READY:
            return f"Models ready ({self.seconds:.1f} s): {loaded or 'nothing to load'}."
        if self.state == FAILED:
            return (
                f"Warm-up stopped after {self.seconds:.1f} s: {self.problem}. "
                "The first query loads what it needs itself."
            )
        return "Warm-up not started."


@dataclass(frozen=True)
class WarmUpStep:
    what: str  # shown while it runs and, once done, in the list of what was loaded
    work: Callable[[], object]


class WarmUp:
    """One warm-up of one home: a thread, its progress, and the ``Workbench`` it warmed."""

    def __init__(self, home: Path, read_only: bool, announce: bool = False) -> None:
        self.home = home
        self.read_only = read_only
        self.announce = announce  # print the start and the outcome to the terminal (``make app``)
        # made here, not in the thread, so the app adopts it even before the thread has started
        self.workbench = Workbench(home, read_only=read_only)
        self._lock = threading.Lock()
        self._state = NOT_STARTED
        self._doing = ""
        self._done: list[str] = []
        self._problem = ""
        self._started = 0.0
        self._finished: float | None = None
        self._over = threading.Event()
        self._adopted = False

    def start(self) -> None:
        with self._lock:
            if self._state != NOT_STARTED:
                return
            self._state, self._started = WARMING, time.monotonic()
        threading.Thread(target=self._run, name="workbench-warm-up", daemon=True).start()

    def status(self) -> WarmUpStatus:
        with self._lock:
            end = self._finished if self._finished is not None else time.monotonic()
            seconds = end - self._started if self._started else 0.0
            return WarmUpStatus(self._state, self._doing, tuple(self._done), seconds, self._problem)

    def wait(self, timeout_s: float) -> bool:
        """True once the warm-up is over (ready or stopped) within ``timeout_s``."""
        return self._over.wait(timeout_s)

    def adopt(self) -> Workbench | None:
        """The warmed ``Workbench``, handed out once (a cleared app cache then opens a fresh one)."""
        with self._lock:
            if self._adopted:
                return None
            self._adopted = True
            return self.workbench

    def _run(self) -> None:
        if self.announce:
            print(f"  Warming up the models and indexes of {self.home} in the background…", flush=True)
        try:
            self._set_doing("reading the catalog")
            for step in plan(self.workbench):
                self._set_doing(step.what)
                step.work()
                with self._lock:
                    self._done.append(step.what)
            # what is loaded now (libraries, indexes, models) lives as long as the server: out of
            # the collector's sight, a full collection no longer walks it (a pause of a third of a
            # second at an unpredictable moment, a key press's say)
            gc.collect()
            exempt_from_collection()
            with self._lock:
                self._state = READY
        except Exception as error:  # a busy or broken home: the first query reports it where it belongs
            with self._lock:
                self._state, self._problem = FAILED, f"{type(error).__name__}: {error}"
        finally:
            with self._lock:
                self._doing, self._finished = "", time.monotonic()
            self._over.set()
            outcome = self.status().describe()
            log.info("warm-up of %s: %s", self.home, outcome)
            if self.announce:
                print(f"  {outcome}", flush=True)

    def _set_doing(self, what: str) -> None:
        with self._lock:
            self._doing = what


def plan(bench: Workbench) -> list[WarmUpStep]:
    """What to load, in order, for the collection and preset the app opens with."""
    from workbench.embedding import get_embedder

    names = bench.collection_names()
    if not names:
        model = WorkbenchConfig().embedding.key
        return [WarmUpStep(f"embedding model {model}", lambda: get_embedder(model).embed_queries([WARM_QUERY]))]
    collection = names[0]  # the sidebar's first choice (workbench.ui.session.current_collection)
    config = bench.config_for(collection)
    models = [f"embedding model {config.embedding.model}"]
    if config.rerank.method != "llm" and config.rerank.model.strip():
        models.append(f"rerank model {config.rerank.model.strip()}")
    return [
        # the same first-use work the Retrieval lab does, so the lab then finds it done
        WarmUpStep(
            f"{', '.join(models)} and the indexes of {collection}", lambda: _all_loaded(bench, collection, config)
        ),
        # the pipeline's own lazy loads (tokenizers, stemmer, language detection); not logged
        WarmUpStep("a first query", lambda: bench.query(WARM_QUERY, collection, config)),
        WarmUpStep("the pages' libraries", _import_page_libraries),
    ]


def _all_loaded(bench: Workbench, collection: str, config: WorkbenchConfig) -> None:
    from workbench.service.first_use import warm_up

    warm_up(bench, collection, WARM_QUERY, [config])


def _import_page_libraries() -> None:
    """The libraries pages import on their first visit (charts, tables)."""
    import pandas  # noqa: F401
    import plotly.graph_objects  # noqa: F401
    import pyarrow  # noqa: F401


_warm_ups: dict[tuple[Path, bool], WarmUp] = {}
_registry_lock = threading.Lock()


@functools.lru_cache(maxsize=64)
def _resolved(home: Path) -> Path:
    # the sidebar asks every run (and every second while warming): resolving costs system calls
    return Path(home).resolve()


def start(home: Path, read_only: bool, announce: bool = False) -> WarmUp:
    """Start warming ``home`` (once per home and server process); returns its warm-up."""
    key = (_resolved(home), read_only)
    with _registry_lock:
        warm = _warm_ups.get(key)
        if warm is None:
            warm = _warm_ups[key] = WarmUp(key[0], read_only, announce)
    warm.start()
    return warm


def current(home: Path, read_only: bool) -> WarmUp | None:
    with _registry_lock:
        return _warm_ups.get((_resolved(home), read_only))


def adopt(home: Path, read_only: bool) -> Workbench | None:
    """The ``Workbench`` the warm-up of ``home`` loaded things into, once; None without one."""
    warm = current(home, read_only)
    return warm.adopt() if warm is not None else None
