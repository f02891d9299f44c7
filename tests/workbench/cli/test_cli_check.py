"""The ``check`` command on a SciFact slice: exit 1 on a truly worse preset, 0 on the same one, 2 when a
stored baseline's inputs changed; its JUnit XML; and the GitHub Actions workflow that runs it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
import yaml

from workbench.cli import main
from workbench.evaluation import golden as golden_sets

REPO = Path(__file__).resolve().parents[3]
WORKFLOW = REPO / ".github" / "workflows" / "retrieval-check.yml"
GOLDEN = "scifact-slice"


def run_cli(capsys, home, *argv) -> tuple[int, str, str]:
    code = main([*argv, "--home", str(home)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def check_home(tmp_path, scifact_slice, capsys) -> Path:
    """A copy of the SciFact slice with its golden set as a file, a truly worse preset and baseline run 1."""
    home = tmp_path / "home"
    shutil.copytree(scifact_slice.bench.home, home)
    golden_sets.save(scifact_slice.golden, home / "golden_sets" / f"{GOLDEN}.jsonl")
    code, _, err = run_cli(capsys, home, "save-preset", "worse", "--set", "mmr.enabled=true", "--set", "mmr.lambda=0.1")
    assert code == 0, err
    code, out, err = run_cli(capsys, home, "eval", "-c", "scifact", "--golden", GOLDEN, "--metrics", "ndcg@10")
    assert code == 0 and "stored as run 1" in out, err
    return home


CHECK = ("check", "-c", "scifact", "--golden", GOLDEN, "--permutations", "2000")


def test_check_exits_1_on_a_truly_worse_preset_and_0_on_the_same(check_home, capsys, tmp_path):
    junit = tmp_path / "reports" / "check.xml"
    code, out, err = run_cli(capsys, check_home, *CHECK, "--preset", "worse", "--baseline", "1", "--junit", str(junit))
    assert code == 1, err
    assert "preset 'worse' against run 1" in out and "difference -" in out and "95% interval [-" in out
    assert "FAIL: a drop of" in out and "is larger than --max-drop 0.01 and significant (p = 0.0" in out
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert suite.get("failures") == "1" and suite.get("errors") == "0"
    assert suite.find("testcase/failure").get("type") == "SignificantDrop"
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["baseline_run"] == "1" and properties["collection"] == "scifact"

    code, out, _ = run_cli(capsys, check_home, *CHECK, "--preset", "default", "--baseline", "#1", "--junit", str(junit))
    assert code == 0 and "difference +0.0000" in out and "pass: no drop" in out
    # issue 36: the interval covers zero, so check says how many queries a gain would need (every
    # difference is 0: the typical spread 0.12 stands in, (2.8 · 0.12 / 0.02)² -> 283)
    assert "a gain of 0.02 would need about 283 queries to show (from a typical spread" in out
    assert ElementTree.parse(junit).getroot().find("testsuite").get("failures") == "0"

    code, out, _ = run_cli(capsys, check_home, *CHECK, "--preset", "worse", "--baseline", "default")
    assert code == 1 and "against preset 'default' (evaluated now)" in out


def test_check_exits_2_naming_a_golden_set_changed_since_the_baseline_run(check_home, capsys, tmp_path):
    path = check_home / "golden_sets" / f"{GOLDEN}.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:-1]), encoding="utf-8")  # one query dropped
    junit = tmp_path / "check.xml"
    code, _, err = run_cli(capsys, check_home, *CHECK, "--preset", "default", "--baseline", "1", "--junit", str(junit))
    assert code == 2
    assert f"the golden set '{GOLDEN}' changed since run 1: content hash" in err and "119 queries" in err
    error = ElementTree.parse(junit).getroot().find("testsuite/testcase/error")
    assert error is not None and "changed since run 1" in error.get("message")


def test_check_exits_2_naming_a_corpus_changed_since_the_baseline_run(check_home, capsys, tmp_path):
    from workbench.service import Workbench

    before = len(Workbench(check_home).documents("scifact"))
    note = tmp_path / "extra.md"
    note.write_text("# An extra note\n\nAdded after the baseline run.\n", encoding="utf-8")
    code, _, err = run_cli(capsys, check_home, "ingest", str(note), "-c", "scifact")
    assert code == 0, err
    code, _, err = run_cli(capsys, check_home, *CHECK, "--preset", "default", "--baseline", "1")
    assert code == 2
    assert "the corpus of collection 'scifact' changed since run 1:" in err
    assert f": {before} documents (hash " in err and f"then, {before + 1} documents (hash " in err


def test_check_usage_problems_exit_2(check_home, capsys):
    code, _, err = run_cli(capsys, check_home, *CHECK, "--baseline", "1")
    assert code == 2 and "check needs --preset NAME" in err
    code, _, err = run_cli(capsys, check_home, *CHECK, "--preset", "worse", "--baseline", "nope")
    assert code == 2 and "preset 'nope' not found; known: default, worse" in err
    code, _, err = run_cli(capsys, check_home, *CHECK, "--preset", "worse", "--baseline", "1", "--level", "span")
    assert code == 2 and "run 1 was scored at level doc" in err


def test_the_workflow_is_valid_yaml_and_its_commands_run(tmp_path):
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "pull_request" in triggers
    job = workflow["jobs"]["retrieval-check"]
    commands = [step["run"] for step in job["steps"] if "run" in step and not step["run"].startswith("pip install")]
    assert any("python -m workbench check" in command and "--junit" in command for command in commands)
    # the repository's own demo is the workflow's default input; a small part of it keeps the test quick
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in ("rag-pipeline-overview.md", "evaluating-retrieval.md"):
        shutil.copy(REPO / "demo" / "documents" / name, corpus / name)
    kept = {"rag-pipeline-overview.md", "evaluating-retrieval.md"}
    golden = [
        line
        for line in (REPO / "demo" / "golden.jsonl").read_text(encoding="utf-8").splitlines()
        if any(f'"{name}"' in line or f'"{name[:-3]}"' in line for name in kept)
    ]
    assert golden
    (tmp_path / "golden.jsonl").write_text("\n".join(golden) + "\n", encoding="utf-8")
    env = {
        **os.environ,
        **{key: str(value) for key, value in workflow["env"].items()},
        "CORPUS": str(corpus),
        "GOLDEN": str(tmp_path / "golden.jsonl"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(REPO),
    }
    for command in commands:
        done = subprocess.run(["bash", "-e", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    report = ElementTree.parse(tmp_path / "reports" / "retrieval-check.xml").getroot()
    assert report.find("testsuite").get("failures") == "0" and report.find("testsuite").get("errors") == "0"
    assert "check demo / golden:" in done.stdout and "pass:" in done.stdout
