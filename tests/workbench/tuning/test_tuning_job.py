"""The background job the Tune tab runs: progress as values, a report at the end, Stop, and resuming."""

from __future__ import annotations

import time

from tests.workbench.tuning.test_tuning_tune import request_for
from workbench.tuning.charts import pareto_chart
from workbench.tuning.job import TuneJob


def test_a_job_reports_progress_then_its_verdict(lexicon_home):
    job = TuneJob(lexicon_home.bench(), request_for(lexicon_home, "codes", ["retrieval.mode", "mmr.enabled"]))
    job.start()
    assert job.wait(timeout=300)
    view = job.view()
    assert not view.running and view.error is None and view.fraction == 1.0
    assert view.done == 6 and view.target == 6 and len(view.trials) == 6 and view.best.metric > 0.9
    assert view.report.gain.better and view.estimate and not view.resumed
    # issue 36: the Tune tab's table says what each column holds (a metric, or a count)
    from workbench.ui.tune_tab import part_rows

    row = part_rows(view.report)[0]
    assert row["held-out queries (count)"] == 18 and 0.9 < row["winner's ndcg@10 on its tuning queries"] <= 1
    assert {"ndcg@10 held out, current", "ndcg@10 held out, winner"} <= set(row)
    figure = pareto_chart(view.trials, "ndcg@10", view.report.winner)
    assert [trace.name for trace in figure.data] == [
        "trials",
        "Pareto front",
        f"winner (trial {view.report.winner.number})",
    ]


def test_stop_ends_a_job_and_starting_it_again_resumes(lexicon_home):
    request = request_for(lexicon_home, "noise", ["retrieval.mode", "mmr.enabled", "mmr.lambda"], trials=25)
    job = TuneJob(lexicon_home.bench(), request)
    job.start()
    deadline = time.monotonic() + 120
    while job.view().done < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    job.stop()
    assert job.wait(timeout=120)
    stopped = job.view().report
    assert stopped.stopped and stopped.gain is None and 2 <= stopped.trials < 25
    again = TuneJob(lexicon_home.bench(), request)
    again.start()
    assert again.wait(timeout=300) and again.view().resumed
    report = again.view().report
    assert report.final.resumed == stopped.trials and len(report.final.trials) == 25 and report.gain is not None


def test_time_left_counts_the_embedding_the_estimate_foresaw_until_its_layout_is_built():
    """Issue 36: progress read "about 1 s left" while the study embedded 172 texts it had estimated at 32 s."""
    from workbench.config import WorkbenchConfig
    from workbench.layout import Layout
    from workbench.tuning.cost import CostEstimate, LayoutCost
    from workbench.tuning.job import TuneJob
    from workbench.tuning.study import StudyProgress, TrialRecord
    from workbench.tuning.tune import TuneProgress

    layout = Layout.of(WorkbenchConfig().with_overrides(["chunking.size=500"]))
    job = TuneJob(bench=None, request=None)  # the view's bookkeeping only: nothing is started
    job._estimate(CostEstimate((LayoutCost(layout, False, 4, 4, 172),), rate=5.375, measured=True))
    assert job.view().embed_left_s == 32.0  # 172 texts at 5.375 texts/s

    def trial_done(eta_s: float) -> None:
        trial = TrialRecord(number=2, params={}, metric=0.5, p95_ms=1.0, fingerprint="f", seconds=0.3)
        study = StudyProgress("s", 3, 18, trial, 1.0, eta_s, last=trial)
        job._progress(TuneProgress("holdout", 1, 1, study, eta_s))

    trial_done(1.0)
    assert job.view().time_left_s == 33.0  # one second of trials, and the layout still to embed
    job._message(f"opening layout {layout.chunkset_key} (built first if it does not exist)")
    trial_done(1.0)  # the trial that opened it is done: it was built
    assert job.view().embed_left_s == 0.0 and job.view().time_left_s == 1.0
