"""End to end in a real browser: ``streamlit run app.py`` on a loopback port and a temp home,
driven by Playwright with Debian's chromium.

The walk, on an empty home: load the demo with the sidebar button, upload a file on the
Documents page, ask a question in the Retrieval lab, and check that both sides' stage lists and
the rank-flow chart appear (every page opened by its address: ``test_browser_routes_local.py``).
Screenshots of every step land in ``test-artifacts/browser/`` (with the server logs).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.browser.app_server import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, NEEDS_CHROMIUM, STEP_S, serve

DEMO_LOAD_S = 240  # ~20 s on an idle 2-core machine; CI machines are often busier

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not CHROMIUM.exists(), reason=NEEDS_CHROMIUM)]

UPLOADED_NAME = "browser-upload-note.md"
UPLOADED_TEXT = (
    "# A note uploaded from the browser test\n\n"
    "Playwright drives chromium through the upload form; this note checks that the file reaches the "
    "catalog, gets chunked and embedded, and shows up in the document table.\n"
)
QUERY = "How is the reciprocal rank fusion score of a document computed?"


@pytest.fixture(scope="module")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for stale in ARTIFACTS.glob("*.png"):
        stale.unlink()
    return ARTIFACTS


@pytest.fixture
def app_url(tmp_path: Path, artifacts: Path):
    """The app on an empty temp home."""
    with serve(tmp_path / "home", "streamlit-server.log") as url:
        yield url


def test_demo_upload_and_retrieval_lab_in_chromium(app_url: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1100})
        try:

            def shot(name: str) -> None:
                page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

            page.goto(app_url)
            sidebar = page.get_by_test_id("stSidebar")
            load_demo = sidebar.get_by_role("button", name="Load the demo")
            expect(load_demo).to_be_visible(timeout=STEP_S * 1000)
            shot("01-empty-home")

            load_demo.click()
            # after loading, the app reruns with the demo selected in the collection picker
            expect(page.get_by_text("Loaded the demo")).to_be_visible(timeout=DEMO_LOAD_S * 1000)
            expect(sidebar.locator(".st-key-collection input")).to_have_value("demo")
            expect(sidebar.get_by_text("44 documents")).to_be_visible()
            shot("02-demo-loaded")

            sidebar.get_by_role("link", name="Documents").click()
            main = page.get_by_test_id("stMain")
            expect(main.get_by_role("heading", name="Documents")).to_be_visible(timeout=STEP_S * 1000)
            page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
                files=[{"name": UPLOADED_NAME, "mimeType": "text/markdown", "buffer": UPLOADED_TEXT.encode()}]
            )
            ingest = main.get_by_role("button", name="Ingest 1 file")
            expect(ingest).to_be_visible(timeout=STEP_S * 1000)
            shot("03-file-chosen")
            ingest.click()
            # the report after the rerun (the progress bar shows the same summary until it is cleared)
            expect(main.locator("p", has_text="Last upload")).to_contain_text(
                "demo: 1 file: 1 new", timeout=STEP_S * 1000
            )
            expect(sidebar.get_by_text("45 documents")).to_be_visible()
            shot("04-file-ingested")

            sidebar.get_by_role("link", name="Retrieval lab").click()
            query = page.locator(".st-key-lab_query input")
            expect(query).to_be_visible(timeout=STEP_S * 1000)
            query.fill(QUERY)
            query.press("Enter")
            for side in ("a", "b"):
                container = page.locator(f".st-key-side_{side}")
                expect(container).to_be_visible(timeout=STEP_S * 1000)
                # every stage at a glance, and a choice for each stage the query went through
                # ("dense · 10"); the folded configuration above also says "Dense weight", so look
                # for the choices themselves
                expect(container.get_by_text(re.compile(r"fusion · \d+ hits? · "))).to_be_visible(timeout=STEP_S * 1000)
                for stage in ("dense", "bm25", "fusion"):
                    choice = container.get_by_role("radio", name=re.compile(rf"^{stage} · "))
                    expect(choice).to_be_visible(timeout=STEP_S * 1000)
            # picking a stage shows its whole list
            side_a = page.locator(".st-key-side_a")
            side_a.get_by_role("radio", name=re.compile(r"^fusion · ")).click()
            expect(side_a.get_by_test_id("stDataFrame")).to_have_count(2, timeout=STEP_S * 1000)
            for side in ("a", "b"):  # the timings and rank flow are drawn when their panel is opened
                page.locator(f".st-key-side_{side}").get_by_text("Timings and rank flow", exact=True).click()
                chart = page.locator(f".st-key-rank_flow_{side}")
                expect(chart.locator(".js-plotly-plot")).to_be_visible(timeout=STEP_S * 1000)
            # the A-vs-B table, for the eye: the grid draws its cells on a canvas (its accessible copy
            # holds raw values), so the AppTest checks the integer ranks and the "—" placeholder
            expect(page.get_by_text("A vs B: the final lists")).to_be_visible(timeout=STEP_S * 1000)
            page.get_by_text(re.compile(r" · chunk by chunk$")).click()  # drawn when its panel is opened
            tables = page.get_by_test_id("stDataFrame")
            expect(tables.filter(has_text="rank A")).to_have_count(1, timeout=STEP_S * 1000)
            (diff,) = [tables.nth(i) for i in range(tables.count()) if "rank A" in tables.nth(i).inner_html()]
            diff.screenshot(path=str(ARTIFACTS / "05b-a-vs-b.png"))
            shot("05-retrieval-lab")
            # the app scrolls inside its own container, so full-page shots stop at the viewport
            for side in ("a", "b"):
                page.locator(f".st-key-side_{side}").screenshot(path=str(ARTIFACTS / f"06-side-{side}.png"))
            page.locator(".st-key-rank_flow_a").screenshot(path=str(ARTIFACTS / "07-rank-flow-a.png"))
        except Exception:
            shot("failure")
            raise
        finally:
            browser.close()
