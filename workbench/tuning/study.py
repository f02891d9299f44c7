"""The search: Optuna's TPE sampler (seeded), or every point when the space is no bigger than the budget.

A study lives in the home, in ``<home>/studies/<name>.journal``: Optuna's journal storage, an
append-only file of JSON lines, each written whole and synced before the study goes on (never the
DuckDB catalog, which other processes need). It was chosen over Optuna's SQLite storage because
it costs a third as much per trial (``bench/bench_tune.py``); a line cut short by a kill is dropped
when the study is next opened. Each trial is asked for, recorded as running with
its parameters and configuration hash, evaluated, and told: so a ``kill -9`` loses at most the
trial in flight. Resuming fails that trial (it is re-run first), keeps every completed one and
never evaluates a configuration twice: a suggestion equal to a completed trial's configuration
is marked failed (``duplicate_of``) without being evaluated and does not count.

One process at a time runs a study: it holds an exclusive lock on ``<name>.lock`` (released by
the operating system when the process dies, so a killed study can be resumed at once).

Objectives: the metric alone (maximised), optionally with ``max_p95_ms`` as a constraint (TPE
prefers trials within it, and the winner must satisfy it), or two objectives, the metric and p95
latency, whose trade-off is the Pareto front (``pareto=True``).
"""

from __future__ import annotations

import contextlib
import fcntl
import math
import os
import random
import statistics
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import optuna
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend, JournalFileOpenLock
from optuna.trial import FrozenTrial, TrialState

from workbench.config import ConfigError, WorkbenchConfig
from workbench.evaluation.inputs import config_hash
from workbench.tuning.objective import Objective, Stopped
from workbench.tuning.space import ParamValue, SearchSpace, apply

STUDIES_DIR = "studies"
#: in a space too large to list, suggestions in a row that repeat a completed configuration before the study ends
DUPLICATE_PATIENCE = 50

#: trial attributes: the point ({"params", "fingerprint"}) set before it is evaluated, its score
#: ({"p95_ms", "queries", "seconds"}) after; one write each, since every write is a transaction
POINT, SCORE = "point", "score"
INTERRUPTED, DUPLICATE_OF, ERROR = "interrupted", "duplicate_of", "error"


class StudyError(ValueError):
    """A study cannot be started or resumed as asked; the message names the fix."""


@dataclass(frozen=True)
class TrialRecord:
    number: int
    params: dict[str, ParamValue]
    metric: float
    p95_ms: float
    fingerprint: str
    seconds: float

    def label(self) -> str:
        return " ".join(f"{key}={_show(value)}" for key, value in self.params.items()) or "(starting configuration)"


@dataclass(frozen=True)
class Budget:
    trials: int | None  # completed distinct trials the study should reach (None: until the time or the space runs out)
    deadline: float | None = None  # time.monotonic() after which no new trial starts

    def time_left(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())


@dataclass(frozen=True)
class StudyProgress:
    study: str
    done: int  # completed trials, resumed ones included
    target: int | None
    best: TrialRecord | None
    elapsed_s: float
    eta_s: float | None
    message: str = ""
    last: TrialRecord | None = None  # the trial that just completed


@dataclass
class StudyOutcome:
    name: str
    trials: list[TrialRecord] = field(default_factory=list)
    exhaustive: bool = False
    stopped: bool = False
    resumed: int = 0  # completed trials found when the study started
    rerun: int = 0  # interrupted trials re-run first
    duplicates: int = 0  # suggestions that repeated a completed configuration (not evaluated)
    failures: list[str] = field(default_factory=list)
    space_size: int | None = None

    def feasible(self, max_p95_ms: float | None) -> list[TrialRecord]:
        return [t for t in self.trials if max_p95_ms is None or t.p95_ms <= max_p95_ms]

    def best(self, max_p95_ms: float | None = None) -> TrialRecord | None:
        """The highest metric (within ``max_p95_ms``); ties go to the lower latency, then the earlier trial."""
        candidates = self.feasible(max_p95_ms)
        return min(candidates, key=lambda t: (-t.metric, t.p95_ms, t.number)) if candidates else None


def pareto_front(trials: list[TrialRecord]) -> list[TrialRecord]:
    """Trials no other trial beats on both the metric (higher) and p95 latency (lower), by latency."""
    front = [
        t
        for t in trials
        if not any(
            o.metric >= t.metric and o.p95_ms <= t.p95_ms and (o.metric > t.metric or o.p95_ms < t.p95_ms)
            for o in trials
        )
    ]
    return sorted(front, key=lambda t: (t.p95_ms, -t.metric))


def studies_dir(home: Path) -> Path:
    return Path(home) / STUDIES_DIR


