"""The guard that keeps every page script behind the sign-in gate, a page added later included.

A page script runs in three ways only: as ``app.py`` itself; as a script of a folder named
``pages`` beside ``app.py``, which Streamlit serves on its own until ``app.py`` has run once (the
route that skipped the gate, issue 39); and as a page that ``app.py``'s navigation registers, which
happens after ``gate()``. So: no such folder, every script of ``app_pages/`` registered, the gate
before the navigation in ``app.py``, and no page script reachable before the sign-in. Chromium
opens each page's address first on a fresh server in ``tests/browser/test_browser_routes_*.py``.
"""

from __future__ import annotations

import ast

import pytest

from tests.app.conftest import APP_PATH, PROJECT_DIR
from tests.app.test_app_security import TOKEN
from workbench.ui.pages import ALL_PAGES, PAGES_FOLDER

PAGE_SCRIPTS = sorted(
    path.relative_to(PROJECT_DIR).as_posix()
    for path in (PROJECT_DIR / PAGES_FOLDER).rglob("*.py")
    if path.name != "__init__.py"
)


def test_streamlit_finds_no_pages_folder_of_its_own_beside_app_py():
    from streamlit.runtime.pages_manager import PagesManager

    kept = PagesManager.uses_pages_directory
    PagesManager.uses_pages_directory = None  # as on a freshly started server
    try:
        PagesManager(str(APP_PATH))
        legacy = PagesManager.uses_pages_directory
    finally:
        PagesManager.uses_pages_directory = kept
    assert legacy is False, (
        f"Streamlit serves the scripts in {APP_PATH.parent / 'pages'} without app.py and its sign-in gate "
        f"when one is a fresh server's first request; keep page scripts in {PAGES_FOLDER}/ and register "
        "them in workbench/ui/pages.py"
    )


def test_every_page_script_is_a_page_of_the_apps_navigation():
    assert PAGE_SCRIPTS, f"no page scripts found in {PAGES_FOLDER}/"
    unregistered = sorted(set(PAGE_SCRIPTS) - {spec.path for spec in ALL_PAGES})
    assert not unregistered, (
        f"{unregistered}: page scripts that workbench/ui/pages.py does not register (ALL_PAGES), so the "
        "app's navigation, behind its sign-in gate, does not cover them"
    )


def _calls(statement: ast.stmt) -> set[str]:
    return {
        node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        for node in ast.walk(statement)
        if isinstance(node, ast.Call)
    }


def test_app_py_passes_the_gate_before_it_registers_or_runs_a_page():
    statements = ast.parse(APP_PATH.read_text(encoding="utf-8")).body
    first = {
        name: next(i for i, statement in enumerate(statements) if name in _calls(statement))
        for name in ("gate", "navigate")
    }
    page_calls = [
        i
        for i, statement in enumerate(statements)
        if _calls(statement) & {"navigation", "Page", "switch_page", "run", "navigate"}
    ]
    assert first["gate"] < min(page_calls), "app.py must call gate() before it registers or runs any page"


@pytest.mark.parametrize("script", PAGE_SCRIPTS)
def test_without_the_token_no_page_script_is_reachable_and_with_it_each_is(script, demo_home, open_app, monkeypatch):
    monkeypatch.setenv("WORKBENCH_SHARE", "1")
    monkeypatch.setenv("WORKBENCH_TOKEN", TOKEN)
    app = open_app(demo_home)
    assert [field.label for field in app.text_input] == ["Access token"]
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        app.switch_page(script)

    app.text_input(key="sign_in_token").set_value(TOKEN)
    app.button(key="sign_in").click().run()
    app.switch_page(script).run()
    assert not app.exception, app.exception
    assert app.selectbox(key="collection").value == "demo"
