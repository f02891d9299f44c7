"""Messages in tool terms: the CLI's flags that shared code names become the tool arguments an
agent can pass, and every flag that code names is one the translation knows."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from workbench.mcp_server.vocabulary import FLAGS, SCANNED, in_tool_terms

PROJECT_DIR = Path(__file__).resolve().parents[3]
ANY_FLAG = re.compile(r"(?<![\w`-])--([a-z][a-z0-9-]*)")


@pytest.mark.parametrize(
    "message, in_tool_words",
    [
        (
            "this home has 2 collections (demo, my-docs); pick one with --collection NAME",
            "this home has 2 collections (demo, my-docs); pick one with the `collection` argument",
        ),
        (
            "run 3 was scored at level doc; pass --level doc or evaluate again",
            'run 3 was scored at level doc; pass `level="doc"` or evaluate again',
        ),
        (
            "study 's' exists; add --resume to continue it, or --study NAME to start another",
            "study 's' exists; add `resume=true` to continue it, or the `study` argument to start another",
        ),
        (
            "(interval [0, 0] covers zero); --force saves it anyway",
            "(interval [0, 0] covers zero); `force=true` saves it anyway",
        ),
        ("pass: no drop larger than --max-drop 0.01", "pass: no drop larger than `max_drop=0.01`"),
        ("--trials must be at least 1, got 0", "the `trials` argument must be at least 1, got 0"),
        ("fewer than --folds 5", "fewer than `folds=5`"),
        (
            "ask for fewer or raise it with --set synth.max_items=N",
            'ask for fewer or raise it with `settings=["synth.max_items=N"]`',
        ),
        ("raise it with --set ingest.max_chunks=1200.", 'raise it with `settings=["ingest.max_chunks=1200"]`.'),
        (
            "evaluate it again (python -m workbench eval ...) and pass the new run, or pass a preset as --baseline",
            "evaluate it again (the evaluate tool) and pass the new run, or pass a preset as the `baseline` argument",
        ),
        (
            "or with python -m workbench golden synth --collection my-docs",
            'or with synthesize_golden_set (collection="my-docs")',
        ),
        # a command for the person running the server keeps its flags: only they can run it
        (
            "create one with: python -m workbench ingest FILES --collection NAME",
            "create one with: python -m workbench ingest FILES --collection NAME",
        ),
        ("a model and `--not-a-flag` in backticks", "a model and `--not-a-flag` in backticks"),
    ],
)
def test_cli_flags_become_tool_arguments(message, in_tool_words):
    assert in_tool_terms(message) == in_tool_words


def test_messages_of_the_shared_code_read_in_tool_terms():
    from workbench.tuning.gate import GateResult, gate

    queries = [f"q{n}" for n in range(8)]
    failed: GateResult = gate("ndcg@10", dict.fromkeys(queries, 1.0), dict.fromkeys(queries, 0.0), permutations=1000)
    assert in_tool_terms(failed.reason()).startswith(
        "FAIL: a drop of 1.0000 is larger than `max_drop=0.01` and significant"
    )
    with pytest.raises(ValueError) as raised:
        gate("ndcg@10", {"a": 1.0}, {"a": 1.0}, alpha=2.0)
    assert in_tool_terms(str(raised.value)) == "the `alpha` argument must be between 0 and 1, got 2"


def _string_literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text("utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_every_flag_the_tools_shared_code_names_is_translated():
    files = [
        p
        for name in SCANNED
        for p in ([PROJECT_DIR / name] if name.endswith(".py") else (PROJECT_DIR / name).rglob("*.py"))
    ]
    assert len(files) > 20, files  # the scan sees the packages, not an empty folder
    named: dict[str, str] = {}
    for path in files:
        for line, text in _string_literals(path):
            for flag in ANY_FLAG.findall(text):
                named.setdefault(flag, f"{path.relative_to(PROJECT_DIR)}:{line}")
    assert {"collection", "level", "force", "max-drop", "resume"} <= set(named)  # the ones issue 48 met
    unknown = {flag: where for flag, where in named.items() if flag not in FLAGS}
    assert not unknown, f"flags named in messages the tools return, unknown to vocabulary.FLAGS: {unknown}"
