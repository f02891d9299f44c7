"""Runs record their golden set's content hash, and ``compare`` warns when two runs of a same-named
set were scored on different contents (the set was edited between them)."""

from __future__ import annotations

import json

from workbench.cli import main
from workbench.evaluation import golden


def run_cli(capsys, home, *argv) -> tuple[int, str, str]:
    code = main([*map(str, argv), "--home", str(home)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_compare_warns_when_the_golden_set_changed_between_runs(eval_home, capsys):
    home = eval_home.bench.home
    before = golden.content_hash(eval_home.golden())
    code, out, _ = run_cli(capsys, home, "eval", "-c", "notes", "--json")
    first = json.loads(out)
    assert code == 0 and first["golden_hash"] == before and len(before) == 16
    code, out, _ = run_cli(capsys, home, "eval", "-c", "notes", "--json")
    second = json.loads(out)
    code, out, _ = run_cli(capsys, home, "compare", first["run_id"], second["run_id"])
    assert code == 0 and "different contents" not in out

    # provenance and review notes under meta do not change what the set judges
    lines = eval_home.golden_path.read_text("utf-8").splitlines()
    tagged = [json.dumps({**json.loads(line), "meta": {"review": "accepted"}}) for line in lines]
    eval_home.golden_path.write_text("\n".join(tagged) + "\n", "utf-8")
    assert golden.content_hash(eval_home.golden()) == before

    golden.mark_relevant(eval_home.golden_path, "d1", {"doc": "gamma.md", "grade": 1})
    after = golden.content_hash(eval_home.golden())
    assert after != before
    code, out, _ = run_cli(capsys, home, "eval", "-c", "notes", "--json")
    third = json.loads(out)
    assert third["golden_hash"] == after
    code, out, _ = run_cli(capsys, home, "compare", first["run_id"], third["run_id"])
    assert code == 0
    assert f"warning: the runs used different contents of golden set 'notes' (hash {before} vs {after})" in out
