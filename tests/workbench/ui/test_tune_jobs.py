"""One registry of running studies for the Tune tab's flow and its form: a second start on a
collection whose study runs is refused, naming that study and where to stop it, and each part
finds only the study it started."""

from __future__ import annotations

import pytest

from tests.workbench.tuning.test_tuning_tune import request_for
from tests.workbench.tuning_fixtures import lexicon_home, lexicon_template, tune_embedder  # noqa: F401
from workbench.tuning.job import TuneJob
from workbench.tuning.study import StudyError
from workbench.ui.tune_jobs import FLOW, FORM, StudyRegistry


def test_one_study_per_collection_and_the_refusal_names_it(lexicon_home):  # noqa: F811
    registry = StudyRegistry()
    key = (str(lexicon_home.home), "lex")
    # 200 trials: still running when the form tries to start beside it (stopped below)
    first = request_for(lexicon_home, "codes", ["retrieval.mode", "fusion.k"], trials=200)
    registry.start(key, TuneJob(lexicon_home.bench(), first), FLOW)
    started = registry.get(key)
    assert started is not None and started.origin == FLOW and started.running

    second = TuneJob(lexicon_home.bench(), request_for(lexicon_home, "noise", ["retrieval.mode"], trials=2))
    with pytest.raises(StudyError) as refused:
        registry.start(key, second, FORM)
    assert str(refused.value) == (
        f"study {first.study_name()} (golden set 'codes', started from “Tune this collection”) is running on "
        "collection 'lex'; wait for it to finish or press Stop under “Tune this collection”, then start again"
    )
    assert not second.view().running and second.view().report is None  # refused: never started
    assert registry.get(key) is started  # the flow's study is still the one kept

    # another collection's key is free meanwhile
    other = (str(lexicon_home.home), "elsewhere")
    assert registry.get(other) is None

    started.job.stop()
    assert started.job.wait(timeout=120)
    registry.start(key, second, FORM)  # the first is over: the form's study starts, and is the one kept
    now = registry.get(key)
    assert now is not None and now.origin == FORM and now.job is second
    assert second.wait(timeout=300) and second.view().report is not None
