"""The LLM stages in the app (AppTest): the Retrieval lab with query enhancement and LLM rerank
against the fake endpoint, the options disabled with the reason without one, answers on the
Evaluation page, and enrichment in the chunk browser."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.conftest import open_evaluation_tab, open_lab_panels, open_lab_settings
from workbench.ui.context_panel import PANEL_KEY as CONTEXT_PANEL
from workbench.ui.hit_explanation import PANEL_KEY as EXPLAIN_PANEL

LAB = "app_pages/retrieval_lab.py"
QUERY = "How does reciprocal rank fusion combine rankings?"


def _texts(app, *kinds: str) -> list[str]:
    return [str(element.value) for kind in kinds for element in app.get(kind)]


def _side_frames(app, side: str) -> list:
    container = app.get_by_key(f"side_{side}")
    return [node.value for node in container if getattr(node, "type", "") in ("arrow_data_frame", "dataframe")]


def test_the_lab_runs_query_enhancement_and_llm_rerank_and_shows_texts_tokens_and_ms(
    demo_home: Path, open_app, fake_llm
):
    fake_llm.script(
        "Query: " + QUERY, "reciprocal rank fusion formula\nmerging ranked lists with RRF", purpose="query.multi"
    )
    app = open_lab_settings(open_app(demo_home, page=LAB), "b")
    assert tuple(app.selectbox(key="lab_b_query.enhance").options) == (
        "none",
        "rewrite",
        "multi",
        "hyde",
        "decompose",
        "keywords",
    )
    app.selectbox(key="lab_b_query.enhance").set_value("multi")
    app.toggle(key="lab_b_rerank.method.llm").set_value(True).run()
    app.number_input(key="lab_b_query.variants").set_value(2)
    app.number_input(key="lab_b_rerank.top_m").set_value(5)
    app.text_input(key="lab_query").set_value(QUERY).run()
    assert not app.exception, app.exception

    labels = app.segmented_control(key="lab_b_stage").options[1:]  # after "All stages"
    tabs = [label.split(" · ")[0] for label in labels]
    assert tabs[:4] == ["dense (query)", "dense (multi 1)", "dense (multi 2)", "dense"]
    assert tabs[-2:] == ["rerank", "final"]
    frames = _side_frames(app, "b")
    variants = next(f for f in frames if list(f.columns) == ["text", "from", "routes"])
    assert list(variants["text"]) == [QUERY, "reciprocal rank fusion formula", "merging ranked lists with RRF"]
    # a stage's table and LLM calls are drawn when the stage is picked: pick side B's rerank
    app.session_state["lab_b_timings"] = True  # and the timings table, drawn when its panel is open
    app.segmented_control(key="lab_b_stage").set_value(labels[tabs.index("rerank")]).run()
    frames = _side_frames(app, "b")
    calls = [f for f in frames if "prompt tokens" in f.columns]
    query_call, rerank_calls = calls[0], calls[1]
    assert query_call["reply"][0] == "reciprocal rank fusion formula\nmerging ranked lists with RRF"
    assert query_call["prompt tokens"][0] > 0 and query_call["ms"][0] > 0
    assert len(rerank_calls) == 5 and (rerank_calls["completion tokens"] == 1).all()
    timings = next(f for f in frames if "tokens" in f.columns and "stage" in f.columns)
    assert timings["stage"][0] == "query (multi)" and timings["tokens"][0] > 0
    captions = _texts(app, "caption")
    assert any(text.startswith("5 LLM calls (5 to the endpoint, 0 cached)") for text in captions)
    assert any("query multi" in text and "LLM rerank top 5" in text for text in captions)
    # side A ran without the LLM: the two finals are compared as usual
    assert any("A vs B" in text for text in _texts(app, "subheader"))

    # explain a hit of side B: the query stage and the LLM's rerank score with its call
    open_lab_panels(app, EXPLAIN_PANEL).run()
    app.segmented_control(key="lab_explain_side").set_value("b").run()
    assert not app.exception, app.exception
    code = "\n".join(_texts(app, "code"))
    assert "LLM fake-llm, pointwise prompt rerank.pointwise@2" in code and "tokens" in code
    assert any("Query stage (multi)" in text for text in _texts(app, "markdown"))


def test_without_an_endpoint_the_llm_options_are_disabled_with_the_reason(demo_home: Path, open_app, no_llm):
    app = open_lab_settings(open_app(demo_home, page=LAB), "a")
    assert not app.exception, app.exception
    assert tuple(app.selectbox(key="lab_a_query.enhance").options) == ("none", "keywords")
    assert any(
        text.startswith("Disabled: rewrite, multi, hyde, decompose need an LLM endpoint, which is not configured")
        for text in _texts(app, "caption")
    )
    toggle = app.toggle(key="lab_a_rerank.method.llm")
    assert toggle.disabled and toggle.value is False
    assert "Needs an LLM endpoint, which is not configured" in toggle.help
    # the offline option still works
    app.selectbox(key="lab_a_query.enhance").set_value("keywords")
    app.text_input(key="lab_query").set_value(QUERY).run()
    assert not app.exception, app.exception
    assert any("BM25 searched with the salient terms by idf" in text for text in _texts(app, "info"))


def test_evaluation_answers_are_generated_judged_and_shown(demo_home_copy: Path, open_app, fake_llm):
    app = open_app(demo_home_copy, page="app_pages/evaluation.py")
    app.toggle(key="evaluate_answers").set_value(True)
    app.button(key="evaluate_run").click().run()
    assert not app.exception, app.exception
    shown = {metric.label: float(metric.value) for metric in app.metric}
    assert {"faithfulness", "answer_relevance", "context_precision", "citations_valid"} <= set(shown)
    answers = next(t.value for t in app.dataframe if "faithfulness" in t.value.columns and "answer" in t.value.columns)
    assert len(answers) == 24 and answers["answer"].str.contains(r"\[S1\]").all()
    assert (answers["tokens"] > 0).all()
    captions = [text.replace("\\", "") for text in _texts(app, "caption")]
    assert any(text.startswith("answers: ") and "LLM calls" in text for text in captions)


def test_evaluation_answers_are_disabled_without_an_endpoint(demo_home: Path, open_app, no_llm):
    app = open_app(demo_home, page="app_pages/evaluation.py")
    toggle = app.toggle(key="evaluate_answers")
    assert toggle.disabled and "Needs an LLM endpoint, which is not configured" in toggle.help


def test_the_chunk_browser_shows_the_enrichment(tmp_path: Path, open_app, fake_llm):
    from workbench.ingestion.ingest import Source
    from workbench.service import Workbench

    home = tmp_path / "home"
    bench = Workbench(home)
    config = bench.config_for(None).with_overrides(["chunking.enrich=all", "chunking.enrich_index=true"])
    bench.ingest("notes", [Source.from_markdown("茶.md", "# 泡茶\n\n绿茶用八十度的水冲泡。红茶用沸水冲泡。\n")], config)
    app = open_app(home, page="app_pages/documents.py")
    assert not app.exception, app.exception
    app.session_state["documents_detail_tab"] = "Chunks"  # the chunk browser's tab, drawn once picked
    app.run()
    markdown = "\n".join(_texts(app, "markdown"))
    assert "**Title:** 泡茶 绿茶用八十度的水冲泡。红茶用沸水冲泡。" in markdown
    assert "**Summary:** 泡茶 绿茶用八十度的水冲泡。" in markdown and "**Tags:**" in markdown
    assert any("then its enrichment" in text for text in _texts(app, "caption"))


def test_the_lab_answer_goes_through_the_cache_and_shows_its_cost(demo_home: Path, open_app, fake_llm):
    app = open_lab_panels(open_app(demo_home, page=LAB), CONTEXT_PANEL)
    app.text_input(key="lab_query").set_value(QUERY).run()
    app.button(key="lab_generate").click().run()
    assert not app.exception, app.exception
    assert fake_llm.purposes() == {"answer": 1}
    answer = next(text for text in _texts(app, "text") if text.endswith("[S1]"))
    captions = [text.replace("\\", "") for text in _texts(app, "caption")]
    assert any(text.startswith("answer: ") and " tokens, " in text for text in captions)
    app.button(key="lab_generate").click().run()  # the same context again: from the cache
    assert fake_llm.purposes() == {"answer": 1}
    assert answer in _texts(app, "text")
    assert any("cached (generated in" in text.replace("\\", "") for text in _texts(app, "caption"))


def test_a_misbehaving_endpoint_keeps_the_lab_working_with_notes(demo_home: Path, open_app, fake_llm):
    fake_llm.behaviour = "garbage"
    app = open_lab_settings(open_app(demo_home, page=LAB), "b")
    app.selectbox(key="lab_b_query.enhance").set_value("hyde")
    app.toggle(key="lab_b_rerank.method.llm").set_value(True)
    app.text_input(key="lab_query").set_value(QUERY).run()
    assert not app.exception, app.exception
    infos = [text.replace("\\", "") for text in _texts(app, "info")]
    assert any("query enhancement (hyde) fell back to the query as typed: unusable reply" in t for t in infos)
    assert any("rerank fell back to the previous order ('mmr')" in t for t in infos)  # side B starts with MMR


def test_the_sweep_says_how_many_llm_calls_it_may_make_before_it_runs(demo_home: Path, open_app, no_llm):
    app = open_evaluation_tab(open_app(demo_home, page="app_pages/evaluation.py"), "Sweep").run()
    app.multiselect(key="sweep_keys").set_value(["query.enhance", "rerank.method"]).run()
    app.text_input(key="sweep_values_query.enhance").set_value("none,multi,hyde")
    app.text_input(key="sweep_values_rerank.method").set_value("cross_encoder,llm").run()
    assert not app.exception, app.exception
    captions = [text.replace("\\", "") for text in _texts(app, "caption")]
    # 24 golden queries: multi and hyde in 2 points each, LLM rerank of 30 candidates in 3 points
    assert any(
        text.startswith("6 configurations × 24 queries")
        and "at most 2,256 LLM calls (query.enhance=multi: 48, query.enhance=hyde: 48, rerank.method=llm: 2,160)"
        in text
        for text in captions
    ), captions


@pytest.mark.parametrize("off_topic", ["How do I bake sourdough bread at home?", "怎么做红烧肉才好吃？"])
def test_an_answer_from_a_no_answer_context_is_not_presented_as_an_answer(
    demo_home: Path, open_app, fake_llm, off_topic
):
    app = open_lab_panels(open_app(demo_home, page=LAB), CONTEXT_PANEL)
    app.text_input(key="lab_query").set_value(off_topic).run()
    warnings = [text.replace("\\", "") for text in _texts(app, "warning")]
    assert any(text.startswith("Retrieval's verdict is no_answer") for text in warnings), warnings
    app.button(key="lab_generate").click().run()
    assert not app.exception, app.exception
    assert "The model's reply (not an answer: retrieval found nothing it trusts)" in _texts(app, "caption")


def test_an_answer_from_a_relevant_context_carries_no_doubt(demo_home: Path, open_app, fake_llm):
    app = open_lab_panels(open_app(demo_home, page=LAB), CONTEXT_PANEL)
    app.text_input(key="lab_query").set_value(QUERY).run()
    assert not any(text.startswith("Retrieval's verdict") for text in _texts(app, "warning"))
