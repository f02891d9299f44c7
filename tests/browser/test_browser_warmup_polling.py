"""A tab opened while the models warm up, as every ``make app`` user's is: the sidebar's warm-up line
redraws itself while the warm-up runs, then stops asking once it is over, whatever the person does
next. Here the next thing is a Retrieval lab query, which reruns the lab's fragment and not the page
(the page's whole run used to be what ended the polling, so a tab that only queried polled once a
second for as long as it stayed open). Counted from the websocket: the server's messages (each run
opens with a ``new_session`` naming the fragments it reruns) and the browser's (each timer tick is a
rerun request marked automatic)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from tests.browser.app_server import (
    CHROMIUM,
    CHROMIUM_ARGS,
    NEEDS_CHROMIUM,
    STEP_S,
    auto_reruns,
    script_runs,
    serve,
    settle,
)

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not CHROMIUM.exists(), reason=NEEDS_CHROMIUM)]

QUERY = "Autophagy declines in aged organisms."
QUIET_S = 5.0


def test_the_warm_up_line_stops_polling_once_the_models_are_ready(demo_home: Path, tmp_path: Path):
    from playwright.sync_api import expect, sync_playwright

    home = tmp_path / "home"
    shutil.copytree(demo_home, home)
    # ``streamlit run app.py``: the warm-up starts on the first page's run, so that page is drawn
    # while it runs, as a tab opened right after ``make app`` is
    with serve(home, "streamlit-warmup-polling.log") as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            frames: list[bytes] = []  # what the server sent
            asked: list[bytes] = []  # what the browser sent
            page.on("websocket", lambda socket: socket.on("framereceived", lambda payload: frames.append(payload)))
            page.on("websocket", lambda socket: socket.on("framesent", lambda payload: asked.append(payload)))
            page.goto(f"{url}/retrieval_lab")
            status = page.locator(".st-key-warmup_status")
            expect(status).to_contain_text("Warming up", timeout=STEP_S * 1000)
            expect(status).to_contain_text("Models ready", timeout=STEP_S * 1000)
            # the line changed without a whole run of the page: the fragment polled while warming
            runs = script_runs(frames)
            assert runs.count(()) == 1 and any(runs[1:]), runs
            assert auto_reruns(asked), "the browser's timer never asked for the line while warming"

            before_query = len(frames)
            query = page.locator(".st-key-lab_query input")
            query.fill(QUERY)
            query.press("Enter")
            expect(page.get_by_text("This is query scifact-")).to_be_visible(timeout=STEP_S * 1000)
            settle(page)
            query_runs = script_runs(frames[before_query:])
            assert query_runs and () not in query_runs, query_runs  # the lab's fragment ran, not the page

            after_query, asked_after_query = len(frames), len(asked)
            time.sleep(QUIET_S)
            # nothing asked for by a timer, and nothing run: an idle tab costs the server nothing
            assert auto_reruns(asked[asked_after_query:]) == [], auto_reruns(asked[asked_after_query:])
            assert script_runs(frames[after_query:]) == [], script_runs(frames[after_query:])
        finally:
            browser.close()
