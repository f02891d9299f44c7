"""The Tune tab in Chromium: a 10-trial study runs in the background with progress, then shows the Pareto
chart and the held-out verdict; a second, longer study is ended with Stop.

The app serves a copy of the demo home (studies and presets are written there). Screenshots land in
test-artifacts/browser/.
"""

from __future__ import annotations

import re
import shutil

import pytest

from tests.browser.app_server import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, NEEDS_CHROMIUM, STEP_S, serve, settle

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not CHROMIUM.exists(), reason=NEEDS_CHROMIUM)]

STUDY_S = 300  # ten trials on the demo take seconds on an idle machine; shared CI machines are slower
VERDICTS = re.compile(
    "better than your current configuration|worse than your current configuration|"
    "not distinguishable from your current configuration"
)


@pytest.fixture(scope="module")
def tune_url(tmp_path_factory, demo_home):
    home = tmp_path_factory.mktemp("browser-tune") / "home"
    shutil.copytree(demo_home, home)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with serve(home, "streamlit-server-tune.log") as url:
        yield url


def set_number(page, key: str, value: int) -> None:
    field = page.locator(f".st-key-{key} input")
    field.fill(str(value))
    field.press("Tab")
    settle(page)


def test_a_ten_trial_study_with_progress_pareto_chart_and_verdict_then_stop(tune_url):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        try:
            page.goto(tune_url)
            sidebar = page.get_by_test_id("stSidebar")
            expect(sidebar.get_by_role("link", name="Evaluation")).to_be_visible(timeout=STEP_S * 1000)
            sidebar.get_by_role("link", name="Evaluation").click()
            main = page.get_by_test_id("stMain")
            expect(main.get_by_role("heading", name="Evaluation")).to_be_visible(timeout=STEP_S * 1000)
            settle(page)
            main.get_by_role("tab", name="Tune").click()
            start = page.locator(".st-key-tune_start button")
            expect(start).to_be_visible(timeout=STEP_S * 1000)
            # query-time keys only: no new layout to embed, so the test stays quick
            remove = page.locator(".st-key-tune_keys").get_by_role("button", name="Remove chunking.size")
            remove.click()
            settle(page)
            expect(remove).to_have_count(0)
            set_number(page, "tune_trials", 10)
            start.click()

            progress = main.get_by_test_id("stProgress")
            expect(progress).to_be_visible(timeout=STEP_S * 1000)
            expect(progress).to_contain_text(re.compile(r"Starting|trial \d+/10"))
            page.screenshot(path=str(ARTIFACTS / "tune-01-running.png"), full_page=True)

            verdict = main.get_by_text(re.compile(r"^Held-out ndcg@10: "))
            expect(verdict).to_be_visible(timeout=STUDY_S * 1000)
            expect(verdict).to_contain_text(VERDICTS)
            expect(verdict).to_contain_text("95% interval")
            chart = page.locator(".st-key-tune_pareto_final")
            expect(chart).to_be_visible()
            expect(chart.locator(".js-plotly-plot")).to_have_count(1)
            expect(chart.get_by_text(re.compile(r"winner \(trial \d+\)"))).to_be_visible()
            expect(chart.get_by_text("Pareto front")).to_be_visible()
            expect(page.locator(".st-key-tune_save button")).to_be_visible()
            page.screenshot(path=str(ARTIFACTS / "tune-02-verdict.png"), full_page=True)

            # a long study, ended with Stop
            set_number(page, "tune_trials", 500)
            set_number(page, "tune_seed", 7)
            page.locator(".st-key-tune_start button").click()
            expect(progress).to_contain_text(re.compile(r"trial [1-9]\d*/500"), timeout=STUDY_S * 1000)
            page.locator(".st-key-tune_stop button").click()
            stopped = main.get_by_text(re.compile(r"^Stopped after \d+ completed trials"))
            expect(stopped).to_be_visible(timeout=STEP_S * 1000)
            expect(progress).to_have_count(0)
            expect(page.locator(".st-key-tune_start button")).to_be_enabled()  # another study may start
            expect(page.locator(".st-key-tune_trials input")).to_have_value("500")  # the form kept its values
            page.screenshot(path=str(ARTIFACTS / "tune-03-stopped.png"), full_page=True)
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "tune-failure.png"), full_page=True)
            raise
        finally:
            browser.close()
