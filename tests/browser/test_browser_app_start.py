"""The app started exactly as ``make app`` starts it (``tests.browser.app_server.serve_like_make_app``),
on a copy of the demo home: it warms its models before anyone visits, says so in the sidebar, answers
the first query without loading a model, and costs the machine next to no CPU while a tab sits idle.

The CPU check is the one timing-like assertion the suite allows (issue 27): a server that watched
the checkout's files kept a core busy; the bench (``bench/bench_app_speed.py``) measures the rest.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from tests.browser.app_server import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    NEEDS_CHROMIUM,
    PROJECT_DIR,
    STEP_S,
    idle_cores,
    serve_like_make_app,
    settle,
)

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not CHROMIUM.exists(), reason=NEEDS_CHROMIUM)]

LOG = "streamlit-make-app.log"
READY_S = 300
IDLE_S = 10.0
MAX_IDLE_CORES = 0.05
QUERY = "Autophagy declines in aged organisms."


@pytest.fixture(scope="module")
def started(demo_home: Path, tmp_path_factory: pytest.TempPathFactory):
    """``make app`` on a copy of the demo home; yields (url, server pid, home) once the server's
    log says the warm-up is over, before any browser has visited."""
    home = tmp_path_factory.mktemp("make-app") / "home"
    shutil.copytree(demo_home, home)
    with serve_like_make_app(home, LOG) as (url, pid):
        log = ARTIFACTS / LOG
        deadline = time.monotonic() + READY_S
        while "Models ready" not in log.read_text() and "Warm-up stopped" not in log.read_text():
            assert time.monotonic() < deadline, f"no warm-up outcome in {READY_S} s: {log.read_text()}"
            time.sleep(0.5)
        yield url, pid, home


@pytest.fixture
def page():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser.new_page(viewport={"width": 1400, "height": 1000})
        finally:
            browser.close()


def test_models_are_warmed_at_start_and_the_first_query_loads_none(started, page):
    from playwright.sync_api import expect

    url, _, home = started
    printed = (ARTIFACTS / LOG).read_text()
    # printed by the launcher's warm-up, with no visitor yet: it ran because the server started
    assert f"Warming up the models and indexes of {home.resolve()} in the background" in printed
    assert "Models ready" in printed and "embedding model all-MiniLM-L6-v2 and the indexes of demo" in printed
    page.goto(url)
    status = page.locator(".st-key-warmup_status")
    expect(status).to_contain_text("Models ready", timeout=STEP_S * 1000)
    query = page.locator(".st-key-lab_query input")
    query.fill(QUERY)
    query.press("Enter")
    expect(page.get_by_text("This is query scifact-")).to_be_visible(timeout=STEP_S * 1000)
    settle(page)
    page.screenshot(path=str(ARTIFACTS / "make-app-first-query.png"), full_page=True)
    main_text = page.get_by_test_id("stMain").inner_text()
    assert "load embedding model" not in main_text  # the first-use cost names no model load


def test_an_idle_tab_costs_the_server_under_a_twentieth_of_a_core(started, page):
    """Measured with files changing under the checkout meanwhile, as they do while tests run or an
    editor saves: a server that watches the checkout pays for every change."""
    from playwright.sync_api import expect

    url, pid, _ = started
    page.goto(url)
    expect(page.locator(".st-key-warmup_status")).to_contain_text("Models ready", timeout=STEP_S * 1000)
    settle(page)
    time.sleep(2)  # the tab's last run and its drawing are over
    cores = idle_cores(pid, IDLE_S, churn=PROJECT_DIR / "test-artifacts" / "browser" / "idle-churn")
    assert cores < MAX_IDLE_CORES, f"the idle server used {cores:.3f} cores over {IDLE_S:.0f} s"
