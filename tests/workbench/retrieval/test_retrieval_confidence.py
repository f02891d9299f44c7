"""The confidence maths, checked against hand-computed values."""

import math

import numpy as np
import pytest

from workbench.retrieval.confidence import (
    AMBIGUOUS,
    DENSE,
    NO_ANSWER,
    RELEVANT,
    TERMS,
    Confidence,
    Evidence,
    SimilarityBaseline,
    combine,
    dense_excess,
    dense_z,
    expected_best_z,
    judge,
    level,
    probability,
    reaches,
    rejudge,
    similarity_baseline,
    term_coverage,
)


def test_level_reads_a_value_against_two_thresholds():
    assert level(0.29, 0.3, 0.7) == 0
    assert level(0.3, 0.3, 0.7) == 1  # at the low threshold is no longer "below" it
    assert level(0.69, 0.3, 0.7) == 1
    assert level(0.7, 0.3, 0.7) == 2


@pytest.mark.parametrize(
    "levels, verdict",
    [
        ([2, 2], RELEVANT),
        ([2, 1], RELEVANT),  # mean 1.5
        ([2, 0], AMBIGUOUS),
        ([1, 1], AMBIGUOUS),
        ([1, 0], AMBIGUOUS),  # mean 0.5 is still ambiguous
        ([0, 0], NO_ANSWER),
        ([1, 0, 0], NO_ANSWER),  # mean 1/3
        ([2], RELEVANT),
        ([0], NO_ANSWER),
        ([], AMBIGUOUS),
    ],
)
def test_combine_averages_the_levels(levels, verdict):
    assert combine(levels) == verdict


def test_term_coverage_weighs_terms_by_idf():
    match = term_coverage({"dicer": 3.0, "bind": 1.0}, ["dicer", "rna"])
    assert match.coverage == pytest.approx(0.75)  # 3 / (3 + 1)
    assert match.matched == ("dicer",) and match.missing == ("bind",)
    assert term_coverage({}, ["x"]).coverage == 0.0


def test_similarity_baseline_over_every_pair():
    e1, e2 = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    vectors = np.stack([e1, e2, (e1 + e2) / math.sqrt(2)])
    baseline = similarity_baseline(vectors)
    # pair cosines 0, 1/sqrt(2), 1/sqrt(2): mean sqrt(2)/3, population sd sqrt(1/3 - 2/9) = 1/3
    assert baseline.mean == pytest.approx(math.sqrt(2) / 3)
    assert baseline.sd == pytest.approx(1 / 3)
    assert baseline.pairs == 3
    assert similarity_baseline(vectors[:2]) is None


def test_similarity_baseline_samples_large_collections_deterministically():
    vectors = np.random.default_rng(1).normal(size=(50, 8))
    first, second = similarity_baseline(vectors, sample=10), similarity_baseline(vectors, sample=10)
    assert first == second and first.pairs == 45


def test_dense_z_and_probability():
    assert dense_z(0.8, SimilarityBaseline(0.2, 0.1, 10)) == pytest.approx(6.0)
    # the best of 100 chance draws: sqrt(2 ln 100) = 3.0349
    assert expected_best_z(100) == pytest.approx(3.034854, abs=1e-6)
    assert expected_best_z(1) == 0.0
    assert dense_excess(0.8, SimilarityBaseline(0.2, 0.1, 10), 100) == pytest.approx(6.0 - 3.034854, abs=1e-6)
    assert probability(0.0, "logit") == 0.5
    assert probability(2.0, "logit") == pytest.approx(1 / (1 + math.exp(-2)))
    assert probability(0.3, "probability") == 0.3


def _evidence(terms=0.8, dense=2.0, dense_used=True):
    return [Evidence(TERMS, terms, 0.3, 0.7, True, ""), Evidence(DENSE, dense, 1.0, 3.0, dense_used, "")]


def test_judge_combines_the_signals_in_use():
    confidence = judge(_evidence(), hits=5)  # terms level 2, dense level 1 -> 1.5
    assert confidence.verdict == RELEVANT
    assert confidence.reason == "terms says relevant; dense says ambiguous"
    assert judge(_evidence(terms=0.1, dense=0.5), hits=5).verdict == NO_ANSWER
    # an unused signal does not count: terms 0.1 alone says no_answer
    assert judge(_evidence(terms=0.1, dense=9.0, dense_used=False), hits=5).verdict == NO_ANSWER


def test_no_hit_means_no_answer_whatever_the_signals():
    assert judge(_evidence(), hits=0).verdict == NO_ANSWER


def test_rejudge_reads_the_same_values_against_other_thresholds():
    confidence = judge(_evidence(terms=0.5, dense=2.0), hits=3)
    assert confidence.verdict == AMBIGUOUS
    stricter = rejudge(confidence, {TERMS: (0.6, 0.9), DENSE: (2.5, 4.0)})
    assert stricter.verdict == NO_ANSWER
    assert stricter.signal(TERMS).low == 0.6


def test_confidence_round_trips_through_json_values():
    confidence = judge(_evidence(), hits=2)
    assert Confidence.from_dict(confidence.to_dict()) == confidence
    assert confidence.to_dict()["evidence"][0]["says"] == RELEVANT


def test_reaches_orders_the_verdicts():
    assert reaches(RELEVANT, AMBIGUOUS) and reaches(AMBIGUOUS, AMBIGUOUS)
    assert not reaches(NO_ANSWER, AMBIGUOUS)
    with pytest.raises(ValueError, match="use one of no_answer, ambiguous, relevant"):
        reaches("sure", AMBIGUOUS)
