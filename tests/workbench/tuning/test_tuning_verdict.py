"""The paired bootstrap interval and the verdict it gives, against values worked out by hand."""

from __future__ import annotations

import pytest

from workbench.evaluation.intervals import Interval, paired_bootstrap_interval
from workbench.tuning.verdict import NOT_DISTINGUISHABLE, Gain, held_out_gain, pair


def test_identical_differences_give_a_point_interval():
    interval = paired_bootstrap_interval([0.2, 0.2, 0.2, 0.2], resamples=500)
    assert interval.low == pytest.approx(0.2) and interval.high == pytest.approx(0.2)


def test_two_queries_zero_and_one():
    # a resample of [0, 1] has mean 0 with probability 1/4, 1/2 with 1/2, 1 with 1/4: both 2.5% tails sit
    # inside the end blocks, so the 95% interval is exactly [0, 1]
    interval = paired_bootstrap_interval([0.0, 1.0], resamples=20_000, seed=3)
    assert (interval.low, interval.high) == (0.0, 1.0)


def test_three_queries_by_enumeration():
    # [-1, 0, 1]: the 27 equally likely resamples have sums -3..3 with counts 1, 3, 6, 7, 6, 3, 1.
    # P(sum = -3) = 1/27 > 2.5%, so the 95% interval is [-1, 1]; the cumulative share reaches 0.37 at
    # sum -1 and 0.63 at sum 0, so the 50% interval is [-1/3, 1/3].
    wide = paired_bootstrap_interval([-1.0, 0.0, 1.0], resamples=20_000, seed=1)
    assert (wide.low, wide.high) == (-1.0, 1.0)
    narrow = paired_bootstrap_interval([-1.0, 0.0, 1.0], resamples=20_000, seed=1, confidence=0.5)
    assert narrow.low == pytest.approx(-1 / 3) and narrow.high == pytest.approx(1 / 3)
    assert narrow.confidence == 0.5


def test_the_interval_is_repeatable_and_seeded():
    values = [0.1, -0.05, 0.3, 0.0, 0.2, -0.1, 0.05]
    assert paired_bootstrap_interval(values, seed=7) == paired_bootstrap_interval(values, seed=7)
    assert paired_bootstrap_interval(values, seed=7) != paired_bootstrap_interval(values, seed=8)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="at least one"):
        paired_bootstrap_interval([])
    with pytest.raises(ValueError, match="confidence"):
        paired_bootstrap_interval([1.0], confidence=1.0)
    with pytest.raises(ValueError, match="resamples"):
        paired_bootstrap_interval([1.0], resamples=0)


def test_pairing_keeps_only_queries_both_scored_in_id_order():
    paired = pair({"b": 0.5, "a": 0.2, "x": 1.0}, {"a": 0.4, "b": 0.5, "y": 0.0})
    assert paired.query_ids == ("a", "b")
    assert paired.base == (0.2, 0.5) and paired.winner == (0.4, 0.5)
    assert paired.differences == pytest.approx((0.2, 0.0))


def _gain(low: float, high: float) -> Gain:
    return Gain("ndcg@10", 30, 0.5, 0.52, Interval(low, high), 1000, 0)


def test_verdicts_read_the_interval():
    assert _gain(0.001, 0.04).better and _gain(0.001, 0.04).verdict() == "better than your current configuration"
    assert _gain(-0.04, -0.001).worse
    for low, high in ((-0.01, 0.03), (0.0, 0.03), (-0.03, 0.0)):
        gain = _gain(low, high)
        assert not gain.better and not gain.worse and gain.verdict() == NOT_DISTINGUISHABLE
    assert "not distinguishable from your current configuration" in _gain(-0.01, 0.03).describe()


def test_held_out_gain_means_and_rough_note():
    gain = held_out_gain("ndcg@10", pair({"a": 0.5, "b": 0.5}, {"a": 0.7, "b": 0.9}), resamples=2000)
    assert gain.base == pytest.approx(0.5) and gain.winner == pytest.approx(0.8)
    assert gain.mean == pytest.approx(0.3) and gain.interval.low == pytest.approx(0.2)
    assert gain.better and gain.power_note().startswith("only 2 held-out queries, so the interval is rough")
    assert gain.to_dict()["verdict"] == "better than your current configuration"
    with pytest.raises(ValueError, match="no held-out query"):
        held_out_gain("ndcg@10", pair({"a": 1.0}, {"b": 1.0}))
