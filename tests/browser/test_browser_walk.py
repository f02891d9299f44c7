"""Every string a user reads, once, in Chromium: a walk over every page with the demo loaded.

One server on a home with the demo. The walk opens each page by its address, waits for the
run to finish, and fails on any Plotly placeholder text ("new text", "Click to enter ... title"),
an empty ``key =`` value, a traceback, or an error box (a ``no_answer`` verdict is a verdict,
not an error). In the Retrieval lab it asks a question and checks that the verdict and the first
final hit are on screen in a 1400×1000 window without scrolling; in Evaluation it makes two runs
(doc, then span level) and compares them, so the significance chart is drawn. Then the server
restarts and the first address opened is ``/evaluation``: the page arrives whole, with the sidebar's
pickers and the wide layout (issue 36, point 6). Screenshots land in test-artifacts/browser/.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.browser.app_server import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, NEEDS_CHROMIUM, STEP_S, serve, settle
from tests.browser.test_browser_e2e import QUERY

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not CHROMIUM.exists(), reason=NEEDS_CHROMIUM)]

VIEWPORT = {"width": 1400, "height": 1000}
PLOTLY_PLACEHOLDERS = ("new text", "Click to enter")
#: "rerank.model =" followed by nothing: a key shown without its value
EMPTY_VALUE = re.compile(r"\b[a-z_]+\.[a-z_]+ =\s*(?:,|;|\)|$)", re.MULTILINE)
VERDICT_PREFIX = "No answer:"


@pytest.fixture(scope="module")
def walk_home(tmp_path_factory: pytest.TempPathFactory):
    from workbench.demo import load_demo
    from workbench.service import Workbench

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    home = tmp_path_factory.mktemp("browser-walk-home")
    loaded = load_demo(Workbench(home))
    assert not loaded.report.failures, loaded.report.summary()
    return home


@pytest.fixture(scope="module")
def walk_url(walk_home):
    with serve(walk_home, "streamlit-server-walk.log") as url:
        yield url


def problems_on(page) -> list[str]:
    found = []
    main_text = page.get_by_test_id("stMain").inner_text()
    for match in EMPTY_VALUE.finditer(main_text):
        line = main_text[main_text.rfind("\n", 0, match.start()) + 1 : match.end()]
        found.append(f"empty value: {line.strip()!r}")
    if "Traceback" in main_text:
        found.append("a traceback")
    if page.get_by_test_id("stException").count():
        found.append("an exception box: " + page.get_by_test_id("stException").first.inner_text()[:300])
    for error in page.get_by_test_id("stAlertContentError").all():
        text = error.inner_text().strip()
        if not text.startswith(VERDICT_PREFIX):
            found.append(f"an error box: {text[:300]!r}")
    for chart_text in page.locator(".js-plotly-plot text").all_text_contents():
        if any(placeholder in chart_text for placeholder in PLOTLY_PLACEHOLDERS):
            found.append(f"Plotly placeholder text {chart_text!r}")
    return found


def test_every_page_reads_clean_and_the_lab_shows_its_answer_in_view(walk_url: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    from workbench.ui.pages import ALL_PAGES

    problems: dict[str, list[str]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport=VIEWPORT)
        try:
            for spec in ALL_PAGES:
                page.goto(f"{walk_url}/{spec.url_path}")
                expect(page.get_by_test_id("stMain").get_by_role("heading").first).to_be_visible(timeout=STEP_S * 1000)
                settle(page)
                if spec.url_path == "retrieval_lab":
                    ask_and_check_the_answer_is_in_view(page)
                if spec.url_path == "evaluation":
                    two_runs_and_a_comparison(page)
                page.screenshot(path=str(ARTIFACTS / f"walk-{spec.url_path}.png"), full_page=True)
                problems[spec.url_path] = problems_on(page)
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "walk-failure.png"), full_page=True)
            raise
        finally:
            browser.close()
    assert not any(problems.values()), {page: found for page, found in problems.items() if found}


def ask_and_check_the_answer_is_in_view(page) -> None:
    from playwright.sync_api import expect

    query = page.locator(".st-key-lab_query input")
    query.fill(QUERY)
    query.press("Enter")
    side_a = page.locator(".st-key-side_a")
    verdict = side_a.get_by_test_id("stAlert").first
    expect(verdict).to_be_visible(timeout=STEP_S * 1000)
    settle(page)
    final_label = side_a.get_by_text(re.compile(r"^Final · \d+$")).first
    expect(final_label).to_be_visible()
    # the first table drawn under side A (the evidence table waits in a folded expander)
    final_table = side_a.get_by_test_id("stDataFrame").filter(visible=True).first
    expect(final_table).to_be_visible(timeout=STEP_S * 1000)
    page.screenshot(path=str(ARTIFACTS / "walk-lab-viewport.png"))  # what the window shows, unscrolled
    verdict_box, table_box = verdict.bounding_box(), final_table.bounding_box()
    first_row_bottom = table_box["y"] + 2 * 35  # the header row, then the first hit
    (ARTIFACTS / "walk-lab-boxes.json").write_text(
        json.dumps(
            {
                "viewport": VIEWPORT,
                "verdict": verdict_box,
                "final_table": table_box,
                "first_final_hit_bottom": first_row_bottom,
            },
            indent=1,
        )
    )
    assert verdict_box["y"] + verdict_box["height"] <= VIEWPORT["height"], verdict_box
    assert first_row_bottom <= VIEWPORT["height"], table_box
    # the one-off work is shown apart, not inside side A's stage times
    expect(page.get_by_text(re.compile(r"^First-use cost")).first).to_be_visible()
    # the rank-flow charts are drawn once their panels are opened: open them, so the page's
    # checks read the charts' text too
    for side in ("a", "b"):
        page.locator(f".st-key-side_{side}").get_by_text("Timings and rank flow", exact=True).click()
        expect(page.locator(f".st-key-rank_flow_{side} .js-plotly-plot")).to_be_visible(timeout=STEP_S * 1000)
    settle(page)


def two_runs_and_a_comparison(page) -> None:
    from playwright.sync_api import expect

    main = page.get_by_test_id("stMain")
    for run, level in ((1, "doc"), (2, "span")):  # two runs that differ, so the test has something to test
        page.locator(".st-key-evaluate_level").get_by_text(level, exact=True).click()
        settle(page)
        page.locator(".st-key-evaluate_run button").click()
        expect(main.get_by_text(re.compile(rf"^#{run} ")).first).to_be_visible(timeout=STEP_S * 1000)
        settle(page)
    main.get_by_role("tab", name="Runs & compare").click()
    page.locator(".st-key-compare_run button").click()
    settle(page)
    chart = page.locator(".st-key-comparison_null .js-plotly-plot")
    expect(chart).to_be_visible(timeout=STEP_S * 1000)


def test_after_a_restart_the_evaluation_page_opened_first_arrives_whole(walk_url, walk_home) -> None:
    """``walk_url`` first, so that this server is a restart on a home that a server already used."""
    from playwright.sync_api import expect, sync_playwright

    with serve(walk_home, "streamlit-server-walk-restart.log") as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport=VIEWPORT)
        try:
            for attempt in ("first request", "reload"):
                if attempt == "reload":
                    page.reload()
                else:
                    page.goto(f"{url}/evaluation")
                sidebar = page.get_by_test_id("stSidebar")
                expect(sidebar.locator(".st-key-collection input")).to_have_value("demo", timeout=STEP_S * 1000)
                expect(sidebar.locator(".st-key-preset")).to_be_visible()
                nav = sidebar.get_by_test_id("stSidebarNav")
                expect(nav).to_contain_text("Measure")  # the app's sections, not Streamlit's list of files
                expect(nav).not_to_contain_text("presets mcp")
                expect(page.get_by_test_id("stMain").get_by_role("heading", name="Evaluation")).to_be_visible()
                settle(page)
                width = page.get_by_test_id("stMainBlockContainer").bounding_box()["width"]
                assert width > 800, (attempt, width)  # the wide layout: the centred one is at most 736 px wide
                page.screenshot(path=str(ARTIFACTS / f"walk-restart-evaluation-{attempt.split()[0]}.png"))
                assert not problems_on(page), (attempt, problems_on(page))
        finally:
            browser.close()
