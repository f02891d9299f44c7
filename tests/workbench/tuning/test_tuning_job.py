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
