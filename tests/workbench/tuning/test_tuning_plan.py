"""The experiment plan: split defaults, passage groups, saturation and power, with hand-computed values."""

from __future__ import annotations

import math

import pytest

from workbench.evaluation.golden import GoldenQuery, GoldenSet, RelevantItem
from workbench.evaluation.judged import choose_level
from workbench.tuning.plan import plan_from_scores
from workbench.tuning.split import choose_split, fold_splits, holdout_split, shuffled_ids


def span_set(count: int, sources: list[int] | None = None) -> GoldenSet:
    queries = []
    for i in range(count):
        meta = None
        if sources:  # golden synth records the passage a question was written from
            meta = {"source": [{"doc": "a.md", "start": 100 * sources[i], "end": 100 * sources[i] + 90}]}
        queries.append(
            GoldenQuery(f"q{i:02d}", f"question {i}", (RelevantItem("a.md", start=i, end=i + 5),), meta=meta)
        )
    return GoldenSet("g", tuple(queries))


def test_the_split_defaults_to_k_fold_under_the_threshold_and_to_holdout_from_it():
    assert choose_split(299).folds == 5 and not choose_split(299).given
    assert "299 scorable queries are fewer than tuning.folds_below 300" in choose_split(299).reason
    assert choose_split(300).folds is None and choose_split(300).holdout == 0.3
    assert choose_split(3).folds == 3  # never more folds than queries
    assert choose_split(40, folds_below=30).folds is None  # the setting decides
    assert choose_split(40, holdout=0.2).folds is None and choose_split(40, holdout=0.2).given
    assert choose_split(400, folds=4).folds == 4
    assert choose_split(77).held_out_queries(77) == 77  # K-fold: every query held out once
    assert choose_split(1000).held_out_queries(1000) == 300


