"""A study run in the background (the app's Tune tab): a thread, a stop switch, and its progress as values.

``TuneJob.start`` runs ``tune.run_tune`` in a daemon thread; ``view`` returns a consistent copy of
where it is (the part and trial, the best so far, the time left, every completed trial of the
current study for the Pareto chart) and, once it is over, its report or error. ``stop`` asks the
study to stop: the query in flight finishes, the trial is marked interrupted, and starting the
same study again resumes it. The job never touches a UI: the page polls ``view``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, replace

from workbench.facade import WorkbenchFacade
from workbench.tuning import study as studies
from workbench.tuning.cost import CostEstimate
from workbench.tuning.objective import OPENING
from workbench.tuning.study import TrialRecord
from workbench.tuning.tune import TuneProgress, TuneReport, TuneRequest, run_tune

#: build messages kept for the view (the last ones)
MESSAGES_KEPT = 5


@dataclass(frozen=True)
class JobView:
    running: bool
    part: str = ""
    index: int = 0
    studies: int = 0
    done: int = 0
    target: int | None = None
    best: TrialRecord | None = None
    eta_s: float | None = None
    elapsed_s: float = 0.0
    trials: tuple[TrialRecord, ...] = ()  # completed trials of the study running (or last run)
    messages: tuple[str, ...] = ()
    estimate: tuple[str, ...] = ()
    resumed: bool = False
    stop_requested: bool = False
    report: TuneReport | None = None
    error: str | None = None
    #: the estimated embedding time of the layouts not built yet (``CostEstimate``), which the
    #: trials' own pace cannot foresee: a trial that builds a layout takes far longer than the rest
    embed_left_s: float = 0.0

    @property
    def time_left_s(self) -> float | None:
        """The trials' time left plus the embedding still to come."""
        if self.eta_s is None:
            return self.embed_left_s or None
        return self.eta_s + self.embed_left_s

    @property
    def fraction(self) -> float:
        """Trials done over all studies (the held-out scoring counts as done)."""
        if not self.studies:
            return 0.0
        within = self.done / self.target if self.target else 0.0
        return min(1.0, ((self.index - 1) + min(within, 1.0)) / self.studies)


@dataclass
class TuneJob:
    bench: WorkbenchFacade
    request: TuneRequest
    cancel: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _view: JobView = field(default_factory=lambda: JobView(running=False))
    _trials: dict[str, list[TrialRecord]] = field(default_factory=dict)
    _started: float = 0.0
    _thread: threading.Thread | None = None
    _embed_s: dict[str, float] = field(default_factory=dict)  # layout -> estimated embedding seconds
    _opened: set[str] = field(default_factory=set)  # layouts a trial has started to build

    def start(self) -> None:
        """Run the study in a daemon thread; a study these options already started is resumed."""
        if self._thread is not None:
            raise RuntimeError("this job has already been started")
        resume = existing(self.bench, self.request)
        self.request = replace(self.request, resume=resume)
        self._started = time.monotonic()
        self._view = JobView(running=True, resumed=resume)
        self._thread = threading.Thread(target=self._run, name=f"tune-{self.request.collection}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.cancel.set()
        with self._lock:
            self._view = replace(self._view, stop_requested=True)

    def view(self) -> JobView:
        with self._lock:
            return replace(self._view, elapsed_s=time.monotonic() - self._started if self._started else 0.0)

    def wait(self, timeout: float | None = None) -> bool:
        """Whether the job is over (after waiting up to ``timeout`` seconds)."""
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.view().running

    def _run(self) -> None:
        try:
            report = run_tune(
                self.bench,
                self.request,
                progress=self._progress,
                on_build=self._message,
                cancel=self.cancel,
                on_estimate=self._estimate,
            )
        except Exception as error:  # shown to the user in full: it is what they need to fix
            with self._lock:
                self._view = replace(self._view, running=False, error=f"{type(error).__name__}: {error}")
            return
        with self._lock:
            self._view = replace(self._view, running=False, report=report)

    def _progress(self, event: TuneProgress) -> None:
        with self._lock:
            view = replace(self._view, part=event.part, index=event.index, studies=event.studies, eta_s=event.eta_s)
            study = event.study
            if study is not None:
                trials = self._trials.setdefault(event.part, [])
                if study.last is not None:
                    trials.append(study.last)
                    for layout in self._opened:  # a trial completed: the layouts it opened are built
                        self._embed_s.pop(layout, None)
                view = replace(view, done=study.done, target=study.target, best=study.best, trials=tuple(trials))
            self._view = replace(view, embed_left_s=sum(self._embed_s.values()))

    def _message(self, message: str) -> None:
        with self._lock:
            if message.startswith(OPENING):
                self._opened.add(message.removeprefix(OPENING).split(" ", 1)[0])
            self._view = replace(self._view, messages=(*self._view.messages, message)[-MESSAGES_KEPT:])

    def _estimate(self, cost: CostEstimate) -> None:
        with self._lock:
            rate = cost.rate or 1.0
            self._embed_s = {item.layout.chunkset_key: item.texts / rate for item in cost.layouts if item.texts}
            self._view = replace(self._view, estimate=tuple(cost.describe()), embed_left_s=sum(self._embed_s.values()))


def existing(bench: WorkbenchFacade, request: TuneRequest) -> bool:
    """Whether a study with these options exists in the home (so starting it resumes it)."""
    path = studies.storage_path(bench.home, request.study_name())
    if not path.exists():
        return False
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    return any(
        summary.study_name.startswith(f"{request.study_name()}/")
        for summary in JournalStorage(JournalFileBackend(str(path))).get_all_studies()
    )
