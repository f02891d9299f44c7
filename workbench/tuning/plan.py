"""The experiment before it runs: level, split, queries, the gain they can show, saturation, time.

``plan_experiment`` evaluates the starting configuration on the golden set once and decides what a
study (``tune``) or a comparison can show on it; CLI ``tune`` prints the plan before it starts, MCP
``tune`` returns it, and the app reads it (one function decides for all three):

- **level** follows how the set was judged (``workbench.evaluation.judged``) unless one is given;
- **split**: nested cross-validation under ``tuning.folds_below`` scorable queries, else one
  holdout (``workbench.tuning.split.choose_split``);
- **saturation**: when the starting configuration already ranks every relevant item in the top 10
  (recall@10 = 1) for at least ``tuning.saturated_share`` of the queries, no configuration can
  find more at that level; the plan says so and names the fix (span level, harder questions).
  Only order is left to win then: when the complete queries are in their best order already, the
  set cannot show a gain; when their order leaves at least 0.02 of the metric, the plan says how
  much and still offers to grow the set;
- **power**: the gain the held-out queries can show, and the queries a gain of 0.02 needs.

The power numbers need the spread of per-query *differences* between two configurations, which
no study has measured yet. The plan takes the typical one, 0.12 (measured: ``tune`` on SciFact and
on the demo, ``workbench.evaluation.power``; on the demo again in issue 47, 5-fold, seed 0:
+0.0128 [−0.0334, +0.0639] over 24 queries, sd ≈ 0.049 · √24 / 1.96 ≈ 0.12), or the starting
configuration's own per-query sd where that is smaller: scores that barely vary (a set near its
ceiling) leave a configuration little to move. Then (the normal approximation of
``workbench.evaluation.power``)

    queries needed for a gain g  = ((1.96 + 0.84) · sd(diff) / g)²
    gain detectable on n queries = (1.96 + 0.84) · sd(diff) / √n

with n the queries the gain is measured on (all of them under K-fold, the held-out share under
one holdout).

The time estimate runs at the pace the evaluation's queries went once the indexes were loaded
(the first query's setup left out), times the queries the study will run.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from workbench.config import WorkbenchConfig
from workbench.evaluation.golden import GoldenSet
from workbench.evaluation.judged import LevelChoice, choose_level
from workbench.evaluation.power import REFERENCE_GAIN, TYPICAL_SPREAD, Z_CONFIDENCE, Z_POWER, queries_needed
from workbench.facade import WorkbenchFacade
from workbench.tuning.split import SplitChoice, choose_split, scorable
from workbench.tuning.tune import TuneRequest

#: the metric whose per-query value 1.0 means "every relevant item in the top 10"
SATURATION_METRIC = "recall@10"
#: questions kept per question asked of the LLM (``workbench.evaluation.power.synthesis_size``)
KEPT_SHARE = 0.9
#: trials per study when neither trials nor minutes are given (``workbench.tuning.tune.DEFAULT_TRIALS``)
PLANNED_TRIALS = 50


@dataclass(frozen=True)
class Saturation:
    """How many queries the starting configuration already answers completely in its top 10."""

    level: str
    queries: int  # scored at this level
    complete: int  # of them, with every relevant item in the top 10 (recall@10 = 1)
    threshold: float  # tuning.saturated_share
    fix: str  # what to do when saturated ("" when not)
    #: what reordering alone could add to the metric's mean: sum over the complete queries of
    #: (1 - their score), over all queries (0 when unknown): a set whose complete queries are
    #: already in their best order has nothing left for a configuration to win there
    order_room: float = 0.0
    metric: str = "ndcg@10"

    @property
    def share(self) -> float:
        return self.complete / self.queries if self.queries else 0.0

    @property
    def saturated(self) -> bool:
        return self.queries > 0 and self.share >= self.threshold

    def describe(self) -> str:
        unit = "document" if self.level == "doc" else "relevant passage"
        found = (
            f"at {self.level} level {self.share:.0%} of {self.queries} queries already find every {unit} in the top 10"
        )
        if not self.saturated:
            return f"{found} (saturated from {self.threshold:.0%}, tuning.saturated_share)"
        if self.can_gain_by_order:
            return (
                f"{found}: no configuration can find more at this level, only reorder what is found (that "
                f"could add up to {self.order_room:.4f} to {self.metric}); {self.fix}"
            )
        return (
            f"{found}: the set cannot show a gain at this level (a configuration can only reorder what is "
            f"already found); {self.fix}"
        )

    @property
    def can_gain_by_order(self) -> bool:
        """Whether reordering what is already found leaves at least a gain of ``REFERENCE_GAIN``."""
        return self.order_room >= REFERENCE_GAIN

    def to_dict(self) -> dict[str, object]:
        return {
            "level": self.level,
            "queries": self.queries,
            "complete": self.complete,
            "share": self.share,
            "threshold": self.threshold,
            "saturated": self.saturated,
            "fix": self.fix,
            "order_room": self.order_room,
            "message": self.describe(),
        }


@dataclass(frozen=True)
class GrowOffer:
    """More questions would let the study show a gain of 0.02: how many, and whether the LLM can write them."""

    have: int  # scorable queries at the level
    needed: int  # queries a gain of REFERENCE_GAIN needs
    questions: int  # questions to ask the LLM for (needed - have, over the share kept)
    endpoint: bool  # an LLM endpoint is configured

    def describe(self) -> str:
        short = f"the set is short: {self.have} queries where a gain of {REFERENCE_GAIN:g} needs about {self.needed:,}"
        if self.endpoint:
            return (
                f"{short}; the LLM endpoint can write about {self.questions:,} more questions from your documents "
                "(tune --grow-golden, or golden synth)"
            )
        return f"{short}; configure an LLM endpoint to write about {self.questions:,} more (see docs/llm-stages.md)"

    def to_dict(self) -> dict[str, object]:
        return {
            "have": self.have,
            "needed": self.needed,
            "questions": self.questions,
            "endpoint": self.endpoint,
            "message": self.describe(),
        }


@dataclass(frozen=True)
class ExperimentPlan:
    """What an experiment on a golden set can show, decided before it runs (see the module doc)."""

    collection: str
    golden: str
    metric: str
    level: LevelChoice
    split: SplitChoice
    queries: int  # scorable at the level
    held_out: int  # the queries the gain is measured on
    base_mean: float  # the starting configuration's mean metric on them
    score_spread: float  # its per-query sd
    spread: float  # the sd of a difference between two configurations used for power (estimated)
    spread_measured: bool  # True: the scores' own sd (below the typical spread) stands in
    saturation: Saturation
    grow: GrowOffer | None  # None when the set is long enough
    estimated_s: float | None  # the study's time, from the evaluation's pace (None when not estimated)
    notes: tuple[str, ...] = field(default=())

    @property
    def detectable_gain(self) -> float | None:
        """The smallest gain the held-out queries show with 80% power (None for no query)."""
        return detectable_gain(self.spread, self.held_out)

    @property
    def needed_for_reference(self) -> int | None:
        return queries_needed(self.spread, REFERENCE_GAIN)

    @property
    def can_show_gain(self) -> bool:
        return not self.saturation.saturated and self.held_out > 0

    def describe(self) -> list[str]:
        """The plan in lines, as CLI ``tune`` prints it before the study starts."""
        from workbench.ingestion.estimates import describe_duration

        source = (
            f"difference sd {self.spread:.3f}: the starting configuration's per-query sd, below the typical "
            f"{TYPICAL_SPREAD:g}"
            if self.spread_measured
            else f"difference sd {self.spread:g}, the typical spread; the starting configuration's per-query sd is "
            f"{self.score_spread:.3f}"
        )
        lines = [
            f"level: {self.level.reason}",
            f"split: {self.split.reason}",
            f"starting configuration: {self.metric} {self.base_mean:.4f} over {self.queries} queries",
        ]
        gain = self.detectable_gain
        if gain is not None:
            lines.append(
                f"power: {self.held_out} held-out queries can show a gain of about {gain:.3f}; a gain of "
                f"{REFERENCE_GAIN:g} needs about {self.needed_for_reference:,} queries "
                f"({source}; 95% confidence, 80% power)"
            )
        lines.append(("WARNING: " if self.saturation.saturated else "saturation: ") + self.saturation.describe())
        if self.grow is not None:
            lines.append(self.grow.describe())
        if self.estimated_s is not None:
            lines.append(
                f"estimated time: at least {describe_duration(self.estimated_s)} (the study's queries at the pace of "
                "this evaluation, and any index builds; each trial's own bookkeeping comes on top)"
            )
        lines.extend(f"note: {note}" for note in self.notes)
        return lines

    def to_dict(self) -> dict[str, object]:
        return {
            "collection": self.collection,
            "golden": self.golden,
            "metric": self.metric,
            "level": self.level.to_dict(),
            "split": self.split.to_dict(),
            "queries": self.queries,
            "held_out_queries": self.held_out,
            "base_mean": self.base_mean,
            "score_spread": self.score_spread,
            "difference_spread": self.spread,
            "spread_measured": self.spread_measured,
            "detectable_gain": self.detectable_gain,
            f"queries_needed_for_{REFERENCE_GAIN:g}": self.needed_for_reference,
            "saturation": self.saturation.to_dict(),
            "can_show_gain": self.can_show_gain,
            "grow": self.grow.to_dict() if self.grow else None,
            "estimated_s": self.estimated_s,
            "notes": list(self.notes),
            "lines": self.describe(),
        }


def detectable_gain(spread: float, queries: int) -> float | None:
    """(1.96 + 0.84) · spread / √queries: the gain ``queries`` paired queries show with 80% power."""
    if queries <= 0:
        return None
    return (Z_CONFIDENCE + Z_POWER) * spread / math.sqrt(queries)


def difference_spread(scores: Sequence[float]) -> tuple[float, float, bool]:
    """(sd of the scores, the sd of a difference used for power, capped by the scores?): the typical
    spread, or the scores' own sd where that is smaller (see the module doc)."""
    values = np.asarray(scores, dtype=np.float64)
    sd = float(values.std(ddof=1)) if values.size > 1 else 0.0
    if 0 < sd < TYPICAL_SPREAD:
        return sd, sd, True
    return sd, TYPICAL_SPREAD, False


