"""Issue 47, in Chromium: on a new collection, "Tune this collection" with no choice but the
collection reaches a verdict at the golden set's own level (span: it was judged by quotes) with
nested folds, saves the preset because the gain holds, and shows its MCP client configuration for
stdio and HTTP.

The collection (``tests/browser/part_numbers.py``): ten pump-part handbooks, English and Chinese,
whose 55 questions name look-alike part numbers; with the real MiniLM model the default hybrid
ranking scores span nDCG@10 0.64 on them and BM25 1.00 (measured when this test was written), so
the gain is real and far above what 55 queries can resolve. The collection's default preset sets
``tuning.trials`` (a home setting the flow reads, as a user would set it) to keep the study short.
Screenshots land in test-artifacts/browser/.
"""

from __future__ import annotations

import re

import pytest

from tests.browser import part_numbers
from tests.browser.app_server import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, NEEDS_CHROMIUM, STEP_S, serve, settle

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not CHROMIUM.exists(), reason=NEEDS_CHROMIUM)]

COLLECTION = "parts"
QUICK = "quick-studies"
TRIALS = 6  # per study: six studies (five folds and the final one) of six trials
STUDY_S = 900  # a few minutes on an idle machine, most of it the query embeddings and a layout build


@pytest.fixture(scope="module")
def flow_home(tmp_path_factory):
    from workbench.config import WorkbenchConfig
    from workbench.ingestion.sources import Source
    from workbench.service import Workbench

    root = tmp_path_factory.mktemp("browser-tune-flow")
    home = root / "home"
    bench = Workbench(home)
    files, lines = part_numbers.write(root / "handbooks")
    # 300-character chunks: one or two sections each, so a passage judgement picks one chunk of many
    config = WorkbenchConfig().with_overrides(["chunking.size=300"])
    report = bench.ingest(COLLECTION, [Source.from_markdown(p.name, p.read_text("utf-8")) for p in files], config)
    assert not report.failures, report.summary()
    part_numbers.write_golden(home / "golden_sets" / f"{COLLECTION}.jsonl", lines)
    bench.save_preset(QUICK, {"tuning.trials": TRIALS}, "short studies")
    bench.set_default_preset(COLLECTION, QUICK)
    return home


@pytest.fixture(scope="module")
def flow_url(flow_home):
    with serve(flow_home, "streamlit-server-tune-flow.log") as url:
        yield url


def test_tune_this_collection_reaches_a_verdict_saves_the_preset_and_shows_its_mcp_configuration(flow_home, flow_url):
    from playwright.sync_api import expect, sync_playwright

    from workbench.service import Workbench

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        try:
            page.goto(flow_url)
            sidebar = page.get_by_test_id("stSidebar")
            main = page.get_by_test_id("stMain")
            expect(sidebar.locator(".st-key-collection input")).to_have_value(COLLECTION, timeout=STEP_S * 1000)
            sidebar.get_by_role("link", name="Evaluation").click()
            expect(main.get_by_role("heading", name="Evaluation")).to_be_visible(timeout=STEP_S * 1000)
            settle(page)
            main.get_by_role("tab", name="Tune").click()

            # the plan, with nothing chosen: the set named after the collection, at its own level
            expect(page.locator(".st-key-tune_flow_golden input")).to_have_value(COLLECTION, timeout=STEP_S * 1000)
            plan = page.locator(".st-key-tune_flow_plan")
            expect(plan).to_be_visible(timeout=STEP_S * 1000)
            expect(plan).to_contain_text(f"Level: span. span level: golden set '{COLLECTION}' was judged by passage")
            expect(plan).to_contain_text("(55 of its 55 scorable queries judged by passage, 0 by whole document)")
            expect(plan).to_contain_text("Split: 5-fold nested cross-validation.")
            expect(plan).to_contain_text("55 scorable; the gain is measured on 55 held-out queries")
            expect(plan).to_contain_text(f"{TRIALS} trials per study, 6 studies")
            expect(plan).not_to_contain_text("cannot show a gain")  # not saturated at span level
            page.screenshot(path=str(ARTIFACTS / "tune-flow-01-plan.png"), full_page=True)

            page.locator(".st-key-tune_flow_start button").click()
            expect(main.get_by_test_id("stProgress")).to_be_visible(timeout=STEP_S * 1000)

            verdict = page.locator(".st-key-tune_flow_verdict")
            expect(verdict).to_be_visible(timeout=STUDY_S * 1000)
            page.screenshot(path=str(ARTIFACTS / "tune-flow-02-verdict.png"), full_page=True)
            expect(verdict).to_contain_text(
                "Held-out ndcg@10 at span level (5-fold nested cross-validation, seed 0): gain "
            )
            expect(verdict).to_contain_text("over 55 queries: better than your current configuration")
            # both means and the gain, each with its interval and query count
            table = verdict.get_by_test_id("stDataFrame")
            expect(table).to_contain_text("starting configuration")
            expect(table).to_contain_text("gain (paired)")
            expect(main.get_by_text(re.compile(rf"^saved preset '{COLLECTION}-tuned': "))).to_be_visible()

            mcp = page.locator(".st-key-tune_flow_mcp")
            expect(mcp).to_contain_text(f"Serve preset {COLLECTION}-tuned to your MCP client")
            stdio = mcp.get_by_test_id("stCode").first
            expect(stdio).to_contain_text('"mcpServers"')
            expect(stdio).to_contain_text(f'"{COLLECTION}-tuned"')
            expect(stdio).to_contain_text(str(flow_home))
            mcp.get_by_role("tab", name="streamable HTTP").click()
            http = mcp.get_by_test_id("stCode").filter(has_text="--http")
            expect(http).to_have_count(1)
            expect(http).to_contain_text(f"--preset {COLLECTION}-tuned --collection {COLLECTION} --http --port")
            page.screenshot(path=str(ARTIFACTS / "tune-flow-03-mcp.png"), full_page=True)

            # drawn once: the form below starts and draws only its own studies
            expect(page.locator(".st-key-tune_flow_verdict")).to_have_count(1)
            expect(page.locator(".st-key-tune_start button")).to_be_enabled()
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "tune-flow-failure.png"), full_page=True)
            raise
        finally:
            browser.close()

    saved = {preset.name: preset for preset in Workbench(flow_home).presets()}
    assert f"{COLLECTION}-tuned" in saved
    tuned = saved[f"{COLLECTION}-tuned"]
    assert tuned.provenance and tuned.provenance.get("study")  # what check's second opinion reads
