"""The golden and log commands, in-process on a small English and Chinese home (hashing embedder)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.workbench.golden_fixtures import QUESTIONS
from workbench.cli import main


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _logged(capsys, home: Path, *filters) -> list[dict]:
    code, out, err = _run(capsys, "log", "list", "--home", home, "--json", "--limit", 500, *filters)
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def test_cli_queries_are_logged_listed_turned_into_a_query_set_and_purged(golden_home, capsys):
    asked = QUESTIONS + [QUESTIONS[3]]  # the Chinese question twice: it must come first in from-log
    for text in asked:
        code, _, err = _run(capsys, "query", text, "--home", golden_home)
        assert code == 0, err
    entries = _logged(capsys, golden_home)
    assert sorted(e["query"] for e in entries) == sorted(asked)
    assert {e["source"] for e in entries} == {"cli"} and {e["collection"] for e in entries} == {"notes"}
    assert all(e["chunks"] and len(e["config"]) == 12 for e in entries)
    assert _logged(capsys, golden_home, "--source", "mcp") == []

    code, out, _ = _run(capsys, "log", "list", "--home", golden_home)
    assert code == 0 and "链条油怎么用" in out and out.count(" cli ") == len(asked)

    code, out, err = _run(capsys, "golden", "from-log", "--out", "asked", "--home", golden_home, "--source", "cli")
    assert code == 0, err
    lines = [json.loads(line) for line in (golden_home / "query_sets" / "asked.jsonl").read_text().splitlines()]
    assert lines[0]["query"] == QUESTIONS[3] and len(lines) == len(QUESTIONS)
    assert "2x" in out
    code, _, err = _run(capsys, "golden", "from-log", "--out", "x", "--home", golden_home, "--since", "2999-01-01")
    assert code == 2 and "no queries matching" in err

    code, out, _ = _run(capsys, "log", "purge", "--home", golden_home)
    assert code == 0 and f"{len(asked)} entries removed" in out
    assert _logged(capsys, golden_home) == []


def test_log_queries_off_records_nothing(golden_home, capsys):
    code, _, err = _run(capsys, "query", QUESTIONS[0], "--home", golden_home, "--set", "log.queries=off")
    assert code == 0, err
    assert _logged(capsys, golden_home) == []
    assert not any((golden_home / "query_log").glob("*.jsonl")) if (golden_home / "query_log").exists() else True
    code, _, err = _run(capsys, "log", "list", "--home", golden_home, "--since", "yesterday")
    assert code == 2 and "is not a date" in err


def test_pool_is_the_deduplicated_shuffled_union_and_exports_as_a_span_golden_set(golden_home, capsys):
    from workbench.golden import judging
    from workbench.service import Workbench

    questions = golden_home / "questions.txt"
    questions.write_text("\n".join(QUESTIONS[:3] + QUESTIONS[3:]) + "\n\n", encoding="utf-8")
    code, out, err = _run(capsys, "golden", "queries", questions, "--out", "mine", "--home", golden_home)
    assert code == 0 and "5 questions" in out, err
    configs = ["retrieval.mode=bm25", "retrieval.mode=dense"]
    code, out, err = _run(
        capsys,
        "golden",
        "pool",
        "--queries",
        "mine",
        "--configs",
        *configs,
        "--depth",
        2,
        "--seed",
        1,
        "--home",
        golden_home,
    )
    assert code == 0, err
    bench = Workbench(golden_home)
    row, items = judging.load_pool(bench.catalog, "mine")
    assert row.depth == 2 and [c["name"] for c in row.configs] == configs
    for question in QUESTIONS:
        pooled = [item.chunk_id for item in items if item.query == question]
        union: set[int] = set()
        for config in configs:
            trace = bench.query(question, "notes", bench.config_for("notes", None, [config, "retrieval.top_k=2"]))
            union.update(trace.final.chunk_ids()[:2])
        assert sorted(pooled) == sorted(union) and len(pooled) == len(set(pooled))  # the union, once each
    assert f"pool 'mine': {len(items)} chunks to judge over 5 queries" in out

    # the same seed gives the same order; the pool refuses to be overwritten without --replace
    code, _, err = _run(
        capsys, "golden", "pool", "--queries", "mine", "--configs", *configs, "--depth", 2, "--home", golden_home
    )
    assert code == 2 and "exists already" in err
    code, _, err = _run(
        capsys,
        "golden",
        "pool",
        "--queries",
        "mine",
        "--configs",
        *configs,
        "--depth",
        2,
        "--seed",
        1,
        "--replace",
        "--home",
        golden_home,
    )
    assert code == 0 and judging.load_pool(bench.catalog, "mine")[1] == items

    graded = [(item, index % 4, None) for index, item in enumerate(items)]
    judging.record_many(bench.catalog, "mine", graded, "Ada")
    code, out, err = _run(capsys, "golden", "export", "mine", "--out", "mine-ada", "--home", golden_home)
    assert code == 0, err
    exported = [json.loads(line) for line in (golden_home / "golden_sets" / "mine-ada.jsonl").read_text().splitlines()]
    assert [q["query"] for q in exported] == QUESTIONS
    markdown = {d.source: bench.markdown(d.id)[0] for d in bench.documents("notes")}
    for query in exported:
        for item in query["relevant"]:
            assert 0 <= item["start"] < item["end"] <= len(markdown[item["doc"]])
            assert item.get("grade", 1) in (0, 1, 2, 3)
    code, _, err = _run(capsys, "golden", "export", "mine", "--out", "mine-ada", "--home", golden_home)
    assert code == 2 and "exists already" in err and "--replace" in err
    code, out, err = _run(
        capsys, "eval", "-c", "notes", "--golden", "mine-ada", "--level", "span", "--home", golden_home, "--no-store"
    )
    assert code == 0, err
    assert "ndcg@10" in out


def test_agree_prints_the_hand_computed_kappa_and_confusion(golden_home, capsys):
    spans = [("a", 0, 10), ("a", 10, 20), ("b", 0, 5), ("c", 3, 9), ("d", 1, 2)]

    def write(name: str, grades: list[int]) -> Path:
        path = golden_home / f"{name}.jsonl"
        relevant = [
            {"doc": f"{doc}.md", "start": s, "end": e, "grade": g}
            for (doc, s, e), g in zip(spans, grades, strict=False)
        ]
        path.write_text(json.dumps({"id": "q1", "query": "x", "relevant": relevant}) + "\n", encoding="utf-8")
        return path

    a, b = write("ga", [0, 1, 2, 3, 3]), write("gb", [0, 2, 2, 3, 1])
    code, out, err = _run(capsys, "golden", "agree", a, b, "--no-ranking", "--home", golden_home)
    assert code == 0, err
    # by hand: linear 1 - 1/(31/15) = 16/31, quadratic 1 - (5/9)/(61/45) = 36/61
    assert f"{16 / 31:.3f} linear" in out and f"{36 / 61:.3f} quadratic" in out
    assert "judged by both: 5 (query, unit) pairs" in out
    assert "  A=3       0      1      0      1" in out


def test_agree_ranks_configurations_under_a_set_and_its_sample(golden_home, capsys):
    lines = [
        {"id": f"q{i}", "query": q, "relevant": [{"doc": doc, "grade": 1 + i % 2}]}
        for i, (q, doc) in enumerate(
            zip(QUESTIONS, ["kettle.md", "bicycle.md", "sourdough.md", "茶.md", "自行车.md"], strict=False)
        )
    ]
    (golden_home / "golden_sets").mkdir(exist_ok=True)
    (golden_home / "golden_sets" / "full.jsonl").write_text(
        "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8"
    )
    code, out, err = _run(
        capsys, "golden", "drop", "full", "--fraction", 0.3, "--seed", 3, "--out", "sample", "--home", golden_home
    )
    assert code == 0 and "3 of 5 judgements kept (3 of 5 queries)" in out, err  # round(1.5) = 2 dropped
    code, out, err = _run(capsys, "golden", "agree", "full", "sample", "-c", "notes", "--home", golden_home)
    assert code == 0, err
    assert "Kendall tau (tau-b) over 7 configurations" in out
    assert "judged by both: 3 (query, unit) pairs; only A: 2; only B: 0" in out
    scores = [
        line.split()
        for line in out.splitlines()
        if line.startswith("  ")
        and line.split()[0]
        in (
            "bm25",
            "dense",
            "hybrid-rrf",
            "hybrid-weighted",
            "hybrid-weighted-bm25-heavy",
            "hybrid-rrf-mmr",
            "dense-mmr",
        )
    ]
    assert len(scores) == 7 and all(0.0 <= float(value) <= 1.0 for row in scores for value in row[1:])
