""" "Tune this collection": the default path from a collection to a preset whose gain holds.

golden set (one that judges the collection, or one the LLM endpoint writes) -> the experiment
plan (``workbench.tuning.plan``: level from the set's judging, nested folds under
``tuning.folds_below``, power, time) -> the study with the CLI's defaults (``tune_options``:
one decision for CLI, MCP and app) -> both means and the gain, each with its interval and query
count -> a preset saved only when the gain's interval lies above zero -> the MCP client
configuration that serves it. Nothing here draws: the app's ``workbench.ui.tune_flow`` and the
bench ``bench/bench_own_collection.py`` call these functions.
"""

from __future__ import annotations

from argparse import Namespace
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from workbench.evaluation.intervals import DEFAULT_RESAMPLES, MeanInterval, mean_interval
from workbench.tuning.tune import TuneReport, TuneRequest
from workbench.tuning.verdict import Gain

#: the name a set written for a collection no golden set judges gets
WRITTEN_SET_SUFFIX = "-questions"
#: the name the flow saves the winner under
PRESET_SUFFIX = "-tuned"


def tune_options(**given: Any) -> Namespace:
    """What ``tune -c C --golden G`` with no other flag hands ``build_request``: every default left
    to the plan (level from the set's judging, split from its size, trials from ``tuning.trials``),
    with ``given`` on top. The MCP ``tune`` tool (``EvaluationLoop.tune``) and the app's flow build
    their requests from it, so the three cannot drift apart."""
    defaults: dict[str, Any] = {
        "home": None,
        "preset": None,
        "overrides": [],
        "json": True,
        "collection": None,
        "golden": None,
        "keys": None,
        "space": None,
        "metric": "ndcg@10",
        "level": None,
        "holdout": None,
        "folds": None,
        "seed": 0,
        "trials": None,
        "minutes": None,
        "max_p95_ms": None,
        "pareto": False,
        "study": None,
        "resume": False,
        "save_preset": None,
        "force": False,
        "grow_golden": False,
    }
    return Namespace(**{**defaults, **given})


def default_request(bench, collection: str, golden: str, preset: str | None = None, **given: Any) -> TuneRequest:
    """The study ``tune -c collection --golden golden [--preset preset]`` would run."""
    from workbench.service.commands import build_request

    return build_request(bench, tune_options(collection=collection, golden=golden, preset=preset, **given))


def written_set_name(collection: str) -> str:
    return f"{collection}{WRITTEN_SET_SUFFIX}"


def write_golden_set(
    bench,
    collection: str,
    preset: str | None = None,
    n: int | None = None,
    progress: Callable[[int, int], None] | None = None,
):
    """Have the LLM endpoint write ``n`` questions (default ``tuning.first_questions``) from the
    collection into the set ``<collection>-questions``; a run stopped midway resumes. Returns the
    ``SynthPlan`` and ``SynthReport``; raises naming the fix without an endpoint."""
    from workbench.golden.build import plan_synth, run_synth

    config = bench.config_for(collection, preset, [])
    count = n if n is not None else config.tuning.first_questions
    plan = plan_synth(bench, collection, config, n=count, seed=0, out=written_set_name(collection))
    return plan, run_synth(bench, plan, progress)


@dataclass(frozen=True)
class Verdict:
    """The study's answer, as the flow shows it: each mean and the gain with interval and count."""

    base: MeanInterval  # the starting configuration on the held-out queries
    winner: MeanInterval  # the winners (of each fold) on the same queries
    gain: Gain  # paired: winner - base
    split: str
    level: str

    @property
    def holds(self) -> bool:
        """The gain's whole interval lies above zero: the only case the flow saves a preset."""
        return self.gain.better

    def lines(self) -> list[str]:
        metric = self.gain.metric
        return [
            f"starting configuration: {metric} {self.base.describe()}",
            f"tuned: {metric} {self.winner.describe()}",
            f"gain: {self.gain.mean:+.4f} {self.gain.interval.describe()} over {self.gain.queries} queries "
            f"(paired): {self.gain.verdict()}",
            f"measured at {self.level} level on held-out queries ({self.split})",
        ]

    def to_dict(self) -> dict[str, object]:
        return {
            "base": self.base.to_dict(),
            "winner": self.winner.to_dict(),
            "gain": self.gain.to_dict(),
            "split": self.split,
            "level": self.level,
            "holds": self.holds,
        }


def verdict_of(report: TuneReport, resamples: int = DEFAULT_RESAMPLES) -> Verdict | None:
    """Both held-out means with their intervals, and the gain; None without a verdict."""
    if report.gain is None or not report.parts:
        return None
    base: dict[str, float] = {}
    tuned: dict[str, float] = {}
    for part in report.parts:
        base.update(part.base.per_query)
        tuned.update(part.tuned.per_query)
    ids = sorted(set(base) & set(tuned))
    seed = report.request.seed
    return Verdict(
        mean_interval([base[i] for i in ids], resamples, seed),
        mean_interval([tuned[i] for i in ids], resamples, seed),
        report.gain,
        report.request.split_description(),
        report.request.level,
    )


def preset_name(collection: str) -> str:
    return f"{collection}{PRESET_SUFFIX}"
