"""Fitting the confidence thresholds: the cut points by hand, and the command end to end."""

from __future__ import annotations

import json

import pytest

from workbench.config import ConfidenceConfig
from workbench.evaluation.calibration import CalibrationSample, balanced_cut, calibrate, fit_signal
from workbench.retrieval.confidence import DENSE, TERMS, Evidence, judge


def test_the_cut_sits_midway_in_the_gap_between_the_groups():
    # no-answer 0.1, 0.2; answerable 0.5, 0.8: every cut in (0.2, 0.5) separates them; the midpoint is 0.35
    assert balanced_cut([0.5, 0.8], [0.1, 0.2]) == pytest.approx(0.35)


def test_overlapping_groups_get_the_best_balanced_cut():
    # answerable 0.3, 0.6, 0.9; no-answer 0.1, 0.4. Cut 0.2: N 1/2 below, P 3/3 above -> 0.75;
    # cut 0.5: N 2/2, P 2/3 -> 0.8333 (best); cut 0.35: N 1/2, P 2/3 -> 0.583
    assert balanced_cut([0.3, 0.6, 0.9], [0.1, 0.4]) == pytest.approx(0.5)


def test_high_is_the_answerable_median_or_the_no_answer_tail():
    fit = fit_signal(TERMS, [0.5, 0.6, 0.8], [0.1, 0.2], (0.3, 0.7))
    assert fit.low == pytest.approx(0.35) and fit.high == pytest.approx(0.6) and fit.changed
    tail = fit_signal(TERMS, [0.5, 0.6, 0.8], [0.1, 0.2, 0.3, 0.9], (0.3, 0.7))
    # the 95th percentile of 0.1, 0.2, 0.3, 0.9 (linear) is 0.81, above the answerable median 0.6
    assert tail.high == pytest.approx(0.81)


def test_without_no_answer_queries_low_keeps_95_percent_above_it():
    values = [float(v) for v in range(1, 21)]  # 1..20: the 5th percentile (linear) is 1.95
    fit = fit_signal(DENSE, values, [], (-2.0, 0.0))
    assert fit.low == pytest.approx(1.95) and fit.high == pytest.approx(10.5)
    assert "add queries with an empty relevant list" in fit.method


def test_too_few_values_keep_the_thresholds():
    fit = fit_signal(TERMS, [0.5, 0.6], [0.1], (0.3, 0.7))
    assert (fit.low, fit.high, fit.changed) == (0.3, 0.7, False)


def _sample(query_id, answerable, terms, dense):
    evidence = [Evidence(TERMS, terms, 0.3, 0.7, True, ""), Evidence(DENSE, dense, -2.0, 0.0, True, "")]
    return CalibrationSample(query_id, answerable, judge(evidence, hits=3))


def test_calibration_reports_before_and_after_on_the_same_evidence():
    samples = [
        _sample("a1", True, 0.5, -1.0),
        _sample("a2", True, 0.6, -0.5),
        _sample("a3", True, 0.9, 0.5),
        _sample("n1", False, 0.45, -1.5),
        _sample("n2", False, 0.4, -1.8),
    ]
    calibration = calibrate(samples, ConfidenceConfig())
    # defaults: the no-answer queries sit above terms_low 0.3 and dense_low -2.0, so none abstains
    assert calibration.before.abstained_on_no_answer == 0
    # fitted: terms low = midpoint of 0.45 and 0.5, dense low = midpoint of -1.5 and -1.0
    overrides = calibration.overrides()
    assert overrides["confidence.terms_low"] == pytest.approx(0.475)
    assert overrides["confidence.dense_low"] == pytest.approx(-1.25)
    assert calibration.after.recall == 1.0 and calibration.after.abstained_on_answerable == 0


def test_calibration_needs_answerable_queries():
    with pytest.raises(ValueError, match="needs answerable queries"):
        calibrate([_sample("n1", False, 0.1, -3.0)], ConfidenceConfig())


def test_the_calibrate_command_stores_thresholds_with_the_collection(eval_home, capsys):
    from workbench.cli import main

    home = eval_home
    with home.golden_path.open("a", encoding="utf-8") as handle:
        for number, query in enumerate(["volcanic eruptions", "pelican migration routes", "tea ceremony"], 1):
            handle.write(json.dumps({"id": f"n{number}", "query": query, "relevant": []}) + "\n")
    args = ["calibrate", "-c", "notes", "-g", "notes", "--home", str(home.bench.home), "--json"]
    assert main(args) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["stored_in"] == "collection 'notes'"
    stored = home.bench.config_for("notes")
    for key, value in printed["overrides"].items():
        assert stored.get(key) == pytest.approx(value)
    assert printed["after"]["no_answer"] == 3

    # --preset stores them in the preset instead, and --dry-run stores nothing
    assert main(["save-preset", "tuned", "--set", "retrieval.mode=bm25", "--home", str(home.bench.home)]) == 0
    assert main(["calibrate", "-c", "notes", "--preset", "tuned", "--home", str(home.bench.home)]) == 0
    assert any(key.startswith("confidence.") for key in home.bench.preset_overrides("tuned"))
    assert home.bench.preset_overrides("tuned")["retrieval.mode"] == "bm25"
    out = capsys.readouterr().out
    assert "stored with preset 'tuned'" in out
    assert main(["calibrate", "-c", "notes", "--dry-run", "--home", str(home.bench.home)]) == 0
    assert "dry run: nothing stored" in capsys.readouterr().out
