"""The eval, sweep, compare and runs commands, run in-process on the tiny collection."""

from __future__ import annotations

import json
import re

import pytest

from workbench.cli import main
from workbench.cli.evaluation import failures, parse_thresholds


def run_cli(capsys, home, *argv) -> tuple[int, str, str]:
    code = main([*argv, "--home", str(home)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_eval_json_keeps_the_contract_and_stores_a_run(eval_home, capsys):
    home = eval_home.bench.home
    code, out, _ = run_cli(
        capsys, home, "eval", "-c", "notes", "--set", "retrieval.mode=bm25", "--metrics", "ndcg@10,mrr@10", "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert set(data["metrics"]) == {"ndcg@10", "mrr@10"}
    assert data["config"]["retrieval"]["mode"] == "bm25"
    assert [q["query_id"] for q in data["per_query"]] == ["d1", "s1", "s2", "s3"]
    assert data["per_query"][0]["ranked_doc_ids"] == ["beta.md"]
    assert data["run_id"] == 1 and data["level"] == "doc"


def test_eval_text_output_and_span_level(eval_home, capsys):
    code, out, _ = run_cli(
        capsys, eval_home.bench.home, "eval", "-c", "notes", "--golden", "notes", "--level", "span", "--label", "first"
    )
    assert code == 0
    assert "level=span" in out and "3 queries evaluated (1 skipped)" in out
    # issue 36: every mean with its 95% interval and its number of queries
    assert re.search(r"\n  ndcg@10 +0\.\d{4}  \[[01]\.\d{4}, [01]\.\d{4}\] over 3 queries\n", out), out
    assert "per stage:" in out and "recall@pool" in out
    assert "stored as run 1" in out


def test_fail_under_exits_1_below_the_threshold(eval_home, capsys):
    home = eval_home.bench.home
    args = ("eval", "-c", "notes", "--set", "retrieval.mode=bm25", "--metrics", "ndcg@10", "--json")
    code, out, err = run_cli(capsys, home, *args, "--fail-under", "ndcg@10=0.99", "--fail-under", "hit@1=0.5")
    assert code == 1
    assert "FAIL: ndcg@10 = 0.8066 is below 0.99" in err and "hit@1" not in err
    assert "hit@1" in json.loads(out)["metrics"]  # a threshold's metric is computed even if not asked for
    code, _, err = run_cli(capsys, home, *args, "--fail-under", "ndcg@10=0.8")
    assert code == 0 and err == ""


def test_threshold_parsing():
    assert parse_thresholds(["NDCG@10=0.7", "map@100=.5"]) == {"ndcg@10": 0.7, "map@100": 0.5}
    with pytest.raises(ValueError, match="expects METRIC=VALUE"):
        parse_thresholds(["ndcg@10"])
    with pytest.raises(ValueError, match="unknown metric"):
        parse_thresholds(["f1@10=0.5"])
    assert failures({"a": 0.5, "b": 0.9}, {"a": 0.6, "b": 0.9}) == ["a = 0.5000 is below 0.6"]


def test_bad_metric_is_a_usage_error(eval_home, capsys):
    code, _, err = run_cli(capsys, eval_home.bench.home, "eval", "-c", "notes", "--metrics", "ndcg")
    assert code == 2 and "needs a cutoff" in err


def test_compare_and_runs(eval_home, capsys):
    home = eval_home.bench.home
    run_cli(capsys, home, "eval", "-c", "notes", "--set", "retrieval.mode=bm25", "--label", "bm25")
    run_cli(capsys, home, "eval", "-c", "notes", "--set", "retrieval.mode=dense", "--label", "dense")
    code, out, _ = run_cli(capsys, home, "compare", "1", "2", "--permutations", "500", "--export", str(home / "cmp.md"))
    assert code == 0
    assert "config changes: retrieval.mode: bm25 -> dense" in out
    assert "p = " in out and "wins" in out and "ndcg@10" in out
    assert "95% interval of the delta (paired bootstrap over 4 queries)" in out  # issue 36
    assert re.search(r"\n  ndcg@10 .*  \[[-+]\d\.\d{4}, [-+]\d\.\d{4}\]\n", out), out
    assert (home / "cmp.md").read_text().startswith("# Comparison of runs #1 and #2")
    code, out, _ = run_cli(capsys, home, "compare", "1", "2", "--json", "--permutations", "200")
    data = json.loads(out)
    assert data["wins"] + data["losses"] + data["ties"] == 4 and 0 < data["p_value"] <= 1
    code, out, _ = run_cli(capsys, home, "runs")
    lines = out.splitlines()
    assert len(lines) == 2 and lines[0].split()[0] == "2" and lines[0].endswith("# dense")
    assert re.search(r"ndcg@10=\d\.\d{4} \[\d\.\d{4}, \d\.\d{4}\]", lines[0]), lines[0]  # issue 36
    code, _, err = run_cli(capsys, home, "compare", "1", "9")
    assert code == 2 and "evaluation run 9 not found" in err


def test_sweep_reports_reuse_and_saves_the_best(eval_home, capsys):
    home = eval_home.bench.home
    chunk_texts = len(eval_home.bench.snapshot("notes", eval_home.bench.config_for("notes")).chunks)
    code, out, _ = run_cli(
        capsys,
        home,
        "sweep",
        "-c",
        "notes",
        "--grid",
        "fusion.method=rrf,weighted",
        "--grid",
        "fusion.k=10,60",
        "--metrics",
        "ndcg@10,recall@10",
        "--save-best",
        "best",
        "--export",
        str(home / "sweep.csv"),
    )
    assert code == 0
    assert "4 configurations over 4 queries" in out
    assert "ndcg@10 95% interval, queries, against the best" in out and " 4q best" in out  # issue 36
    assert f"embedded 0 corpus texts (all {chunk_texts} chunk texts cached)" in out
    assert "saved preset 'best'" in out
    assert len((home / "sweep.csv").read_text().splitlines()) == 5
    code, out, _ = run_cli(capsys, home, "sweep", "-c", "notes", "--grid", "fusion.k=10,60", "--json", "--no-store")
    data = json.loads(out)
    assert data["sweep_id"] is None and len(data["points"]) == 2
    assert data["reuse"]["embedded_texts"] == 0 and data["best"]["metrics"]["ndcg@10"] > 0
    code, out, _ = run_cli(capsys, home, "runs", "--sweeps")
    assert code == 0 and out.startswith("    1") and "4 points, embedded 0" in out
    code, out, _ = run_cli(capsys, home, "runs", "--sweep", "1")
    assert out.splitlines()[0].startswith("sweep 1 on notes/notes (doc), done: fusion.method=rrf,weighted")
    # weighted fusion ignores fusion.k: its two points are one configuration, run and stored once
    assert len(out.splitlines()) == 4
    code, _, err = run_cli(capsys, home, "runs", "--sweep", "7")
    assert code == 2 and "sweep 7 not found; sweep ids go up to 1" in err