def saturation_fix(level: str, span_queries: int) -> str:
    """What to do about a set saturated at ``level``."""
    if level == "doc" and span_queries:
        return (
            f"evaluate at span level (--level span: {span_queries} queries have passage judgements), "
            "or write harder questions"
        )
    if level == "doc":
        return "judge passages instead of whole documents (span level), or write harder questions"
    return "write harder questions (ones whose answer is spread over passages or phrased unlike the text)"


def saturation_from(
    level: str,
    recall_at_10: Mapping[str, float],
    scores: Mapping[str, float],
    saturated_share: float,
    with_spans: int,
    metric: str,
) -> Saturation:
    """The ``Saturation`` of per-query recall@10 and ``metric`` scores (a query missing from
    ``scores`` counts as in its best order)."""
    complete = [qid for qid, value in recall_at_10.items() if value >= 1.0 - 1e-9]
    room = sum(max(0.0, 1.0 - scores.get(qid, 1.0)) for qid in complete) / len(recall_at_10) if recall_at_10 else 0.0
    fix = saturation_fix(level, with_spans)
    return Saturation(level, len(recall_at_10), len(complete), saturated_share, fix, room, metric)


def plan_from_scores(
    *,
    collection: str,
    golden: GoldenSet,
    metric: str,
    level: LevelChoice,
    split: SplitChoice,
    scores: Mapping[str, float],
    recall_at_10: Mapping[str, float],
    saturated_share: float = 0.9,
    llm_available: bool = False,
    seconds_per_query: float | None = None,
    trials: int | None = PLANNED_TRIALS,
    build_s: float = 0.0,
    notes: Sequence[str] = (),
) -> ExperimentPlan:
    """The plan from the starting configuration's per-query scores (``metric`` and recall@10 at
    ``level``): the pure part of ``plan_experiment``, which evaluates and calls this."""
    queries = len(scores)
    values = [scores[qid] for qid in sorted(scores)]
    score_sd, spread, measured = difference_spread(values)
    saturation = saturation_from(level.level, recall_at_10, scores, saturated_share, level.with_spans, metric)
    held_out = split.held_out_queries(queries) if queries else 0
    needed = queries_needed(spread, REFERENCE_GAIN)
    grow = None
    if needed is not None and queries < needed and (not saturation.saturated or saturation.can_gain_by_order):
        questions = math.ceil((needed - queries) / KEPT_SHARE)
        grow = GrowOffer(queries, needed, questions, llm_available)
    estimated = None
    if seconds_per_query is not None and queries:
        estimated = build_s + seconds_per_query * _queries_run(queries, split, trials)
    return ExperimentPlan(
        collection=collection,
        golden=golden.name,
        metric=metric,
        level=level,
        split=split,
        queries=queries,
        held_out=held_out,
        base_mean=float(np.mean(values)) if values else 0.0,
        score_spread=score_sd,
        spread=spread,
        spread_measured=measured,
        saturation=saturation,
        grow=grow,
        estimated_s=estimated,
        notes=tuple(notes),
    )


