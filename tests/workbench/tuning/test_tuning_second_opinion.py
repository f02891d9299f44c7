"""A second opinion: inside the study's interval, outside by chance, or outside for real (hand-computed)."""

from __future__ import annotations

import pytest

from workbench.evaluation.intervals import Interval
from workbench.tuning.second_opinion import SecondOpinion, StudyClaim


def opinion(study: tuple[float, float, float], fresh: tuple[float, float, float]) -> SecondOpinion:
    claim = StudyClaim("s", "questions", "span", "ndcg@10", *study, 205, {}, "preset default")
    return SecondOpinion(claim, "fresh", "span", 101, fresh[0], Interval(fresh[1], fresh[2]))


def test_a_fresh_gain_inside_the_study_interval_holds():
    found = opinion((0.0452, 0.0224, 0.0700), (0.0500, 0.0100, 0.0900))
    assert found.inside and "inside the interval the study reported" in found.describe()


def test_a_fresh_gain_below_the_interval_by_chance_is_consistent():
    # se 0.0482 / 2 / 1.96 = 0.012296 and 0.0468 / 2 / 1.96 = 0.011939; together 0.017139;
    # -0.0316 +- 1.96 x 0.017139 = [-0.0652, +0.0020]: covers zero
    found = opinion((0.0707, 0.0473, 0.0955), (0.0391, 0.0175, 0.0643))
    difference, interval = found.difference
    assert difference == pytest.approx(-0.0316)
    assert (interval.low, interval.high) == pytest.approx((-0.0652, 0.0020), abs=5e-5)
    assert not found.inside and found.consistent
    assert (
        "below the interval the study reported, but not significantly (the two gains differ by -0.0316 "
        "[-0.0652, +0.0020], which covers zero): consistent with the study" in found.describe()
    )


def test_a_fresh_gain_far_below_the_interval_says_the_study_overstated_it():
    # se 0.0476 / 3.92 = 0.012143 and 0.0489 / 3.92 = 0.012474; together 0.017409;
    # -0.0769 +- 1.96 x 0.017409 = [-0.1110, -0.0428]
    found = opinion((0.0452, 0.0224, 0.0700), (-0.0317, -0.0574, -0.0085))
    difference, interval = found.difference
    assert (interval.low, interval.high) == pytest.approx((-0.1110, -0.0428), abs=5e-5)
    assert not found.consistent
    assert "below the interval the study reported: the study overstated the gain (the two gains differ by -0.0769" in (
        found.describe()
    )
    assert found.to_dict()["consistent"] is False
