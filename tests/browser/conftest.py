"""Fixtures the route tests share (``tests/browser/routes.py``); the other browser test files
start their own Chromium and servers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.browser.app_server import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def routes_home(demo_home, tmp_path_factory) -> Path:
    """One copy of the demo home for this module's servers, which run one after another."""
    copy = tmp_path_factory.mktemp("routes-home") / "home"
    shutil.copytree(demo_home, copy)
    return copy


@pytest.fixture(scope="module")
def routes_home_names(routes_home) -> list[str]:
    from workbench.service import Workbench

    return ["demo"] + [doc.source for doc in Workbench(routes_home).documents("demo")]
