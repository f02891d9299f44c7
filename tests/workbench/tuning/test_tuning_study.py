"""The study loop on a known objective: exhaustive or TPE, no repeats, interruption and resume, stop, lock."""

from __future__ import annotations

import threading

import pytest
from optuna.trial import TrialState

from workbench.config import WorkbenchConfig
from workbench.evaluation.inputs import config_hash
from workbench.tuning.objective import Score, Stopped
from workbench.tuning.space import Models, apply, default_space
from workbench.tuning.study import (
    POINT,
    Budget,
    StudyError,
    StudyOutcome,
    TrialRecord,
    exclusive,
    open_storage,
    open_study,
    pareto_front,
    run_study,
)

BASE = WorkbenchConfig()
MODE_SCORE = {"bm25": 0.5, "dense": 0.6, "hybrid": 0.7}


class KnownObjective:
    """metric: hybrid > dense > bm25, MMR costs (1 - lambda) / 10; p95: MMR is slow. Records every call."""

    def __init__(self, fail_at: int | None = None, exception: type[BaseException] = KeyboardInterrupt):
        self.calls: list[str] = []
        self.fail_at = fail_at
        self.exception = exception

    def __call__(self, config: WorkbenchConfig) -> Score:
        if self.fail_at is not None and len(self.calls) + 1 == self.fail_at:
            self.calls.append("interrupted:" + config_hash(config))
            raise self.exception()
        self.calls.append(config_hash(config))
        metric = MODE_SCORE[config.retrieval.mode] - ((1 - config.mmr.lambda_) / 10 if config.mmr.enabled else 0.0)
        return Score(metric, 30.0 if config.mmr.enabled else 10.0, {}, 5)

    @property
    def evaluated(self) -> list[str]:
        return [call for call in self.calls if not call.startswith("interrupted:")]


SPACE = default_space(BASE, Models(), ["retrieval.mode", "mmr.enabled", "mmr.lambda"])  # 3 x (1 + 9) = 30 points


def new_study(tmp_path, name="s", seed=0):
    return open_study(open_storage(tmp_path / "study.journal"), name, seed=seed, pareto=False, max_p95_ms=None)


def test_a_space_no_bigger_than_the_budget_is_searched_exhaustively(tmp_path):
    small = default_space(BASE, Models(), ["retrieval.mode", "mmr.enabled"])  # 3 x 2 points
    objective = KnownObjective()
    outcome = run_study(new_study(tmp_path), small, BASE, objective, Budget(10))
    assert outcome.exhaustive and outcome.space_size == 6
    assert len(outcome.trials) == 6 and len(set(objective.calls)) == 6 == len(objective.calls)
    assert {t.fingerprint for t in outcome.trials} == {config_hash(apply(BASE, p)) for p in small.points(BASE)}
    best = outcome.best()
    assert best.params == {"retrieval.mode": "hybrid", "mmr.enabled": False} and best.metric == 0.7


def test_tpe_stops_at_the_budget_and_never_evaluates_a_configuration_twice(tmp_path):
    objective = KnownObjective()
    outcome = run_study(new_study(tmp_path), SPACE, BASE, objective, Budget(12), seed=3)
    assert not outcome.exhaustive
    assert len(outcome.trials) == 12 and len(objective.calls) == 12 == len(set(objective.calls))


def test_interrupted_trial_is_failed_then_rerun_first_and_completed_ones_kept(tmp_path):
    first = KnownObjective(fail_at=5)
    stopped = run_study(new_study(tmp_path), SPACE, BASE, first, Budget(12), seed=1)
    assert stopped.stopped and len(stopped.trials) == 4
    interrupted = first.calls[-1].removeprefix("interrupted:")
    study = new_study(tmp_path)
    states = [t.state for t in study.get_trials()]
    assert states.count(TrialState.COMPLETE) == 4 and states.count(TrialState.FAIL) == 1
    second = KnownObjective()
    resumed = run_study(study, SPACE, BASE, second, Budget(12), seed=1)
    assert resumed.resumed == 4 and resumed.rerun == 1 and len(resumed.trials) == 12
    assert second.calls[0] == interrupted  # the trial in flight runs again, first
    assert len(second.calls) == 8 and not set(second.calls) & set(first.evaluated)  # none of the 4 again
    assert [t.number for t in resumed.trials[:4]] == [t.number for t in stopped.trials]


def test_a_trial_left_running_by_a_dead_process_is_failed_and_rerun(tmp_path):
    study = new_study(tmp_path)
    orphan = study.ask()  # as a killed process leaves it: running, with its parameters recorded
    params = SPACE.suggest(orphan, BASE)
    orphan.set_user_attr(POINT, {"params": params, "fingerprint": "x"})
    objective = KnownObjective()
    outcome = run_study(new_study(tmp_path), SPACE, BASE, objective, Budget(3), seed=2)
    assert outcome.rerun == 1 and objective.calls[0] == config_hash(apply(BASE, params))
    assert new_study(tmp_path).get_trials()[0].state == TrialState.FAIL


def test_a_stop_request_ends_the_study_between_trials(tmp_path):
    cancel = threading.Event()
    objective = KnownObjective()

    def stop_after_three(event):
        if event.done == 3:
            cancel.set()

    outcome = run_study(
        new_study(tmp_path), SPACE, BASE, objective, Budget(20), progress=stop_after_three, cancel=cancel
    )
    assert outcome.stopped and len(outcome.trials) == 3 and len(objective.calls) == 3
    stopped_inside = run_study(new_study(tmp_path, "t"), SPACE, BASE, KnownObjective(2, Stopped), Budget(20))
    assert stopped_inside.stopped and len(stopped_inside.trials) == 1


def test_progress_reports_done_target_best_and_time_left(tmp_path):
    events = []
    run_study(new_study(tmp_path), SPACE, BASE, KnownObjective(), Budget(6), seed=4, progress=events.append)
    assert events[0].message == "starting" and events[-1].message == "finished"
    middle = events[3]
    assert middle.done == 3 and middle.target == 6 and middle.best is not None and middle.eta_s is not None


def test_only_one_process_runs_a_study(tmp_path):
    with exclusive(tmp_path, "s"):
        with pytest.raises(StudyError, match="running in another process"):
            with exclusive(tmp_path, "s"):
                pass
    with exclusive(tmp_path, "s"):  # released afterwards
        pass


def test_latency_constraint_and_pareto_front():
    trials = [
        TrialRecord(0, {"a": 1}, 0.70, 50.0, "x", 1.0),
        TrialRecord(1, {"a": 2}, 0.65, 10.0, "y", 1.0),
        TrialRecord(2, {"a": 3}, 0.60, 20.0, "z", 1.0),  # beaten by 1 on both
        TrialRecord(3, {"a": 4}, 0.70, 40.0, "w", 1.0),  # same metric as 0, faster
    ]
    outcome = StudyOutcome("s", trials)
    assert outcome.best().number == 3 and outcome.best(max_p95_ms=30).number == 1
    assert outcome.best(max_p95_ms=5) is None
    assert [t.number for t in pareto_front(trials)] == [1, 3]