def _queries_run(queries: int, split: SplitChoice, trials: int | None) -> int:
    """Queries a study runs: each trial on its tuning part, then the winner and base on the held-out ones."""
    per_study_trials = trials or PLANNED_TRIALS
    if split.folds:
        tuning = (split.folds - 1) * queries  # K studies on (K-1)/K of the queries each
        tuning += queries  # the final study on all of them
    else:
        tuning = queries - split.held_out_queries(queries)
    return per_study_trials * tuning + 2 * split.held_out_queries(queries)


def plan_experiment(
    bench: WorkbenchFacade,
    collection: str,
    golden: GoldenSet,
    base: WorkbenchConfig,
    *,
    metric: str = "ndcg@10",
    level: str | None = None,
    folds: int | None = None,
    holdout: float | None = None,
    trials: int | None = PLANNED_TRIALS,
    minutes: float | None = None,
    build_s: float = 0.0,
    progress: Callable[[int, int], None] | None = None,
) -> ExperimentPlan:
    """Evaluate ``base`` (the starting configuration) on ``golden`` at the level chosen, and plan
    the experiment (see the module doc). ``level``, ``folds`` and ``holdout`` are what the user
    gave (None: decide); ``build_s`` is the study's index-build estimate (``tuning.cost``)."""
    from workbench.evaluation.runner import evaluate_collection

    choice, split = choose_design(golden, base, level=level, folds=folds, holdout=holdout)
    settings = base.tuning
    scored = scored_at(golden, choice.level)
    notes = []
    if not scored:
        notes.append(
            f"no query of {golden.name!r} can be scored at {choice.level} level"
            + ("; leave --level out to follow the set's judging" if choice.given else "")
        )
        return plan_from_scores(
            collection=collection,
            golden=golden,
            metric=metric,
            level=choice,
            split=split,
            scores={},
            recall_at_10={},
            saturated_share=settings.saturated_share,
            notes=notes,
        )
    names = tuple(dict.fromkeys((metric, SATURATION_METRIC)))
    stamps: list[tuple[int, float]] = []

    def each_query(done: int, total: int) -> None:
        stamps.append((done, time.perf_counter()))
        if progress is not None:
            progress(done, total)

    result = evaluate_collection(
        bench, collection, golden, base, level=choice.level, metric_names=names, progress=each_query
    )
    scores = result.per_query_values(metric)
    pace = query_pace(stamps)
    plan = plan_from_scores(
        collection=collection,
        golden=golden,
        metric=metric,
        level=choice,
        split=split,
        scores=scores,
        recall_at_10=result.per_query_values(SATURATION_METRIC),
        saturated_share=settings.saturated_share,
        llm_available=bench.llm().available,
        seconds_per_query=pace,
        trials=trials,
        build_s=build_s,
        notes=notes,
    )
    if minutes is not None and plan.estimated_s is not None and plan.estimated_s > minutes * 60:
        from dataclasses import replace

        plan = replace(plan, estimated_s=minutes * 60.0)
    return plan