def storage_path(home: Path, name: str) -> Path:
    return studies_dir(home) / f"{name}.journal"


def known_studies(home: Path) -> list[str]:
    folder = studies_dir(home)
    return sorted(p.stem for p in folder.glob("*.journal")) if folder.is_dir() else []


@contextlib.contextmanager
def exclusive(home: Path, name: str) -> Iterator[None]:
    """Hold ``<name>.lock`` for the study's run; another process running it is refused."""
    folder = studies_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{name}.lock", "a+") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StudyError(f"study {name!r} is running in another process; wait for it or stop it") from None
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def open_storage(path: Path) -> JournalStorage:
    """The study file at ``path``. Call it while holding ``exclusive``: it repairs what a killed
    writer may have left (an unfinished last line, the journal's own lock file)."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    path.parent.mkdir(parents=True, exist_ok=True)
    _drop_torn_tail(path)
    lock = JournalFileOpenLock(str(path))
    Path(f"{path}.lock").unlink(missing_ok=True)  # a writer's lock outlives it only if it was killed
    return JournalStorage(JournalFileBackend(str(path), lock))


def _drop_torn_tail(path: Path) -> None:
    """Cut a last line without its newline: a write a kill interrupted, never acknowledged."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with open(path, "rb+") as handle:
        data = handle.read()
        if data.endswith(b"\n"):
            return
        handle.truncate(data.rfind(b"\n") + 1)


def study_exists(storage: JournalStorage, name: str) -> bool:
    return any(summary.study_name == name for summary in storage.get_all_studies())


def open_study(
    storage: JournalStorage,
    name: str,
    *,
    seed: int,
    pareto: bool,
    max_p95_ms: float | None,
) -> optuna.Study:
    constraints = None
    if max_p95_ms is not None:

        def constraints(trial: FrozenTrial) -> tuple[float]:
            return (float(trial.user_attrs.get(SCORE, {}).get("p95_ms", math.inf)) - max_p95_ms,)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        sampler = optuna.samplers.TPESampler(seed=seed, constraints_func=constraints)
    return optuna.create_study(
        storage=storage,
        study_name=name,
        sampler=sampler,
        directions=["maximize", "minimize"] if pareto else ["maximize"],
        load_if_exists=True,
    )


def _record(trial: FrozenTrial) -> TrialRecord:
    point, score = trial.user_attrs.get(POINT, {}), trial.user_attrs.get(SCORE, {})
    return TrialRecord(
        trial.number,
        dict(point.get("params", {})),
        float(trial.values[0]) if trial.values else 0.0,
        float(score.get("p95_ms", 0.0)),
        str(point.get("fingerprint", "")),
        float(score.get("seconds", 0.0)),
    )


def completed_trials(study: optuna.Study) -> list[TrialRecord]:
    return [_record(t) for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))]


def fail_interrupted(study: optuna.Study) -> list[dict[str, ParamValue]]:
    """Mark trials left running by a process that died as failed; return the parameters of every
    interrupted trial (the caller re-runs those not completed since).

    Only safe while holding the study's lock: then no live process is running any of its trials."""
    params = []
    storage = study._storage  # Study has no public way to fail another process's trial
    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING, TrialState.FAIL)):
        if trial.state == TrialState.RUNNING:
            storage.set_trial_user_attr(trial._trial_id, INTERRUPTED, True)
            storage.set_trial_state_values(trial._trial_id, TrialState.FAIL)
        elif not trial.user_attrs.get(INTERRUPTED):
            continue
        if POINT in trial.user_attrs:
            params.append(dict(trial.user_attrs[POINT]["params"]))
    return params


Point = tuple[str, dict[str, ParamValue]]  # (configuration hash, parameters)


