"""Every metric against values worked out by hand."""

from __future__ import annotations

import math

import pytest

from workbench.evaluation import metrics as m

# ranking: a b c d e; relevant: b (grade 2), d (grade 1), z (grade 1, never retrieved)
RANKED = ["a", "b", "c", "d", "e"]
RELEVANT = {"b": 2, "d": 1, "z": 1}


def test_hit_at_k():
    assert m.hit_at(RANKED, RELEVANT, 1) == 0.0
    assert m.hit_at(RANKED, RELEVANT, 2) == 1.0


def test_precision_divides_by_k_even_past_the_end_of_the_list():
    assert m.precision_at(RANKED, RELEVANT, 2) == pytest.approx(1 / 2)
    assert m.precision_at(RANKED, RELEVANT, 4) == pytest.approx(2 / 4)
    assert m.precision_at(RANKED, RELEVANT, 10) == pytest.approx(2 / 10)


def test_recall_divides_by_all_relevant_items():
    assert m.recall_at(RANKED, RELEVANT, 2) == pytest.approx(1 / 3)
    assert m.recall_at(RANKED, RELEVANT, 5) == pytest.approx(2 / 3)


def test_reciprocal_rank_is_cut_at_k():
    assert m.mrr_at(RANKED, RELEVANT, 10) == pytest.approx(1 / 2)
    assert m.mrr_at(RANKED, RELEVANT, 1) == 0.0


def test_ndcg_uses_linear_graded_gains():
    # DCG@5 = 2/log2(3) + 1/log2(5); ideal = 2/log2(2) + 1/log2(3) + 1/log2(4)
    dcg = 2 / math.log2(3) + 1 / math.log2(5)
    ideal = 2 / 1 + 1 / math.log2(3) + 1 / 2
    assert m.ndcg_at(RANKED, RELEVANT, 5) == pytest.approx(dcg / ideal)
    # at k = 2 the ideal holds only the best two grades: 2/1 + 1/log2(3)
    assert m.ndcg_at(RANKED, RELEVANT, 2) == pytest.approx((2 / math.log2(3)) / (2 + 1 / math.log2(3)))


def test_ndcg_is_one_for_the_ideal_order_and_grade_order_matters():
    assert m.ndcg_at(["b", "d", "z"], RELEVANT, 3) == pytest.approx(1.0)
    swapped = m.ndcg_at(["d", "b", "z"], RELEVANT, 3)
    assert swapped < 1.0
    assert swapped == pytest.approx((1 + 2 / math.log2(3) + 1 / 2) / (2 + 1 / math.log2(3) + 1 / 2))


def test_average_precision():
    # hits at ranks 2 and 4: (1/2 + 2/4) / 3 relevant
    assert m.average_precision(RANKED, RELEVANT) == pytest.approx((1 / 2 + 2 / 4) / 3)
    assert m.average_precision(RANKED, RELEVANT, 3) == pytest.approx((1 / 2) / 3)


def test_nothing_relevant_scores_zero_everywhere():
    for name in ("hit@5", "precision@5", "recall@5", "mrr@5", "ndcg@5", "map@5", "map"):
        assert m.compute(name, RANKED, {}) == 0.0


def test_grade_zero_counts_as_not_relevant():
    relevant = {"a": 0, "b": 1}
    assert m.recall_at(RANKED, relevant, 5) == 1.0
    assert m.mrr_at(RANKED, relevant, 5) == pytest.approx(1 / 2)
    assert m.precision_at(RANKED, relevant, 2) == pytest.approx(1 / 2)


def test_empty_ranking():
    assert m.compute_all(["ndcg@10", "recall@10", "map@10"], [], RELEVANT) == {
        "ndcg@10": 0.0,
        "recall@10": 0.0,
        "map@10": 0.0,
    }


def test_compute_parses_names_and_rejects_bad_ones():
    assert m.compute("NDCG@5", RANKED, RELEVANT) == pytest.approx(m.ndcg_at(RANKED, RELEVANT, 5))
    with pytest.raises(ValueError, match="unknown metric 'f1@10'"):
        m.compute("f1@10", RANKED, RELEVANT)
    with pytest.raises(ValueError, match="needs a cutoff, like ndcg@10"):
        m.compute("ndcg", RANKED, RELEVANT)
    with pytest.raises(ValueError, match="positive integer"):
        m.compute("recall@0", RANKED, RELEVANT)


def test_parse_list_and_depth():
    assert m.parse_list(None) == m.DEFAULT_METRICS
    assert m.parse_list(" ndcg@10, recall@50 ,ndcg@10") == ("ndcg@10", "recall@50")
    assert m.depth_needed(["ndcg@10", "recall@50", "map"]) == 50
    assert m.depth_needed(["hit@1"]) == 10
    with pytest.raises(ValueError, match="no metrics given"):
        m.validate([" "])


def test_mean():
    assert m.mean([]) == 0.0
    assert m.mean([0.5, 1.0, 0.0]) == pytest.approx(0.5)
