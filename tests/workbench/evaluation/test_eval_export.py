"""Exports of runs, comparisons and sweeps as Markdown, HTML and CSV."""

from __future__ import annotations

import csv
import io

import pytest

from workbench.config import WorkbenchConfig
from workbench.evaluation import export
from workbench.evaluation.compare import compare_runs
from workbench.evaluation.runner import EvaluationResult, QueryResult


def result(run_id: int, scores: list[float], mode: str = "hybrid") -> EvaluationResult:
    per_query = [
        QueryResult(f"q{i}", f"what | is {i}?", {"ndcg@10": s}, [f"doc{i}", "other"], relevant=1)
        for i, s in enumerate(scores, start=1)
    ]
    return EvaluationResult(
        "notes",
        "gold",
        "doc",
        WorkbenchConfig().with_value("retrieval.mode", mode).to_dict(),
        {"ndcg@10": sum(scores) / len(scores)},
        per_query,
        elapsed_s=1.5,
        stage_metrics={"bm25": {"ndcg@10": 0.4, "recall@pool": 0.9, "pool": 12.0}},
        notes=["a <note>"],
        evaluated_top_k=30,
        run_id=run_id,
        label="base",
    )


def test_run_markdown_has_metrics_stages_config_and_queries():
    text = export.render(result(4, [1.0, 0.5]), "md")
    assert text.startswith("# Evaluation run #4\n")
    assert "| ndcg@10 | 0.7500 |" in text
    assert "| bm25 | 0.4000 | 0.9000 | 12.0000 |" in text
    assert "| retrieval.mode | hybrid |" in text
    assert "| q1 | what \\| is 1? | 1.0000 | 1 | doc1, other |" in text  # pipes in user text escaped


def test_run_html_escapes_user_text():
    text = export.render(result(4, [1.0]), "html")
    assert "<h1>Evaluation run #4</h1>" in text
    assert "a &lt;note&gt;" in text and "<note>" not in text
    assert '<td class="num">1.0000</td>' in text
    assert "<strong>notes</strong>" in text


def test_run_csv_has_one_row_per_query():
    rows = list(csv.DictReader(io.StringIO(export.render(result(4, [1.0, 0.5]), "csv"))))
    assert [(r["query_id"], float(r["ndcg@10"]), r["ranked_doc_ids"]) for r in rows] == [
        ("q1", 1.0, "doc1 other"),
        ("q2", 0.5, "doc2 other"),
    ]


def test_comparison_exports():
    comparison = compare_runs(result(1, [0.2, 0.5, 0.9], "bm25"), result(2, [0.6, 0.5, 0.8]), permutations=100)
    markdown = export.render(comparison, "md")
    assert "# Comparison of runs #1 and #2" in markdown
    assert "b wins on 1 queries, loses on 1, ties on 1" in markdown
    assert "| retrieval.mode | bm25 | hybrid |" in markdown
    assert f"p = {comparison.test.p_value:.4f}" in markdown
    rows = list(csv.DictReader(io.StringIO(export.render(comparison, "csv"))))
    assert rows[0]["query_id"] == "q1" and float(rows[0]["delta"]) == pytest.approx(0.4)
    assert "<table>" in export.render(comparison, "html")


def test_sweep_exports_sort_by_the_metric():
    rows = [{"run_id": 1, "fusion.k": 10, "ndcg@10": 0.5}, {"run_id": 2, "fusion.k": 60, "ndcg@10": 0.7}]
    markdown = export.to_markdown(export.sweep_report(rows, "ndcg@10", ("embedded 0 corpus texts",)))
    assert markdown.index("| 2 | 60 | 0.7000 |") < markdown.index("| 1 | 10 | 0.5000 |")
    assert export.sweep_csv(rows).splitlines() == ["run_id,fusion.k,ndcg@10", "1,10,0.5", "2,60,0.7"]


def test_write_picks_the_format_from_the_suffix(tmp_path):
    assert export.write(result(4, [1.0]), tmp_path / "run.html").read_text().startswith("<!DOCTYPE html>")
    with pytest.raises(ValueError, match="end the name with .md, .html or .csv"):
        export.write(result(4, [1.0]), tmp_path / "run.pdf")
    with pytest.raises(ValueError, match="unknown export format"):
        export.render(result(4, [1.0]), "xml")
