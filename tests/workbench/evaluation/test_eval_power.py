"""How many queries a gain needs: n ≈ ((1.96 + 0.84) · sd / gain)², checked by hand."""

from __future__ import annotations

import pytest

from workbench.evaluation.power import TYPICAL_SPREAD, power_of, queries_needed, synthesis_size
from workbench.tuning.gate import gate
from workbench.tuning.verdict import held_out_gain, pair


def test_the_estimate_on_a_set_with_known_per_query_differences():
    # four queries; the candidate gains 0.2 on two of them and nothing on the others
    baseline = {"q1": 0.5, "q2": 0.6, "q3": 0.7, "q4": 0.8}
    candidate = {"q1": 0.7, "q2": 0.6, "q3": 0.9, "q4": 0.8}
    # by hand: d = (0.2, 0, 0.2, 0), mean 0.1, sd (n - 1) = sqrt(4 · 0.01 / 3) = 0.11547;
    # 0.02: (2.8 · 0.11547 / 0.02)² = 261.3 -> 262 queries; 0.1: (2.8 · 0.11547 / 0.1)² = 10.45 -> 11
    power = power_of(pair(baseline, candidate).differences)
    assert power.spread == pytest.approx(0.115470, abs=1e-6) and power.measured
    assert (power.needed(0.02), power.needed(power.gain)) == (262, 11)
    note = held_out_gain("ndcg@10", pair(baseline, candidate), resamples=2000).power_note()
    assert note.startswith("only 4 held-out queries, so the interval is rough; ")
    assert "a gain of 0.02 would need about 262 queries to show, the gain observed (+0.1000) about 11" in note
    result = gate("ndcg@10", baseline, candidate, permutations=200)
    assert "only 4 queries, so the interval is rough" in result.power_note()
    assert result.to_dict()["power"]["queries_needed_for_0.02"] == 262


def test_differences_that_do_not_vary_fall_back_to_the_typical_spread_and_say_so():
    power = power_of([0.0] * 7)
    assert not power.measured and power.spread == TYPICAL_SPREAD
    # (2.8 · 0.12 / 0.02)² = 282.24 -> 283
    assert power.needed(0.02) == 283 and power.needed(0.0) is None
    assert "typical spread (sd 0.12; these differences do not vary)" in power.note()
    assert "gain observed" not in power.note()


def test_the_synthesis_default_can_show_a_gain_of_005():
    # (2.8 · 0.12 / 0.05)² = 45.16 -> 46 queries kept; a tenth of the questions dropped: 46 / 0.9 -> 52 asked
    assert queries_needed(TYPICAL_SPREAD, 0.05) == 46 and synthesis_size() == 52
