"""The Tune tab's "Tune this collection" in Chromium, on a collection the test creates: with no choice
but the collection, it writes a golden set with the (fake) LLM endpoint, plans the experiment at the
set's own level (span: the questions were judged by passage) with nested folds, runs the study,
reaches a verdict with both means and the gain, saves the preset because the gain holds, and
shows the MCP client configuration that serves it.

The collection is mostly Chinese and starts on dense retrieval (its default preset, set here with
few trials and questions: ``tuning.trials``, ``tuning.first_questions``), which the English-only
default model serves poorly on Chinese text: a real gain exists for the study to find. Nothing in
the page is chosen: the test only presses the buttons the default path shows.
"""

from __future__ import annotations

import re

import pytest

from tests.browser.app_server import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, NEEDS_CHROMIUM, STEP_S, serve, settle

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not CHROMIUM.exists(), reason=NEEDS_CHROMIUM)]

COLLECTION = "flow"
STUDY_S = 900  # six studies of three trials on a tiny collection: a minute idle, far longer on a loaded machine
SECTIONS = {
    "水泵": (
        "叶轮每运行五百小时检查一次，磨损超过两毫米时更换。",
        "机械密封漏水时先停泵，再更换动环和静环。",
        "联轴器对中偏差应小于零点一毫米。",
    ),
    "阀门": (
        "执行器的密封圈每季度更换一次。",
        "弹簧预紧力按照铭牌数值调整，不得随意加大。",
        "阀杆卡涩时涂抹二硫化钼润滑脂。",
    ),
    "压缩机": (
        "滤芯堵塞会使排气温度升高。",
        "活塞环应当在大修时一并更换。",
        "冷却水中断时必须立即紧急停机。",
    ),
    "输送机": (
        "皮带跑偏时先调整托辊。",
        "张紧器的行程不足时要截短皮带重新硫化接头。",
        "滚筒包胶脱落会造成打滑。",
    ),
    "冷却塔": (
        "风机叶片每年做一次动平衡。",
        "填料结垢时用弱酸溶液清洗。",
        "收水器破损会增加飘水损失。",
    ),
    "锅炉": (
        "水位计每班冲洗一次。",
        "安全阀每年由检验机构校验。",
        "排污阀应当缓慢开启，防止水击。",
    ),
}
DOCUMENTS = {
    f"{topic}.md": f"# {topic}维护要点\n\n"
    + "\n\n".join(f"## 第{number}节\n\n{text}" for number, text in enumerate(texts, start=1))
    for topic, texts in SECTIONS.items()
} | {
    "pump-notes.md": "# Pump notes\n\nThe impeller of the feed pump is inspected every five hundred hours, "
    "and replaced when its vanes wear by more than two millimetres.\n"
}


@pytest.fixture(scope="module")
def flow_url(tmp_path_factory):
    from tests.fake_openai import FakeOpenAI
    from workbench.config import WorkbenchConfig
    from workbench.ingestion.ingest import Source
    from workbench.service import Workbench

    home = tmp_path_factory.mktemp("browser-tune-flow") / "home"
    bench = Workbench(home)
    report = bench.ingest(
        COLLECTION,
        [Source.from_markdown(name, text) for name, text in DOCUMENTS.items()],
        WorkbenchConfig().with_overrides(["chunking.size=200", "chunking.overlap=0"]),
    )
    assert not report.failures, report.summary()
    bench.save_preset(
        "start",
        {"retrieval.mode": "dense", "tuning.trials": 3, "tuning.first_questions": 80},
        "dense retrieval, few trials and questions (the browser test)",
    )
    bench.set_default_preset(COLLECTION, "start")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with FakeOpenAI() as fake:
        env = {name: value for name, value in fake.env().items() if value}
        with serve(home, "streamlit-server-tune-flow.log", env=env) as url:
            yield url


def test_tune_this_collection_with_no_choice_reaches_a_verdict_and_shows_the_mcp_snippet(flow_url):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        try:
            page.goto(flow_url)
            sidebar = page.get_by_test_id("stSidebar")
            main = page.get_by_test_id("stMain")
            expect(sidebar.get_by_role("link", name="Evaluation")).to_be_visible(timeout=STEP_S * 1000)
            sidebar.get_by_role("link", name="Evaluation").click()
            expect(main.get_by_role("heading", name="Evaluation")).to_be_visible(timeout=STEP_S * 1000)
            settle(page)
            main.get_by_role("tab", name="Tune").click()

            # no golden set judges the new collection: the endpoint writes one
            write = page.locator(".st-key-tune_flow_write button")
            expect(write).to_be_visible(timeout=STEP_S * 1000)
            write.click()
            plan = page.locator(".st-key-tune_flow_plan")
            expect(plan).to_be_visible(timeout=STEP_S * 1000)
            expect(plan).to_contain_text("Level: span")
            expect(plan).to_contain_text("5-fold nested cross-validation")
            expect(plan).to_contain_text("The gain it can detect")
            expect(plan).to_contain_text("3 trials per study, 6 studies")
            expect(page.locator(".st-key-tune_flow_golden input")).to_have_value(f"{COLLECTION}-questions")
            page.screenshot(path=str(ARTIFACTS / "tune-flow-01-plan.png"), full_page=True)

            page.locator(".st-key-tune_flow_start button").click()
            verdict = page.locator(".st-key-tune_flow_verdict")
            expect(verdict).to_be_visible(timeout=STUDY_S * 1000)
            expect(verdict).to_contain_text(re.compile(r"Held-out ndcg@10 at span level \(5-fold nested"))
            expect(verdict).to_contain_text("better than your current configuration")
            for row in ("starting configuration", "tuned", "gain (paired)"):
                expect(verdict.get_by_text(row, exact=True)).to_be_visible()
            page.screenshot(path=str(ARTIFACTS / "tune-flow-02-verdict.png"), full_page=True)

            saved = main.get_by_text(re.compile(rf"saved preset '{COLLECTION}-tuned'"))
            expect(saved).to_be_visible(timeout=STEP_S * 1000)
            snippet = page.locator(".st-key-tune_flow_mcp")
            expect(snippet).to_contain_text('"mcpServers"')
            expect(snippet).to_contain_text(f"{COLLECTION}-tuned")
            snippet.get_by_role("tab", name="streamable HTTP").click()
            expect(snippet).to_contain_text("--http")
            expect(snippet).to_contain_text("http://127.0.0.1:8765/mcp")
            page.screenshot(path=str(ARTIFACTS / "tune-flow-03-preset.png"), full_page=True)
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "tune-flow-failure.png"), full_page=True)
            raise
        finally:
            browser.close()
