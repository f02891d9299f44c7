"""Comparing two runs: wins and losses, most-changed queries, and the paired randomization test."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from workbench.config import WorkbenchConfig
from workbench.evaluation.compare import compare_runs, config_changes, paired_randomization_test
from workbench.evaluation.runner import EvaluationResult, QueryResult


def run(run_id: int, scores: dict[str, float], config: WorkbenchConfig | None = None, level: str = "doc"):
    per_query = [QueryResult(qid, f"query {qid}", {"ndcg@10": s, "mrr@10": s / 2}, []) for qid, s in scores.items()]
    metrics = {"ndcg@10": float(np.mean(list(scores.values()))), "mrr@10": float(np.mean(list(scores.values()))) / 2}
    return EvaluationResult("c", "g", level, (config or WorkbenchConfig()).to_dict(), metrics, per_query, run_id=run_id)


def exact_p(differences: list[float]) -> float:
    """The exact two-sided sign-flip p-value, by enumerating every sign assignment."""
    observed = abs(np.mean(differences))
    extreme = sum(
        abs(np.mean([s * d for s, d in zip(signs, differences, strict=False)])) >= observed - 1e-12
        for signs in itertools.product((1, -1), repeat=len(differences))
    )
    return extreme / 2 ** len(differences)


def test_randomization_test_approaches_the_exact_p_value():
    # all three differences positive: only "all +" and "all -" are as extreme -> p = 2/8
    assert exact_p([1, 1, 1]) == 0.25
    test = paired_randomization_test([0, 0, 0], [1, 1, 1], permutations=20_000, seed=3)
    assert test.p_value == pytest.approx(0.25, abs=0.01)
    assert test.mean_difference == 1.0
    differences = [0.3, -0.1, 0.25, 0.4, 0.05, -0.2, 0.35, 0.15]
    test = paired_randomization_test(np.zeros(8), differences, permutations=20_000, seed=1)
    assert test.p_value == pytest.approx(exact_p(differences), abs=0.01)
    assert len(test.null_distribution) == 20_000


def test_randomization_test_is_seeded_and_never_zero():
    a, b = np.zeros(30), np.ones(30)
    first = paired_randomization_test(a, b, permutations=500, seed=7)
    assert first == paired_randomization_test(a, b, permutations=500, seed=7)
    # (almost surely) no random sign assignment is this extreme; the +1 keeps p above zero
    assert first.p_value == pytest.approx(1 / 501)


def test_identical_runs_have_p_one():
    test = paired_randomization_test([0.5, 0.2], [0.5, 0.2])
    assert test.p_value == 1.0 and test.mean_difference == 0.0


def test_wins_losses_ties_and_most_changed():
    a = run(1, {"q1": 0.5, "q2": 0.5, "q3": 0.9, "q4": 0.1, "q5": 0.3})
    b = run(
        2,
        {"q1": 0.7, "q2": 0.5, "q3": 0.2, "q4": 0.2, "q5": 0.3, "q9": 1.0},
        WorkbenchConfig().with_value("fusion.k", 30),
    )
    comparison = compare_runs(a, b, "ndcg@10", permutations=2000)
    assert (comparison.wins, comparison.losses, comparison.ties) == (2, 1, 2)
    assert [c.query_id for c in comparison.most_changed(10)] == ["q3", "q1", "q4"]
    assert comparison.most_changed(10)[0].delta == pytest.approx(-0.7)
    assert comparison.only_in_b == ("q9",)
    assert comparison.config_changes == (("fusion.k", 60, 30),)
    deltas = {d.metric: d for d in comparison.deltas}
    # averaged over the five shared queries only
    assert deltas["ndcg@10"].a == pytest.approx(0.46) and deltas["ndcg@10"].b == pytest.approx(0.38)
    assert any("only in run b" in w for w in comparison.warnings)


def test_comparing_different_levels_warns_and_unknown_metric_fails():
    a, b = run(1, {"q1": 0.5}), run(2, {"q1": 0.6}, level="span")
    assert any("differ in level" in w for w in compare_runs(a, b, permutations=10).warnings)
    with pytest.raises(ValueError, match="'recall@5' is not in both runs"):
        compare_runs(a, b, "recall@5")
    with pytest.raises(ValueError, match="share no query ids"):
        compare_runs(a, run(3, {"other": 1.0}))


def test_config_changes_lists_flat_keys():
    assert config_changes({"a": {"b": 1, "c": 2}}, {"a": {"b": 1, "c": 3}, "d": 4}) == (("a.c", 2, 3), ("d", None, 4))


def test_the_significance_chart_labels_only_the_observed_line():
    """Regression: the mirror line had ``annotation_text=None``, which Plotly draws as "new text"."""
    from workbench.evaluation.charts import significance_chart

    a = run(1, {"q1": 0.5, "q2": 0.4, "q3": 0.9})
    b = run(2, {"q1": 0.7, "q2": 0.6, "q3": 0.8})
    figure = significance_chart(compare_runs(a, b, "ndcg@10", permutations=200))
    texts = [annotation.text for annotation in figure.layout.annotations]
    assert texts == ["observed +0.1000"]
    assert len(figure.layout.shapes) == 2


def test_compare_defaults_put_the_older_run_as_baseline():
    """Regression: after a second run the pickers showed the new run as baseline a."""
    from workbench.evaluation.compare import compare_pickers

    # after one run both pickers hold it; a second run (id 2) arrives
    assert compare_pickers([2, 1], a=1, b=1, known=frozenset({1})) == (1, 2)
    # the user's own pick holds while no run is added
    assert compare_pickers([3, 2, 1], a=3, b=1, known=frozenset({1, 2, 3})) == (3, 1)
    # a third run resets to the newest against the one before it
    assert compare_pickers([3, 2, 1], a=2, b=1, known=frozenset({1, 2})) == (2, 3)
    assert compare_pickers([5], a=None, b=None, known=None) == (5, 5)