def test_questions_written_from_one_passage_stay_on_one_side():
    # 12 questions from 4 passages (3 each): no passage may straddle the split
    grouped = span_set(12, sources=[i // 3 for i in range(12)])
    for seed in range(5):
        split = holdout_split(grouped, 0.3, seed)
        for passage in range(4):
            members = {f"q{i:02d}" for i in range(12) if i // 3 == passage}
            assert members <= split.held_out_ids or members <= split.tuning_ids
        for fold in fold_splits(grouped, 2, seed):
            for passage in range(4):
                members = {f"q{i:02d}" for i in range(12) if i // 3 == passage}
                assert members <= fold.held_out_ids or members <= fold.tuning_ids
    with pytest.raises(ValueError, match="written from 4 passages, fewer than --folds 5"):
        fold_splits(grouped, 5, 0)


def test_without_shared_passages_the_split_is_what_it_was():
    plain = span_set(20)
    ids = shuffled_ids(plain, 3)
    assert holdout_split(plain, 0.3, 3).held_out_ids == frozenset(ids[:6])
    assert fold_splits(plain, 4, 3)[1].held_out_ids == frozenset(ids[1::4])


def test_plan_from_a_known_spread():
    golden = span_set(5)
    scores = {f"q{i:02d}": value for i, value in enumerate((0.2, 0.4, 0.6, 0.8, 1.0))}
    recall = dict.fromkeys(scores, 1.0) | {"q00": 0.5}
    plan = plan_from_scores(
        collection="c",
        golden=golden,
        metric="ndcg@10",
        level=choose_level(golden),
        split=choose_split(5),
        scores=scores,
        recall_at_10=recall,
        llm_available=True,
        seconds_per_query=0.01,
        trials=2,
    )
    # sd of 0.2..1.0 (ddof 1) = sqrt(0.4 / 4) = sqrt(0.1) = 0.316, above the typical 0.12, which is used
    assert plan.score_spread == pytest.approx(math.sqrt(0.1))
    assert plan.spread == pytest.approx(0.12) and not plan.spread_measured
    # ((1.96 + 0.84) * 0.12 / 0.02)^2 = 16.8^2 = 282.24 -> 283
    assert plan.needed_for_reference == 283
    # 5-fold: all 5 queries held out once; 2.8 * 0.12 / sqrt(5) = 0.150
    assert plan.held_out == 5 and plan.detectable_gain == pytest.approx(0.336 / math.sqrt(5))
    assert plan.base_mean == pytest.approx(0.6)
    assert not plan.saturation.saturated and plan.saturation.share == pytest.approx(0.8)
    # (283 - 5) / 0.9 = 308.9 -> 309 questions to ask for
    assert plan.grow is not None and (plan.grow.needed, plan.grow.questions, plan.grow.endpoint) == (283, 309, True)
    # 2 trials x (4 studies on 4 queries + the final one on 5) + winner and start on 5 held out = 60 queries
    assert plan.estimated_s == pytest.approx(0.6)
    lines = plan.describe()
    assert lines[0].startswith("level: span level: golden set 'g' was judged by passage")
    assert "a gain of 0.02 needs about 283 queries" in "\n".join(lines)
    assert "tune --grow-golden" in "\n".join(lines)


def test_scores_that_barely_vary_cap_the_spread():
    golden = span_set(3)
    scores = {"q00": 0.75, "q01": 0.8, "q02": 0.9}
    plan = plan_from_scores(
        collection="c",
        golden=golden,
        metric="ndcg@10",
        level=choose_level(golden),
        split=choose_split(3, holdout=0.3),
        scores=scores,
        recall_at_10=dict.fromkeys(scores, 0.0),
    )
    # mean 0.81667; squared deviations 0.004444 + 0.000278 + 0.006944 = 0.011667, / 2 = 0.0058333
    assert plan.spread == pytest.approx(math.sqrt(0.0058333), rel=1e-4) and plan.spread_measured
    # 7.84 * 0.0058333 / 0.0004 = 114.33 -> 115; one holdout of 0.3 of 3 queries holds out 1
    assert plan.needed_for_reference == 115 and plan.held_out == 1
    assert plan.grow is not None and not plan.grow.endpoint
    assert "configure an LLM endpoint to write about 125 more" in plan.grow.describe()  # (115 - 3) / 0.9 = 124.4


def test_the_pace_leaves_the_first_query_out():
    from workbench.tuning.plan import query_pace

    # the first query took 10 s (indexes and model loading); the next four, 2 s together
    assert query_pace([(1, 10.0), (2, 10.5), (3, 11.0), (5, 12.0)]) == pytest.approx(0.5)
    assert query_pace([(1, 10.0)]) is None


def test_a_saturated_set_says_so_and_names_the_fix():
    queries = tuple(
        GoldenQuery(f"q{i}", f"question {i}", (RelevantItem("a.md"), RelevantItem("a.md", quote=f"fact {i}")))
        for i in range(10)
    )
    golden = GoldenSet("beir", queries)
    scores = {q.id: 1.0 for q in queries} | {"q9": 0.5}
    recall = {q.id: 1.0 for q in queries} | {"q9": 0.0}  # 9 of 10 complete: exactly tuning.saturated_share
    plan = plan_from_scores(
        collection="c",
        golden=golden,
        metric="ndcg@10",
        level=choose_level(golden),
        split=choose_split(10),
        scores=scores,
        recall_at_10=recall,
    )
    assert plan.level.level == "doc" and plan.saturation.saturated and not plan.can_show_gain
    assert plan.grow is None  # more questions of the same kind would not help
    assert plan.saturation.describe() == (
        "at doc level 90% of 10 queries already find every document in the top 10: the set cannot show a gain at "
        "this level (a configuration can only reorder what is already found); evaluate at span level (--level "
        "span: 10 queries have passage judgements), or write harder questions"
    )
    assert any(line.startswith("WARNING: at doc level 90% of 10 queries") for line in plan.describe())


def test_a_set_saturated_in_recall_with_room_in_order_says_how_much_and_still_offers_to_grow():
    golden = span_set(10)
    scores = {f"q{i:02d}": 1.0 if i < 5 else 0.6 for i in range(10)}  # every passage found, half below first
    plan = plan_from_scores(
        collection="c",
        golden=golden,
        metric="ndcg@10",
        level=choose_level(golden),
        split=choose_split(10),
        scores=scores,
        recall_at_10={qid: 1.0 for qid in scores},
        llm_available=True,
    )
    # order alone could add 5 x (1 - 0.6) / 10 = 0.2
    assert plan.saturation.saturated and plan.saturation.order_room == pytest.approx(0.2)
    assert "only reorder what is found (that could add up to 0.2000 to ndcg@10)" in plan.saturation.describe()
    assert "cannot show a gain" not in plan.saturation.describe()
    # sd of the scores 0.211 > the typical 0.12: ((1.96 + 0.84) x 0.12 / 0.02)^2 = 282.2 -> 283 queries
    assert plan.grow is not None and plan.grow.needed == 283 and plan.grow.have == 10
