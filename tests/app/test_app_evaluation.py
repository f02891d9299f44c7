"""The Evaluation page under AppTest, on a copy of the bundled demo (see tests/app/conftest.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.app.conftest import open_evaluation_tab

PAGE = "app_pages/evaluation.py"


def _texts(app, *kinds: str) -> list[str]:
    return [str(element.value) for kind in kinds for element in app.get(kind)]


@pytest.fixture
def page(demo_home_copy: Path, open_app):
    app = open_app(demo_home_copy, page=PAGE)
    assert not app.exception, app.exception
    return app


def test_an_empty_home_says_what_to_do(tmp_path: Path, open_app):
    app = open_app(tmp_path / "empty-home", page=PAGE)
    assert not app.exception
    assert any("nothing to evaluate" in text for text in _texts(app, "info"))


def test_evaluate_compare_and_export(page):
    assert [tab.label for tab in page.tabs][:5] == ["Evaluate", "Runs & compare", "Sweep", "Tune", "Golden sets"]
    assert page.selectbox(key="evaluate_golden").value == "demo"
    page.radio(key="evaluate_level").set_value("span")
    page.text_input(key="evaluate_label").set_value("span run")
    page.button(key="evaluate_run").click().run()
    assert not page.exception, page.exception
    shown = {metric.label: float(metric.value) for metric in page.metric}
    assert set(shown) >= {"ndcg@10", "recall@100", "map@100"} and 0 < shown["ndcg@10"] <= 1
    # issue 36: beside every mean, its 95% interval and its number of queries
    deltas = {metric.label: metric.delta for metric in page.metric}
    assert re.fullmatch(r"\[\d\.\d{4}, \d\.\d{4}\] · \d+ queries", deltas["ndcg@10"]), deltas
    assert any("span level over" in text for text in _texts(page, "caption"))
    stage_tables = [t.value for t in page.dataframe if "stage" in t.value.columns]
    assert list(stage_tables[0]["stage"]) == ["dense", "bm25", "fusion", "final"]
    assert {b.label for b in page.get("download_button")} >= {"Export MD", "Export HTML", "Export CSV"}

    # a second run, document level, then compare the two
    page.radio(key="evaluate_level").set_value("doc")
    page.button(key="evaluate_run").click().run()
    assert not page.exception, page.exception
    assert not page.get("selectbox") or "compare_a" not in [box.key for box in page.selectbox]  # not drawn
    open_evaluation_tab(page, "Runs & compare").run()
    # baseline a is the older run, new b the run just made (they were the other way round)
    assert page.selectbox(key="compare_a").value < page.selectbox(key="compare_b").value
    page.button(key="compare_run").click().run()
    assert not page.exception, page.exception
    labels = {metric.label: metric.value for metric in page.metric}
    assert {"Wins (b better)", "Losses", "Ties", "p-value"} <= set(labels)
    assert 0 < float(labels["p-value"]) <= 1
    assert any("differ in level" in text for text in _texts(page, "warning"))
    assert page.get_by_key("comparison_null").type == "plotly_chart"
    runs = next(t.value for t in page.dataframe if "run" in t.value.columns)
    assert re.fullmatch(r"\[\d\.\d{4}, \d\.\d{4}\]", runs["ndcg@10 95% interval"].iloc[0])
    deltas = next(t.value for t in page.dataframe if "95% interval of the delta" in t.value.columns)
    assert deltas["95% interval of the delta"].iloc[0].startswith("[")


def test_sweep_runs_and_saves_the_best_as_a_preset(page):
    open_evaluation_tab(page, "Sweep").run()
    page.multiselect(key="sweep_metrics").set_value(["ndcg@10", "recall@10"])
    page.multiselect(key="sweep_keys").set_value(["fusion.method", "fusion.k"]).run()
    page.text_input(key="sweep_values_fusion.method").set_value("rrf,weighted")
    page.text_input(key="sweep_values_fusion.k").set_value("10,60").run()
    # weighted fusion ignores fusion.k: its two points are one configuration, run once
    assert any(
        "3 configurations" in text and "1 more differ only in keys their configuration ignores" in text
        for text in _texts(page, "caption")
    )
    page.button(key="sweep_run").click().run()
    assert not page.exception, page.exception
    assert any("embedded 0 corpus texts" in text for text in _texts(page, "success"))
    results = [t.value for t in page.dataframe if "fusion.k" in t.value.columns]
    assert len(results[0]) == 4
    assert list(results[0]["vs best"]).count("best") == 1  # issue 36: each point against the best
    assert {"ndcg@10 95% interval", "queries"} <= set(results[0].columns)
    assert page.get_by_key("sweep_chart").type == "plotly_chart"
    page.text_input(key="sweep_preset_name").set_value("demo-best")
    page.button(key="sweep_save_best").click().run()
    assert not page.exception, page.exception
    assert any("Saved preset" in text and "demo" in text for text in _texts(page, "success"))


def test_adding_a_judgement_writes_the_golden_file(page, demo_home_copy: Path):
    open_evaluation_tab(page, "Golden sets").run()
    page.selectbox(key="golden_edit_pick").set_value("+ new golden set").run()
    page.text_input(key="golden_new_name").set_value("mine").run()
    page.text_input(key="golden_add_query").set_value("how does fusion work")
    page.text_area(key="golden_add_quote").set_value("reciprocal rank fusion")
    page.button(key="FormSubmitter:golden_add-Save judgement").click().run()
    assert not page.exception, page.exception
    written = (demo_home_copy / "golden_sets" / "mine.jsonl").read_text()
    assert '"query": "how does fusion work"' in written and '"quote": "reciprocal rank fusion"' in written


def test_a_golden_set_with_no_answer_queries_shows_abstention(demo_home_copy: Path, open_app):
    off_topic = Path(__file__).resolve().parents[1] / "workbench" / "retrieval" / "off_topic_queries.jsonl"
    golden = demo_home_copy / "golden_sets" / "demo.jsonl"
    golden.write_text(golden.read_text(encoding="utf-8") + off_topic.read_text(encoding="utf-8"), encoding="utf-8")
    app = open_app(demo_home_copy, page=PAGE)
    app.button(key="evaluate_run").click().run()
    assert not app.exception, app.exception
    shown = {metric.label: metric.value for metric in app.metric}
    assert float(shown["abstention recall"]) >= 0.9
    assert float(shown["abstention precision"]) >= 0.9
    assert any("30 of 30 no\\-answer queries" in text for text in _texts(app, "caption"))  # Markdown-escaped


def test_the_golden_set_follows_the_collection(demo_and_notes_home: Path, open_app):
    app = open_app(demo_and_notes_home, page=PAGE)
    assert app.selectbox(key="evaluate_golden").value == "demo"
    app.sidebar.selectbox(key="collection").set_value("notes").run()
    assert not app.exception, app.exception
    assert app.selectbox(key="evaluate_golden").value == "notes"
    assert list(app.selectbox(key="evaluate_golden").options) == ["notes"]
    assert app.button(key="evaluate_run").label == "Evaluate 2 queries"
    app.sidebar.selectbox(key="collection").set_value("demo").run()
    assert app.selectbox(key="evaluate_golden").value == "demo"


def test_evaluating_a_generated_set_says_how_many_items_are_unreviewed(demo_and_notes_home: Path, open_app):
    from tests.notes_collection import GENERATED, add_generated_set

    add_generated_set(demo_and_notes_home)
    app = open_app(demo_and_notes_home, page=PAGE)
    app.sidebar.selectbox(key="collection").set_value("notes").run()
    app.selectbox(key="evaluate_golden").set_value(GENERATED).run()
    warning = "2 of the 2 queries of notes-synth were written by the LLM and are not reviewed yet"
    assert any(warning in text.replace("\\", "") for text in _texts(app, "warning"))
    app.button(key="evaluate_run").click().run()
    assert not app.exception, app.exception
    assert any(warning in text.replace("\\", "") for text in _texts(app, "caption"))  # kept with the run
    app.selectbox(key="evaluate_golden").set_value("notes").run()  # written by hand: nothing to say
    assert not [text for text in _texts(app, "warning") if "not reviewed yet" in text]
