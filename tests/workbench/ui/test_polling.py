"""Every timed fragment in the app has a way to stop: ``run_every`` is written only in
``workbench.ui.polling``, and every fragment made there from a draw function that says, each run,
whether it still has something to show. (That the browser then stops asking is
tests/browser/test_browser_warmup_polling.py.)"""

from __future__ import annotations

import ast
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[3]
POLLING = PROJECT / "workbench" / "ui" / "polling.py"


def _app_sources() -> list[Path]:
    return [
        PROJECT / "app.py",
        *sorted((PROJECT / "app_pages").rglob("*.py")),
        *sorted((PROJECT / "workbench").rglob("*.py")),
    ]


def _run_every_uses(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and any(keyword.arg == "run_every" for keyword in node.keywords)
    ]


def _polling_fragments(path: Path) -> list[tuple[int, str, str]]:
    """(line, function, its return annotation) for each function decorated with ``polling_fragment(...)``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call) and getattr(decorator.func, "id", "") == "polling_fragment":
                found.append((node.lineno, node.name, ast.unparse(node.returns) if node.returns else ""))
    return found


def test_run_every_is_written_only_in_the_polling_module():
    elsewhere = {
        str(path.relative_to(PROJECT)): lines
        for path in _app_sources()
        if path != POLLING and (lines := _run_every_uses(path))
    }
    assert not elsewhere, f"run_every outside workbench/ui/polling.py (use polling_fragment): {elsewhere}"
    assert _run_every_uses(POLLING), "the polling module no longer makes the timed fragment"


def test_every_timed_fragment_says_when_it_has_nothing_left_to_show():
    fragments = {
        f"{path.relative_to(PROJECT)}:{line} {name}": returns
        for path in _app_sources()
        for line, name, returns in _polling_fragments(path)
    }
    # the sidebar's warm-up line, and a running study (the Tune tab's form and its flow share one panel)
    where = sorted(f"{key.split(':')[0]} {key.split(' ')[1]}" for key in fragments)
    assert where == [
        "workbench/ui/sidebar.py _warming_status",
        "workbench/ui/tune_jobs.py panel",
    ], fragments
    assert all(returns == "bool" for returns in fragments.values()), fragments
