"""Golden sets belong to collections, in Chromium (issue 36): on a home with the demo, create a
collection, upload a document, write a golden set from it against the fake OpenAI-compatible
endpoint, and open the Tune tab: it offers that collection's set, and not the demo's (which scored
every trial of another collection 0.0000). Screenshots land in test-artifacts/browser/.
"""

from __future__ import annotations

import shutil

import pytest

from tests.browser.app_server import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, NEEDS_CHROMIUM, STEP_S, serve, settle

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not CHROMIUM.exists(), reason=NEEDS_CHROMIUM)]

COLLECTION = "mydocs"
NOTE = (
    "# Tide pools\n\n"
    "Sea anemones close their tentacles at low tide to keep water in, and open them again when the "
    "returning sea covers the rocks.\n\n"
    "## Lighthouses\n\n"
    "A Fresnel lens bends the lamp's light into a beam seen twenty miles away, using rings of prisms "
    "that are far thinner than a single solid lens.\n"
)
INGEST_S = 240  # the first upload loads the embedding model


@pytest.fixture(scope="module")
def golden_url(tmp_path_factory, demo_home):
    from tests.fake_openai import FakeOpenAI

    home = tmp_path_factory.mktemp("browser-golden") / "home"
    shutil.copytree(demo_home, home)
    with FakeOpenAI() as fake:
        env = {name: value for name, value in fake.env().items() if value}
        with serve(home, "streamlit-server-golden.log", env=env) as url:
            yield url


def test_the_tune_tab_offers_the_new_collections_set_and_not_the_demos(golden_url):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        try:
            page.goto(golden_url)
            sidebar = page.get_by_test_id("stSidebar")
            main = page.get_by_test_id("stMain")
            expect(sidebar.get_by_role("link", name="Documents")).to_be_visible(timeout=STEP_S * 1000)
            sidebar.get_by_role("link", name="Documents").click()
            expect(main.get_by_role("heading", name="Documents")).to_be_visible(timeout=STEP_S * 1000)
            settle(page)
            main.get_by_text("New collection", exact=True).click()
            name = page.locator(".st-key-new_collection_name input")
            name.fill(COLLECTION)
            name.press("Enter")  # the name's form submits on Enter
            expect(sidebar.locator(".st-key-collection input")).to_have_value(COLLECTION, timeout=STEP_S * 1000)
            settle(page)
            page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
                files=[{"name": "tide-pools.md", "mimeType": "text/markdown", "buffer": NOTE.encode()}]
            )
            ingest = main.get_by_role("button", name="Ingest 1 file")
            expect(ingest).to_be_visible(timeout=STEP_S * 1000)
            ingest.click()
            expect(main.locator("p", has_text="Last upload")).to_contain_text(
                f"{COLLECTION}: 1 file: 1 new", timeout=INGEST_S * 1000
            )

            sidebar.get_by_role("link", name="Evaluation").click()
            expect(main.get_by_role("heading", name="Evaluation")).to_be_visible(timeout=STEP_S * 1000)
            settle(page)
            main.get_by_role("tab", name="From your documents").click()
            write = page.locator(".st-key-synth_run button")
            expect(write).to_be_enabled(timeout=STEP_S * 1000)
            write.click()
            expect(main.get_by_text(f"{COLLECTION}-synth").first).to_be_visible(timeout=STEP_S * 1000)
            settle(page)
            page.screenshot(path=str(ARTIFACTS / "golden-01-written.png"), full_page=True)

            main.get_by_role("tab", name="Tune").click()
            picker = page.locator(".st-key-tune_golden")
            expect(picker.locator("input")).to_have_value(f"{COLLECTION}-synth", timeout=STEP_S * 1000)
            picker.locator("input").click()
            options = page.get_by_role("option")
            expect(options.first).to_be_visible(timeout=STEP_S * 1000)
            offered = [options.nth(i).inner_text().strip() for i in range(options.count())]
            page.screenshot(path=str(ARTIFACTS / "golden-02-tune-offers.png"), full_page=True)
            assert offered == [f"{COLLECTION}-synth"], offered
            assert "demo" not in offered
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "golden-failure.png"), full_page=True)
            raise
        finally:
            browser.close()
