"""The regression gate's decision, its JUnit XML, and the checks on a stored baseline run's inputs."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest

from workbench.evaluation.runner import EvaluationResult, QueryResult
from workbench.tuning.gate import baseline_problems, gate, junit_xml

IDS = [f"q{n}" for n in range(40)]


def scores(values) -> dict[str, float]:
    return dict(zip(IDS, values, strict=False))


def test_a_large_consistent_drop_fails():
    result = gate("ndcg@10", scores([0.8] * 40), scores([0.6] * 20 + [0.7] * 20), permutations=2000)
    assert result.difference == pytest.approx(-0.15)
    assert result.p_value < 0.01 and result.failed and result.status == "fail"
    assert result.interval.high < 0
    assert "FAIL: a drop of 0.1500 is larger than --max-drop 0.01 and significant" in result.reason()


def test_identical_scores_pass_with_p_one():
    result = gate("ndcg@10", scores([0.5, 0.9] * 20), scores([0.5, 0.9] * 20), permutations=500)
    assert result.difference == 0 and result.p_value == 1.0 and not result.failed
    assert result.reason() == "pass: no drop larger than --max-drop 0.01"


def test_a_drop_within_max_drop_passes_even_when_significant():
    result = gate("ndcg@10", scores([0.8] * 40), scores([0.795] * 40), permutations=500)
    assert result.p_value < 0.05 and not result.failed


def test_a_large_drop_the_test_cannot_tell_from_chance_passes():
    # one query falls a lot, the others do not move: the mean drops by 0.02 but a sign flip explains it
    result = gate("ndcg@10", scores([0.8] * 40), scores([0.0] + [0.8] * 39), permutations=2000)
    assert result.difference == pytest.approx(-0.02) and result.p_value > 0.05 and not result.failed
    assert "not significant" in result.reason()


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="--max-drop"):
        gate("ndcg@10", scores([1.0]), scores([1.0]), max_drop=-1)
    with pytest.raises(ValueError, match="--alpha"):
        gate("ndcg@10", scores([1.0]), scores([1.0]), alpha=1.5)
    with pytest.raises(ValueError, match="share no scored query"):
        gate("ndcg@10", {"a": 1.0}, {"b": 1.0})


def test_junit_xml_parses_and_carries_the_outcome():
    failed = gate("ndcg@10", scores([0.8] * 40), scores([0.5] * 40), permutations=500)
    root = ElementTree.fromstring(
        junit_xml(name="ndcg@10: preset p", result=failed, elapsed_s=1.5, properties={"a": 1})
    )
    suite = root.find("testsuite")
    assert suite.get("tests") == "1" and suite.get("failures") == "1" and suite.get("errors") == "0"
    case = suite.find("testcase")
    assert case.get("name") == "ndcg@10: preset p" and "significant" in case.find("failure").get("message")
    assert suite.find("properties/property").attrib == {"name": "a", "value": "1"}
    errored = ElementTree.fromstring(
        junit_xml(name="x", result=None, elapsed_s=0, properties={}, error="golden changed")
    )
    assert errored.find("testsuite").get("errors") == "1"
    assert errored.find("testsuite/testcase/error").get("message") == "golden changed"


def stored_run(**changes) -> EvaluationResult:
    values = {
        "collection": "docs",
        "golden": "g",
        "level": "doc",
        "config": {},
        "metrics": {"ndcg@10": 0.5},
        "per_query": [QueryResult("q1", "x", {"ndcg@10": 0.5}, [])],
        "run_id": 7,
        "golden_hash": "aaaa",
        "inputs": {"corpus": {"documents": 10, "hash": "c1"}, "config_hash": "h"},
    }
    return EvaluationResult(**{**values, **changes})


def problems(run: EvaluationResult, **now) -> list[str]:
    values = {
        "collection": "docs",
        "golden_name": "g",
        "golden_hash": "aaaa",
        "golden_queries": 1,
        "level": "doc",
        "metric": "ndcg@10",
        "corpus": {"documents": 10, "hash": "c1"},
    }
    return baseline_problems(run, **{**values, **now})


def test_a_baseline_run_with_the_same_inputs_has_no_problem():
    assert problems(stored_run()) == []


def test_each_changed_input_is_named():
    assert problems(stored_run(), golden_hash="bbbb", golden_queries=2) == [
        "the golden set 'g' changed since run 7: content hash aaaa then (1 queries scored), bbbb now (2 queries)"
    ]
    assert problems(stored_run(), corpus={"documents": 11, "hash": "c2"}) == [
        "the corpus of collection 'docs' changed since run 7: 10 documents (hash c1) then, 11 documents (hash c2) now"
    ]
    assert "scored at level span" in problems(stored_run(level="span"))[0]
    assert "has no recall@5" in problems(stored_run(), metric="recall@5")[0]
    assert "measured collection 'other'" in problems(stored_run(collection="other"))[0]
    assert "before runs recorded their corpus" in problems(stored_run(inputs={}))[0]
    assert "before runs recorded their golden set" in problems(stored_run(golden_hash=""))[0]
