"""Fixtures for the app's AppTest tests (the Retrieval lab and Evaluation tests reuse them).

- ``demo_home`` (from ``tests/conftest.py``): a home with the bundled demo loaded, built once per
  test session. Treat it as read-only; a test that changes the home takes ``demo_home_copy``.
- ``open_app``: start ``app.py`` on a home (optionally on one page) under AppTest, which runs
  ``app.py`` (router, sidebar) on every page, as a live server does.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

PROJECT_DIR = Path(__file__).resolve().parents[2]
APP_PATH = PROJECT_DIR / "app.py"
#: generous: the first run in a test session loads the embedding model
APP_TIMEOUT_S = 120


@pytest.fixture
def demo_home_copy(demo_home: Path, tmp_path: Path) -> Path:
    """A private copy of ``demo_home`` that a test may change, without its query log: the tests that
    query the shared ``demo_home`` through the Retrieval lab append to it, and a copy holding their
    queries would depend on which tests ran before."""
    from store.query_log import QUERY_LOG_DIR

    copy = tmp_path / "demo-home"
    shutil.copytree(demo_home, copy, ignore=shutil.ignore_patterns(QUERY_LOG_DIR))
    return copy


@pytest.fixture
def open_app(monkeypatch: pytest.MonkeyPatch) -> Callable:
    """``open_app(home, page=None)``: the app on ``home`` after its first run (and on ``page``,
    e.g. ``"app_pages/documents.py"``, when given), with Streamlit's caches cleared first."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    def start(home: Path, page: str | None = None) -> AppTest:
        monkeypatch.setenv("WORKBENCH_HOME", str(home))
        st.cache_resource.clear()
        st.cache_data.clear()
        app = AppTest.from_file(str(APP_PATH), default_timeout=APP_TIMEOUT_S)
        app.run()
        if page is not None:
            app.switch_page(page).run()
        return app

    return start


@pytest.fixture
def demo_and_notes_home(demo_home_copy: Path) -> Path:
    """``demo_home_copy`` plus the collection ``notes`` and its golden set (``tests/notes_collection.py``)."""
    from tests.notes_collection import add_notes_collection

    add_notes_collection(demo_home_copy)
    return demo_home_copy


def open_lab_panels(app, *panels: str):
    """Open the Retrieval lab's folded panels (their keys: ``hit_explanation.PANEL_KEY``,
    ``context_panel.PANEL_KEY``), as a click on each does: folded, a panel draws nothing. The next
    run draws them."""
    for panel in panels:
        app.session_state[panel] = True
    return app


def open_lab_settings(app, *sides: str):
    """Open the Retrieval lab's Configuration panels of ``sides`` and run, as a click on each does:
    they start folded and fold again at each new query, and a folded panel's widgets are not drawn
    (their values still apply)."""
    for side in sides:
        app.session_state[f"lab_config_{side}"] = True
    return app.run()


def open_evaluation_tab(app, label: str):
    """Pick the Evaluation page's tab ``label``, as a click on it does: only the open tab is drawn.
    The next run draws it."""
    from workbench.ui.evaluation_widgets import TAB_KEY

    app.session_state[TAB_KEY] = label
    return app
