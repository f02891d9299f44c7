"""Abstention precision and recall, and no-answer queries in golden sets and evaluation runs."""

from __future__ import annotations

import json

import pytest

from workbench.evaluation.abstention import AbstentionReport, abstention
from workbench.evaluation.golden import parse_text
from workbench.evaluation.runner import evaluate_collection
from workbench.evaluation.runs import load_run, save_run


def test_precision_and_recall_by_hand():
    report = abstention(["relevant", "no_answer", "ambiguous", "relevant"], ["no_answer", "no_answer", "ambiguous"])
    # abstentions: 1 wrong (answerable) + 2 right (no-answer)
    assert report.precision == pytest.approx(2 / 3)
    assert report.recall == pytest.approx(2 / 3)
    assert report.answered_rate == pytest.approx(3 / 4)
    assert report.verdicts == {"no_answer": 3, "ambiguous": 2, "relevant": 2}
    assert AbstentionReport.from_dict(report.to_dict()) == report


def test_undefined_shares_are_none():
    never = abstention(["relevant"], ["ambiguous"])
    assert never.precision is None and never.recall == 0.0
    assert abstention(["no_answer"], []).recall is None
    assert "precision n/a" in never.describe()


def test_an_empty_relevant_list_is_a_no_answer_query():
    (query,) = parse_text('{"id": "n1", "query": "how do I bake bread", "relevant": []}')
    assert query.is_no_answer and query.relevant == ()


def _with_no_answer_queries(home):
    path = home.golden_path
    lines = path.read_text(encoding="utf-8")
    extra = [
        {"id": "n1", "query": "volcanic eruptions on jupiter moons", "relevant": []},
        {"id": "n2", "query": "国际象棋开局", "relevant": []},
    ]
    path.write_text(lines + "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in extra), encoding="utf-8")
    return home.golden()


def test_evaluation_reports_abstention_beside_the_ranking_metrics(eval_home):
    golden = _with_no_answer_queries(eval_home)
    config = eval_home.bench.config_for("notes").with_value("retrieval.mode", "bm25")
    result = evaluate_collection(eval_home.bench, "notes", golden, config, level="doc", metric_names=["ndcg@10"])
    # the ranking metrics are over the four answerable queries only, as before
    assert [q.query_id for q in result.per_query] == ["d1", "s1", "s2", "s3"]
    assert result.skipped == []
    report = result.abstention
    assert (report.answerable, report.no_answer) == (4, 2)
    # neither no-answer query shares a term with the collection: BM25 returns nothing, so no_answer
    assert report.abstained_on_no_answer == 2 and report.recall == 1.0
    assert all(q.verdict in ("relevant", "ambiguous", "no_answer") for q in result.per_query)
    assert report.abstained_on_answerable == sum(q.verdict == "no_answer" for q in result.per_query)

    run_id = save_run(eval_home.bench.catalog, result)
    loaded = load_run(eval_home.bench.catalog, run_id)
    assert loaded.abstention == report
    assert [q.verdict for q in loaded.per_query] == [q.verdict for q in result.per_query]


def test_a_set_without_no_answer_queries_has_no_abstention_report(eval_home):
    config = eval_home.bench.config_for("notes").with_value("retrieval.mode", "bm25")
    result = evaluate_collection(eval_home.bench, "notes", eval_home.golden(), config, metric_names=["ndcg@10"])
    assert result.abstention is None
    assert result.to_dict()["abstention"] is None