def query_pace(stamps: Sequence[tuple[int, float]]) -> float | None:
    """Seconds per query from (queries done, time) stamps, the first query left out: it carries
    loading the indexes and the model, which a study pays once, not per trial."""
    if len(stamps) < 2 or stamps[-1][0] <= stamps[0][0]:
        return None
    (first_done, first_at), (last_done, last_at) = stamps[0], stamps[-1]
    return (last_at - first_at) / (last_done - first_done)


def choose_design(
    golden: GoldenSet,
    base: WorkbenchConfig,
    *,
    level: str | None = None,
    folds: int | None = None,
    holdout: float | None = None,
) -> tuple[LevelChoice, SplitChoice]:
    """The level and the split of an experiment on ``golden``: what was given, else the defaults
    (the level the set was judged at; K-fold under ``tuning.folds_below`` scorable queries). The
    one place CLI ``tune``, MCP ``tune`` and the app decide them; it evaluates nothing."""
    choice = choose_level(golden, level)
    settings = base.tuning
    split = choose_split(
        scored_at(golden, choice.level),
        folds=folds,
        holdout=holdout,
        folds_below=settings.folds_below,
        default_folds=settings.folds,
    )
    return choice, split


def scored_at(golden: GoldenSet, level: str) -> int:
    """Scorable queries at ``level``: at span level only those with span items."""
    queries = scorable(golden)
    return sum(1 for q in queries if q.has_spans) if level == "span" else len(queries)


def plan_tune(
    bench: WorkbenchFacade, request: TuneRequest, progress: Callable[[int, int], None] | None = None
) -> ExperimentPlan:
    """The plan of the study ``request`` describes (its level and split as ``build_request`` chose
    them), with the index builds its space needs in the time estimate."""
    from workbench.tuning.cost import estimate

    layouts = request.space.layouts(request.base)
    build_s = estimate(bench.catalog, bench.home, request.collection, layouts).seconds
    level_given = request.level_choice is None or request.level_choice.given
    split_given = request.split_choice is None or request.split_choice.given
    return plan_experiment(
        bench,
        request.collection,
        request.golden,
        request.base,
        metric=request.metric,
        level=request.level if level_given else None,
        folds=(request.folds if request.folds else None) if split_given else None,
        holdout=(None if request.folds else request.holdout) if split_given else None,
        trials=request.trials,
        minutes=request.minutes,
        build_s=build_s,
        progress=progress,
    )