def run_study(
    study: optuna.Study,
    space: SearchSpace,
    base: WorkbenchConfig,
    objective: Objective,
    budget: Budget,
    *,
    seed: int = 0,
    max_p95_ms: float | None = None,
    progress: Callable[[StudyProgress], None] | None = None,
    cancel: threading.Event | None = None,
) -> StudyOutcome:
    """Run trials until the budget or the space is used up, or a stop is asked for."""
    started = time.monotonic()
    outcome = StudyOutcome(study.study_name)
    interrupted = fail_interrupted(study)
    done = {record.fingerprint: record for record in completed_trials(study)}
    outcome.resumed = len(done)
    size = outcome.space_size = space.size(base)
    outcome.exhaustive = size is not None and (budget.trials is None or size <= budget.trials)
    queue: list[Point] = list({fp: p for p in interrupted if (fp := _hash(base, p)) not in done}.items())
    outcome.rerun = len(queue)
    unseen = _unseen(space, base, done, seed) if outcome.exhaustive else None
    every: list[Point] | None = None  # every point, listed when the sampler first repeats itself
    target = budget.trials if budget.trials is not None else size
    if outcome.exhaustive and size is not None:
        target = size  # the whole space, however much budget is left over
    session: list[TrialRecord] = []
    duplicates_in_a_row = 0

    def report(message: str = "", last: TrialRecord | None = None) -> None:
        if progress is None:
            return
        best = StudyOutcome(study.study_name, list(done.values())).best(max_p95_ms)
        eta = None
        if session and target is not None:
            # the median trial: a trial that built a layout would make the mean promise hours
            eta = statistics.median(t.seconds for t in session) * max(0, target - len(done))
            left = budget.time_left()
            eta = min(eta, left) if left is not None else eta
        progress(
            StudyProgress(study.study_name, len(done), target, best, time.monotonic() - started, eta, message, last)
        )

    report("starting")
    while target is None or len(done) < target:
        if (cancel is not None and cancel.is_set()) or budget.time_left() == 0.0:
            outcome.stopped = cancel is not None and cancel.is_set()
            break
        forced = queue.pop(0)[1] if queue else None
        if forced is None and unseen is not None:
            unseen = [(fp, p) for fp, p in unseen if fp not in done]
            if not unseen:
                break  # every point of the space has been tried
            forced = unseen.pop(0)[1]
        if forced is not None:
            study.enqueue_trial(forced, skip_if_exists=False)
        trial = study.ask()
        try:
            params = space.suggest(trial, base)
            config = apply(base, params)
        except ConfigError as error:  # a combination the configuration refuses: tell the sampler, go on
            study.tell(trial, state=TrialState.FAIL)
            outcome.failures.append(str(error))
            continue
        fingerprint = config_hash(config)
        if fingerprint in done:
            trial.set_user_attr(DUPLICATE_OF, done[fingerprint].number)
            study.tell(trial, state=TrialState.FAIL)
            outcome.duplicates += 1
            duplicates_in_a_row += 1
            if size is not None:  # the next trial is an untried point, then the sampler goes on
                if every is None:
                    every = _unseen(space, base, {}, seed)
                every = [(fp, p) for fp, p in every if fp not in done]
                if every:
                    queue.append(every.pop(0))
            elif duplicates_in_a_row >= DUPLICATE_PATIENCE:
                break  # a space too large to list, and a sampler that keeps repeating itself
            continue
        duplicates_in_a_row = 0
        trial.set_user_attr(POINT, {"params": params, "fingerprint": fingerprint})
        began = time.monotonic()
        try:
            score = objective(config)
        except (Stopped, KeyboardInterrupt):
            trial.set_user_attr(INTERRUPTED, True)
            study.tell(trial, state=TrialState.FAIL)
            outcome.stopped = True
            break
        except ConfigError as error:  # e.g. a layout this collection cannot build: record, go on
            trial.set_user_attr(ERROR, str(error))
            study.tell(trial, state=TrialState.FAIL)
            outcome.failures.append(str(error))
            continue
        seconds = time.monotonic() - began
        trial.set_user_attr(SCORE, {"p95_ms": score.p95_ms, "queries": score.queries, "seconds": seconds})
        study.tell(trial, [score.metric, score.p95_ms] if len(study.directions) == 2 else [score.metric])
        record = TrialRecord(trial.number, params, score.metric, score.p95_ms, fingerprint, seconds)
        done[fingerprint] = record
        session.append(record)
        report(last=record)
    outcome.trials = sorted(done.values(), key=lambda t: t.number)
    report("stopped" if outcome.stopped else "finished")
    return outcome


def _hash(base: WorkbenchConfig, params: dict[str, ParamValue]) -> str:
    return config_hash(apply(base, params))


def _unseen(space: SearchSpace, base: WorkbenchConfig, done: dict[str, TrialRecord], seed: int) -> list[Point]:
    """The points not tried yet, in a seeded order (a time budget then covers the space evenly)."""
    points = [(fp, p) for p in space.points(base) if (fp := _hash(base, p)) not in done]
    random.Random(seed).shuffle(points)
    return points


def study_attrs(study: optuna.Study) -> dict[str, Any]:
    return dict(study.user_attrs)


def remove_study_files(home: Path, name: str) -> None:
    """Delete a study's storage (tests and the app's "start over")."""
    for suffix in (".journal", ".journal.lock", ".lock"):
        path = studies_dir(home) / f"{name}{suffix}"
        if path.exists():
            os.remove(path)


def _show(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value) if value != "" else '""'
