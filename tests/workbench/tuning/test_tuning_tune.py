"""The whole procedure on a real (small) collection: studies, held-out verdicts, and the saving rule."""

from __future__ import annotations

import pytest

from workbench.evaluation import golden as golden_sets
from workbench.tuning.space import Models, default_space
from workbench.tuning.split import holdout_split
from workbench.tuning.study import StudyError
from workbench.tuning.tune import TuneRequest, run_tune, save_winner


def request_for(home, golden: str, keys: list[str], **options) -> TuneRequest:
    bench = home.bench()
    base = bench.config_for(home.collection, overrides=["retrieval.mode=dense"])
    return TuneRequest(
        collection=home.collection,
        golden=golden_sets.find(golden, bench.home),
        base=base,
        base_name="preset default with retrieval.mode=dense",
        base_overrides={"retrieval.mode": "dense"},
        space=default_space(base, Models(), keys),
        **{"seed": 1, "trials": 12, **options},
    )


class RecordingBench:
    """The workbench, with every query text it runs recorded (to see which queries a phase touched)."""

    def __init__(self, bench):
        self._bench = bench
        self.queried: list[str] = []

    def __getattr__(self, name):
        return getattr(self._bench, name)

    def query(self, text, collection, config, source=None):
        self.queried.append(text)
        return self._bench.query(text, collection, config, source)


def test_a_truly_better_configuration_is_found_held_out_and_saved(lexicon_home):
    request = request_for(lexicon_home, "codes", ["retrieval.mode", "mmr.enabled"])
    bench = RecordingBench(lexicon_home.bench())
    before_scoring: list[int] = []

    def mark_scoring(event):
        if event.message == "scoring":
            before_scoring.append(len(bench.queried))

    report = run_tune(bench, request, progress=mark_scoring)
    outcome = report.final
    assert outcome.exhaustive and len(outcome.trials) == 6  # 3 modes x MMR on/off: every point, once
    assert report.winner.params["retrieval.mode"] == "bm25"
    gain = report.gain
    assert gain.queries == 18 and gain.better and gain.interval.low > 0.3  # dense misses most code words
    # the held-out queries reached the workbench only after the study was over
    held_out = {q.query for q in holdout_split(request.golden, 0.3, 1).held_out.queries}
    assert before_scoring and not held_out & set(bench.queried[: before_scoring[0]])
    assert held_out <= set(bench.queried[before_scoring[0] :])

    decision = save_winner(bench, report, "tuned")
    assert decision.saved and "saved preset 'tuned'" in decision.message
    stored = {p.name: p for p in lexicon_home.bench().presets()}["tuned"]
    assert stored.overrides == {"retrieval.mode": "bm25"}  # only what the study varied and the winner changed
    provenance = stored.provenance
    assert provenance["study"] == report.name and provenance["forced"] is False
    assert provenance["golden_hash"] == golden_sets.content_hash(request.golden)
    assert provenance["split"] == {"holdout": 0.3} and provenance["seed"] == 1
    assert provenance["held_out"]["interval"]["low"] == pytest.approx(gain.interval.low)
    assert "held-out ndcg@10" in stored.description


def test_when_no_configuration_is_better_nothing_is_saved_unless_forced(lexicon_home):
    request = request_for(lexicon_home, "noise", ["retrieval.mode", "mmr.enabled", "mmr.lambda"])
    bench = lexicon_home.bench()
    report = run_tune(bench, request)
    gain = report.gain
    assert len(report.final.trials) == 12 and not report.final.exhaustive  # 3 x (1 + 9) = 30 points, TPE
    assert gain.interval.covers(0.0) and gain.verdict() == "not distinguishable from your current configuration"
    refused = save_winner(bench, report, "lucky")
    assert not refused.saved and "nothing saved as 'lucky'" in refused.message and "--force" in refused.message
    assert "lucky" not in {p.name for p in bench.presets()}
    forced = save_winner(bench, report, "lucky", force=True)
    assert forced.saved and "(forced)" in forced.message
    stored = {p.name: p for p in bench.presets()}["lucky"]
    assert stored.provenance["forced"] is True and "--force" in stored.description


def test_nested_cross_validation_holds_every_query_out_once(lexicon_home):
    request = request_for(lexicon_home, "codes", ["retrieval.mode"], folds=3, trials=5)
    report = run_tune(lexicon_home.bench(), request)
    assert [label for label, _ in report.outcomes] == ["fold 1 of 3", "fold 2 of 3", "fold 3 of 3", "all queries"]
    assert sum(part.base.queries for part in report.parts) == 60 == report.gain.queries
    assert report.winner.params == {"retrieval.mode": "bm25"} and report.gain.better


def test_a_study_is_resumed_only_when_asked_and_keeps_its_trials(lexicon_home, tune_embedder):
    request = request_for(lexicon_home, "codes", ["retrieval.mode", "chunking.size"], trials=4)
    bench = lexicon_home.bench()
    calls_before = len(tune_embedder.calls)
    first = run_tune(bench, request)
    layouts = {"recursive-100c-0", "recursive-500c-0", "recursive-1000c-0"}
    assert {cost.layout.chunkset_key.rsplit("-", 1)[0] for cost in first.cost.layouts} == layouts
    assert first.cost.texts == 60  # each note is one chunk at 500 and at 1000: the same 60 texts
    # the two new layouts share those texts, and each is embedded exactly once
    queries = {q.query for q in request.golden.queries}
    corpus = [t for call in tune_embedder.calls[calls_before:] for t in call if t not in queries]
    assert first.embedded_texts == 60 == len(corpus) == len(set(corpus))
    with pytest.raises(StudyError, match="already exists.*--resume"):
        run_tune(bench, request)
    again = run_tune(lexicon_home.bench(), request.__class__(**{**request.__dict__, "resume": True, "trials": 6}))
    outcome = again.final
    assert outcome.resumed == 4 and len(outcome.trials) == 6
    assert [t.number for t in outcome.trials[:4]] == [t.number for t in first.final.trials]
    assert again.embedded_texts == 0  # every layout's texts were cached by the first run
    with pytest.raises(StudyError, match="no study .* to resume"):
        run_tune(bench, request.__class__(**{**request.__dict__, "resume": True, "seed": 9}))
