"""Tune this collection's core: the same defaults as ``tune -c C --golden G``, and a verdict that
gives both held-out means and the gain, each with its interval and query count."""

from __future__ import annotations

import pytest

from workbench.evaluation.golden import GoldenQuery, GoldenSet, RelevantItem
from workbench.service import tune_flow
from workbench.tuning.objective import Score
from workbench.tuning.study import TrialRecord
from workbench.tuning.tune import HeldOutPart, TuneReport, TuneRequest
from workbench.tuning.verdict import held_out_gain, pair


def test_the_flow_hands_build_request_what_the_tune_command_would():
    from workbench.cli import build_parser

    parsed = vars(build_parser().parse_args(["tune", "-c", "own", "--golden", "own-questions"]))
    flow = vars(tune_flow.tune_options(collection="own", golden="own-questions"))
    shared = set(parsed) & set(flow) - {"handler", "home", "json"}
    assert {"level", "folds", "holdout", "trials", "metric", "seed", "keys"} <= shared
    assert {key: flow[key] for key in shared} == {key: parsed[key] for key in shared}


def record(number: int) -> TrialRecord:
    return TrialRecord(number, {"retrieval.mode": "bm25"}, 0.5, 1.0, f"f{number}", 0.1)


def report_with(base: dict[str, float], tuned: dict[str, float]) -> TuneReport:
    from workbench.config import WorkbenchConfig
    from workbench.tuning.space import SearchSpace

    golden = GoldenSet("g", tuple(GoldenQuery(q, q, (RelevantItem("a.md"),)) for q in base))
    request = TuneRequest("c", golden, WorkbenchConfig(), "preset default", {}, SearchSpace(()), folds=2, level="span")
    ids = sorted(base)
    halves = (ids[: len(ids) // 2], ids[len(ids) // 2 :])
    parts = [
        HeldOutPart(
            f"fold {k + 1} of 2",
            record(k),
            Score(0, 0, {i: base[i] for i in half}, len(half)),
            Score(0, 0, {i: tuned[i] for i in half}, len(half)),
        )
        for k, half in enumerate(halves)
    ]
    report = TuneReport(request, "study", "storage", parts=parts, winner=record(9))
    report.gain = held_out_gain("ndcg@10", pair(base, tuned), resamples=1000)
    return report


def test_the_verdict_pools_the_folds_means_and_the_gain_each_with_interval_and_count():
    base = {"q1": 0.2, "q2": 0.4, "q3": 0.5, "q4": 0.3}
    tuned = {"q1": 0.6, "q2": 0.7, "q3": 0.9, "q4": 0.8}
    verdict = tune_flow.verdict_of(report_with(base, tuned), resamples=1000)
    assert verdict is not None
    assert verdict.base.mean == pytest.approx(0.35) and verdict.base.queries == 4  # (0.2+0.4+0.5+0.3)/4
    assert verdict.winner.mean == pytest.approx(0.75) and verdict.winner.queries == 4
    assert verdict.gain.mean == pytest.approx(0.40) and verdict.gain.queries == 4
    # every difference is +0.3 to +0.5, so every resampled mean lies in [0.3, 0.5]
    assert 0.3 <= verdict.gain.interval.low <= verdict.gain.interval.high <= 0.5 and verdict.holds
    assert verdict.base.interval.low <= 0.35 <= verdict.base.interval.high
    lines = verdict.lines()
    assert lines[0].startswith("starting configuration: ndcg@10 0.3500") and "over 4 queries" in lines[0]
    assert "better than your current configuration" in lines[2]
    assert lines[3] == "measured at span level on held-out queries (2-fold nested cross-validation, seed 0)"


def test_a_gain_whose_interval_reaches_zero_does_not_hold():
    base = {"q1": 0.2, "q2": 0.9, "q3": 0.5, "q4": 0.6}
    tuned = {"q1": 0.6, "q2": 0.5, "q3": 0.5, "q4": 0.7}  # differences +0.4, -0.4, 0, +0.1
    verdict = tune_flow.verdict_of(report_with(base, tuned), resamples=1000)
    assert verdict is not None and verdict.gain.mean == pytest.approx(0.025)
    assert verdict.gain.interval.low < 0 < verdict.gain.interval.high and not verdict.holds
