"""The one bootstrap behind every interval: a mean's interval checked against a bootstrap done by hand."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.evaluation.intervals import (
    BEST,
    LOWER,
    NOT_DISTINGUISHABLE,
    against_best,
    bootstrap_interval,
    mean_interval,
    metric_intervals,
)


def test_a_mean_interval_is_the_percentile_bootstrap_done_by_hand():
    values = [0.0, 0.5, 1.0, 1.0]
    # by hand: 1,000 resamples of four indices from the seeded generator, their means, the 2.5% and 97.5% points
    rng = np.random.default_rng(5)
    means = np.asarray(values)[rng.integers(0, 4, size=(1000, 4))].mean(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    found = mean_interval(values, resamples=1000, seed=5)
    assert found.mean == pytest.approx(0.625) and found.queries == 4
    assert (found.interval.low, found.interval.high) == (pytest.approx(low), pytest.approx(high))
    # four values: the resample means are multiples of 1/8 from 0 to 1; the tails land on 0.25 and 1.0
    assert (found.interval.low, found.interval.high) == (0.25, 1.0)
    assert found.describe() == "0.6250 [0.2500, 1.0000] over 4 queries"


def test_one_value_gives_a_point_and_metrics_without_values_are_left_out():
    interval = bootstrap_interval([0.7], resamples=50)
    assert (interval.low, interval.high) == (pytest.approx(0.7), pytest.approx(0.7))
    found = metric_intervals([{"ndcg@10": 1.0}, {"ndcg@10": 0.0}], ["ndcg@10", "mrr@10"], resamples=200)
    assert set(found) == {"ndcg@10"} and found["ndcg@10"].queries == 2


def test_against_the_best_a_tie_is_not_distinguishable_and_a_clear_loss_is_lower():
    best = {f"q{i}": 1.0 for i in range(12)}
    tied = {**best, "q0": 0.0}  # one query worse: the interval of the difference reaches zero
    worse = {qid: 0.0 for qid in best}
    standing = against_best({"a": best, "b": tied, "c": worse}, "a", resamples=2000)
    assert standing == {"a": BEST, "b": NOT_DISTINGUISHABLE, "c": LOWER}


def test_the_heatmap_marks_the_best_cell_and_those_not_distinguishable_from_it():
    from workbench.evaluation.charts import sweep_heatmap

    rows = [
        {"a": 1, "b": "x", "ndcg@10": 0.9, "vs best": BEST},
        {"a": 2, "b": "x", "ndcg@10": 0.88, "vs best": NOT_DISTINGUISHABLE},
        {"a": 1, "b": "y", "ndcg@10": 0.5, "vs best": LOWER},
    ]
    figure = sweep_heatmap(rows, "a", "b", "ndcg@10")
    assert list(figure.data[0].text[0]) == ["0.9000 ★", "0.8800 ≈"] and figure.data[0].text[1][0] == "0.5000"
    assert "≈ not distinguishable from it" in figure.layout.title.text
