"""``tune``: search the configuration space on some queries, judge the winner on queries it never saw.

Holdout (the default): the golden set is split once (``--holdout 0.3``); one study tunes on the
70%; its winner and the starting configuration are then scored on the 30%, and the paired
bootstrap interval of the difference is the estimate. The recommendation is that winner.

Nested cross-validation (``--folds K``): one study per fold tunes on the other K - 1 folds, and
its winner is scored against the starting configuration on the fold it never saw; pooled, every
query is held out once and the interval is over all of them. That estimates what *tuning this
way* gains on unseen queries. The recommendation is the winner of one more study on all queries
(the same procedure, with more data), and the estimate is reported as the procedure's.

The held-out parts reach nothing before the studies are over: each study's objective is built
from its tuning part only (``objective.tuning_objective``), and the held-out scoring happens
afterwards, once per part.
"""

from __future__ import annotations

import hashlib
import json
import re
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from store.embedding_cache import embedding_counts
from workbench.config import WorkbenchConfig
from workbench.evaluation.golden import GoldenSet, content_hash
from workbench.evaluation.inputs import config_hash
from workbench.evaluation.intervals import DEFAULT_RESAMPLES
from workbench.evaluation.judged import LevelChoice
from workbench.facade import WorkbenchFacade
from workbench.tuning import study as studies
from workbench.tuning.cost import CostEstimate, estimate
from workbench.tuning.objective import Evaluator, Score, tuning_objective
from workbench.tuning.space import SearchSpace, apply
from workbench.tuning.split import DEFAULT_HOLDOUT, Split, SplitChoice, all_queries, fold_splits, holdout_split
from workbench.tuning.study import Budget, StudyError, StudyOutcome, StudyProgress, TrialRecord
from workbench.tuning.verdict import Gain, held_out_gain, pair

DEFAULT_TRIALS = 50
DEFAULT_METRIC = "ndcg@10"


@dataclass(frozen=True)
class TuneRequest:
    collection: str
    golden: GoldenSet
    base: WorkbenchConfig  # the starting configuration: the collection's preset (or --preset) and --set
    base_name: str  # how the report names it ("preset default")
    base_overrides: dict[str, object]  # the preset's keys and --set: what a saved preset starts from
    space: SearchSpace
    metric: str = DEFAULT_METRIC
    level: str = "doc"
    holdout: float = DEFAULT_HOLDOUT
    folds: int | None = None
    seed: int = 0
    trials: int | None = DEFAULT_TRIALS
    minutes: float | None = None
    max_p95_ms: float | None = None
    pareto: bool = False
    study: str | None = None
    resume: bool = False
    resamples: int = DEFAULT_RESAMPLES
    #: why this level and this split (``workbench.tuning.plan.choose_design``); None when built by hand
    level_choice: LevelChoice | None = field(default=None, compare=False)
    split_choice: SplitChoice | None = field(default=None, compare=False)

    def split_description(self) -> str:
        if self.folds:
            return f"{self.folds}-fold nested cross-validation, seed {self.seed}"
        held = round(self.holdout * 100)
        return f"tuned on {100 - held}%, held out {held}%, seed {self.seed}"

    def definition(self) -> dict[str, object]:
        """What makes a study this study: resuming with anything else is refused."""
        return {
            "collection": self.collection,
            "golden": self.golden.name,
            "golden_hash": content_hash(self.golden),
            "base_config_hash": config_hash(self.base),
            "space": self.space.to_dict(),
            "metric": self.metric,
            "level": self.level,
            "split": {"folds": self.folds} if self.folds else {"holdout": self.holdout},
            "seed": self.seed,
            "max_p95_ms": self.max_p95_ms,
            "pareto": self.pareto,
        }

    def study_name(self) -> str:
        if self.study:
            if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", self.study):
                raise StudyError(f"study name {self.study!r} is not valid; use letters, digits, '-', '_' or '.'")
            return self.study
        digest = hashlib.sha256(json.dumps(self.definition(), sort_keys=True).encode()).hexdigest()[:8]
        return re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{self.collection}-{self.golden.name}-{digest}")


@dataclass(frozen=True)
class TuneProgress:
    part: str  # "fold 2 of 5", "holdout", "all queries", or "held-out scoring"
    index: int  # 1-based study number
    studies: int
    study: StudyProgress | None
    eta_s: float | None  # over every study left
    message: str = ""


@dataclass(frozen=True)
class HeldOutPart:
    label: str
    winner: TrialRecord
    base: Score
    tuned: Score


