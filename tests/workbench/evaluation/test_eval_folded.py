"""How metrics credit a folded hit: once where it stands, for every place it names."""

from __future__ import annotations

import math

import pytest

from workbench.evaluation import metrics as m
from workbench.evaluation.stages import ranked_units, stage_rankings
from workbench.retrieval.ranking import RankedList
from workbench.retrieval.trace import StageTrace, Trace

# chunks 1, 2, 3 are one passage repeated (folded into 1); 4 is relevant elsewhere; 9 is not
RELEVANT = {1: 1, 2: 1, 3: 1, 4: 1}
FOLDED = [m.Places({1, 2, 3}), 9, 4]


def test_a_folded_hit_counts_once_where_it_stands():
    assert m.hit_at(FOLDED, RELEVANT, 1) == 1.0
    assert m.precision_at(FOLDED, RELEVANT, 3) == pytest.approx(2 / 3)
    assert m.mrr_at([9, *FOLDED], RELEVANT, 10) == 0.5


def test_recall_counts_every_relevant_place_it_names():
    assert m.recall_at(FOLDED, RELEVANT, 1) == pytest.approx(3 / 4)
    assert m.recall_at(FOLDED, RELEVANT, 3) == 1.0


def test_the_ideal_ranking_counts_the_places_of_one_hit_once():
    # merged judgements: {1,2,3} -> 1, 4 -> 1; ideal DCG@3 = 1 + 1/log2(3); the run's = 1 + 0 + 1/log2(4)
    ideal = 1 + 1 / math.log2(3)
    assert m.ndcg_at(FOLDED, RELEVANT, 3) == pytest.approx(1.5 / ideal)
    assert m.ndcg_at([m.Places({1, 2, 3}), 4], RELEVANT, 10) == 1.0  # folding perfectly scores 1
    # AP over the two merged relevant units: hits at 1 (P = 1) and 3 (P = 2/3)
    assert m.average_precision(FOLDED, RELEVANT, 10) == pytest.approx((1 + 2 / 3) / 2)


def test_a_place_grade_is_the_best_of_its_places():
    graded = {1: 1, 2: 2, 4: 1}
    ideal = 2 + 1 / math.log2(3)
    assert m.ndcg_at([4, m.Places({1, 2})], graded, 2) == pytest.approx((1 + 2 / math.log2(3)) / ideal)


def test_without_places_nothing_changes():
    plain = [1, 9, 4, 2]
    assert m.ndcg_at(plain, RELEVANT, 4) == pytest.approx(
        (1 + 1 / math.log2(4) + 1 / math.log2(5)) / (1 + 1 / math.log2(3) + 1 / math.log2(4) + 1 / math.log2(5))
    )
    assert m.average_precision(plain, RELEVANT) == pytest.approx((1 + 2 / 3 + 3 / 4) / 4)


def test_units_of_a_folded_list_at_both_levels():
    ranked = RankedList("final", (10, 20, 30, 40), (1, 2, 3, 4), (4.0, 3.0, 2.0, 1.0))
    places = {10: (11, 12), 30: (31,)}
    documents = {10: "a", 11: "b", 12: "a", 20: "b", 30: "c", 31: "c", 40: "d"}
    assert ranked_units(ranked, documents, "span", places) == [m.Places({10, 11, 12}), 20, m.Places({30, 31}), 40]
    # doc level: the first hit stands for a and b; 20's b was named already; 30's places are all c
    assert ranked_units(ranked, documents, "doc", places) == [m.Places({"a", "b"}), "c", "d"]
    assert ranked_units(ranked, documents, "doc") == ["a", "b", "c", "d"]


def test_stage_rankings_read_places_in_the_final_list_only():
    before = RankedList("rerank", (10, 11, 20), (1, 1, 2), (3.0, 2.0, 1.0))
    folded = RankedList("final", (10, 20), (1, 2), (3.0, 1.0))
    stages = (
        StageTrace("rerank", {}, before, 0.0),
        StageTrace("final", {}, folded, 0.0, (), {10: {"places": [11]}, 11: {"folded_into": 10, "overlap": 1.0}}),
    )
    trace = Trace("q", "c", {}, stages, {}, 0.0)
    rankings = stage_rankings(trace, "span")
    assert rankings["rerank"] == [10, 11, 20]  # the stages before it ranked the repeats apart
    assert rankings["final"] == [m.Places({10, 11}), 20]
    # and after a round trip through JSON, as stored runs keep it
    again = stage_rankings(Trace.from_dict(trace.to_dict()), "span")
    assert again == rankings