@dataclass
class TuneReport:
    request: TuneRequest
    name: str
    storage: str
    cost: CostEstimate | None = None
    outcomes: list[tuple[str, StudyOutcome]] = field(default_factory=list)
    parts: list[HeldOutPart] = field(default_factory=list)
    gain: Gain | None = None
    winner: TrialRecord | None = None
    stopped: bool = False
    embedded_texts: int = 0
    elapsed_s: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def trials(self) -> int:
        return sum(len(outcome.trials) for _, outcome in self.outcomes)

    @property
    def final(self) -> StudyOutcome | None:
        """The study whose winner is the recommendation (holdout's only one, or the all-queries one)."""
        return self.outcomes[-1][1] if self.outcomes else None

    def winner_config(self) -> WorkbenchConfig | None:
        return apply(self.request.base, self.winner.params) if self.winner else None

    def recommended_overrides(self) -> dict[str, object]:
        """The starting preset's keys and --set, plus every key the study varied that the winner changes."""
        if self.winner is None:
            return {}
        chosen = apply(self.request.base, self.winner.params)
        base = self.request.base
        varied = {key: chosen.get(key) for key in self.winner.params if chosen.get(key) != base.get(key)}
        return {**self.request.base_overrides, **varied}

    def changed_keys(self) -> dict[str, object]:
        """Only what the winner changes relative to the starting configuration."""
        if self.winner is None:
            return {}
        chosen = apply(self.request.base, self.winner.params)
        return {key: chosen.get(key) for key in self.winner.params if chosen.get(key) != self.request.base.get(key)}


def _parts(request: TuneRequest) -> tuple[list[Split], GoldenSet | None]:
    if request.folds:
        return fold_splits(request.golden, request.folds, request.seed), all_queries(request.golden)
    return [holdout_split(request.golden, request.holdout, request.seed)], None


def _slug(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")


def _check_definition(study: Any, definition: dict[str, object], name: str) -> None:
    stored = study.user_attrs.get("definition")
    if stored is None:
        study.set_user_attr("definition", definition)
        return
    changed = sorted(key for key in set(stored) | set(definition) if stored.get(key) != definition.get(key))
    if changed:
        raise StudyError(
            f"study {name!r} was started with other settings ({', '.join(changed)} differ); "
            "resume it with the same options, or start a new one with --study NAME"
        )


def run_tune(
    bench: WorkbenchFacade,
    request: TuneRequest,
    *,
    progress: Callable[[TuneProgress], None] | None = None,
    on_build: Callable[[str], None] | None = None,
    cancel: threading.Event | None = None,
    on_estimate: Callable[[CostEstimate], None] | None = None,
    pace: Callable[[], object] | None = None,
) -> TuneReport:
    """Run the studies, then score each winner on its held-out part; see the module doc.
    ``pace`` is called before every query a trial runs (the MCP server lets its calls go first)."""
    bench.require_writable("Tuning")  # the study and any new layout are written into the home
    started = time.monotonic()
    splits, everything = _parts(request)
    name = request.study_name()
    path = studies.storage_path(bench.home, name)
    report = TuneReport(request, name, str(path))
    layouts = request.space.layouts(request.base)
    report.cost = estimate(bench.catalog, bench.home, request.collection, layouts)
    if on_estimate is not None:
        on_estimate(report.cost)
    models = sorted({layout.embedding_model for layout in layouts})
    before = embedding_counts(bench.catalog, models)
    plan: list[tuple[str, GoldenSet]] = [(split.label, split.tuning) for split in splits]
    if everything is not None:
        plan.append(("all queries", everything))
    evaluator = Evaluator(bench, request.collection, request.metric, request.level, on_build, cancel, pace)
    deadline = started + request.minutes * 60 if request.minutes else None
    with studies.exclusive(bench.home, name):
        storage = studies.open_storage(path)
        exists = studies.study_exists(storage, f"{name}/{_slug(plan[0][0])}")
        if exists and not request.resume:
            raise StudyError(
                f"study {name!r} already exists ({path}); add --resume to continue it, or --study NAME to start another"
            )
        if request.resume and not exists:
            known = ", ".join(studies.known_studies(bench.home)) or "none"
            raise StudyError(f"no study {name!r} to resume (same options as when it started?); studies here: {known}")
        per_trial: list[float] = []
        for index, (label, tuning) in enumerate(plan, start=1):
            study = studies.open_study(
                storage,
                f"{name}/{_slug(label)}",
                seed=request.seed + index,
                pareto=request.pareto,
                max_p95_ms=request.max_p95_ms,
            )
            _check_definition(study, request.definition(), name)
            share = None
            if deadline is not None:
                share = time.monotonic() + max(0.0, deadline - time.monotonic()) / (len(plan) - index + 1)

            def forward(event: StudyProgress, label: str = label, index: int = index) -> None:
                if progress is not None:
                    later = (len(plan) - index) * (request.trials or 0)
                    progress(
                        TuneProgress(
                            label, index, len(plan), event, _eta(event, later, per_trial, deadline), event.message
                        )
                    )

            outcome = studies.run_study(
                study,
                request.space,
                request.base,
                tuning_objective(evaluator, tuning),
                Budget(request.trials, share),
                seed=request.seed + index,
                max_p95_ms=request.max_p95_ms,
                progress=forward,
                cancel=cancel,
            )
            per_trial.extend(t.seconds for t in outcome.trials if t.seconds)
            report.outcomes.append((label, outcome))
            report.notes.extend(dict.fromkeys(outcome.failures))
            if outcome.stopped:
                report.stopped = True
                break
    if not report.stopped:
        _judge(report, evaluator, splits, progress)
    after = embedding_counts(bench.catalog, models)
    report.embedded_texts = sum(after[model] - before[model] for model in models)
    report.elapsed_s = time.monotonic() - started
    return report


def _eta(event: StudyProgress, later_trials: int, earlier: list[float], deadline: float | None) -> float | None:
    """Seconds left over this study and the ``later_trials`` of the studies after it."""
    left_here = max(0, (event.target or 0) - event.done)
    if event.eta_s is not None and left_here:
        per_trial: float | None = event.eta_s / left_here
    else:
        per_trial = statistics.median(earlier) if earlier else None
    eta = per_trial * (left_here + later_trials) if per_trial is not None else None
    if deadline is not None:
        remaining = max(0.0, deadline - time.monotonic())
        eta = remaining if eta is None else min(eta, remaining)
    return eta


def _judge(
    report: TuneReport,
    evaluator: Evaluator,
    splits: list[Split],
    progress: Callable[[TuneProgress], None] | None,
) -> None:
    """Score each part's winner and the starting configuration on its held-out queries; pool; interval."""
    request = report.request
    if progress is not None:
        progress(TuneProgress("held-out scoring", len(report.outcomes), len(report.outcomes), None, None, "scoring"))
    base_scores: dict[str, float] = {}
    tuned_scores: dict[str, float] = {}
    for split, (label, outcome) in zip(splits, report.outcomes, strict=False):
        winner = outcome.best(request.max_p95_ms)
        if winner is None:
            fastest = min((t.p95_ms for t in outcome.trials), default=None)
            report.notes.append(
                f"{label}: no trial met --max-p95-ms {request.max_p95_ms:g}"
                + (f" (the fastest had p95 {fastest:.1f} ms)" if fastest is not None else "")
            )
            return
        base = evaluator.score(split.held_out, request.base)
        tuned = evaluator.score(split.held_out, apply(request.base, winner.params))
        report.parts.append(HeldOutPart(label, winner, base, tuned))
        base_scores.update(base.per_query)
        tuned_scores.update(tuned.per_query)
    final = report.final
    report.winner = final.best(request.max_p95_ms) if final is not None else None
    if report.winner is None:
        report.notes.append("the study on all queries found no trial within --max-p95-ms")
        return
    report.gain = held_out_gain(request.metric, pair(base_scores, tuned_scores), request.resamples, request.seed)


# -- saving the winner ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PresetDecision:
    saved: bool
    name: str
    message: str
    overrides: dict[str, object] = field(default_factory=dict)


def provenance(report: TuneReport, forced: bool) -> dict[str, object]:
    request = report.request
    gain = report.gain
    return {
        "tool": "tune",
        "study": report.name,
        "storage": report.storage,
        "collection": request.collection,
        "golden": request.golden.name,
        "golden_hash": content_hash(request.golden),
        "split": {"folds": request.folds} if request.folds else {"holdout": request.holdout},
        "seed": request.seed,
        "metric": request.metric,
        "level": request.level,
        "held_out": gain.to_dict() if gain is not None else None,
        "estimate_of": "the tuning procedure (nested cross-validation)" if request.folds else "this configuration",
        "forced": forced,
        "based_on": request.base_name,
        "base_overrides": dict(request.base_overrides),  # the starting configuration, for check's second opinion
        "varied": list(request.space.keys),
        "trials": report.trials,
        "saved_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def save_winner(bench: WorkbenchFacade, report: TuneReport, name: str, force: bool = False) -> PresetDecision:
    """Save the winner as preset ``name`` when its held-out interval lies above zero, or when forced."""
    name = (name or "").strip()
    gain = report.gain
    if report.winner is None or gain is None:
        return PresetDecision(False, name, f"nothing saved as {name!r}: the study has no held-out verdict yet")
    if not gain.better and not force:
        return PresetDecision(
            False,
            name,
            f"nothing saved as {name!r}: the winner is {gain.verdict()} (interval {gain.interval.describe()} "
            "covers or lies below zero); --force saves it anyway, marked as forced",
        )
    forced = not gain.better
    overrides = report.recommended_overrides()
    description = (
        f"tune {report.name}: held-out {gain.metric} {gain.mean:+.4f} {gain.interval.describe()} on "
        f"{gain.queries} queries ({report.request.split_description()})"
        + ("; saved with --force although the interval does not lie above zero" if forced else "")
    )
    saved = bench.save_preset(name, overrides, description, provenance(report, forced))
    shown = " ".join(f"{key}={_show(value)}" for key, value in sorted(saved.items())) or "(the defaults)"
    return PresetDecision(True, name, f"saved preset {name!r}{' (forced)' if forced else ''}: {shown}", dict(saved))


def _show(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(_show(item) for item in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
