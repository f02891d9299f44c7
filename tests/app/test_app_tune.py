"""The Evaluation page's Tune tab under AppTest, on a copy of the demo: the form, and what it says about the space."""

from __future__ import annotations

from pathlib import Path

from tests.app.conftest import open_evaluation_tab

PAGE = "app_pages/evaluation.py"


def test_the_tune_form_describes_the_space_it_will_search(demo_home_copy: Path, open_app):
    page = open_evaluation_tab(open_app(demo_home_copy, page=PAGE), "Tune").run()
    assert not page.exception, page.exception
    assert page.selectbox(key="tune_golden").value == "demo"
    assert "chunking.size" in page.multiselect(key="tune_keys").value
    level = page.radio(key="tune_level")  # issue 36: synthesised sets are judged at span level
    assert list(level.options) == ["doc", "span"] and level.value == "doc"
    captions = [str(caption.value) for caption in page.caption]
    assert any("9 keys, 7,200 configurations" in text for text in captions)
    page.multiselect(key="tune_keys").set_value(["retrieval.mode", "mmr.enabled"]).run()
    assert not page.exception, page.exception
    assert any("2 keys, 6 configurations" in str(caption.value) for caption in page.caption)
    page.multiselect(key="tune_keys").set_value(["fusion.k"]).run()  # read only in RRF hybrid, which the default is
    assert any("1 key, 10 configurations" in str(caption.value) for caption in page.caption)
    assert not page.button(key="tune_start").disabled


def test_tune_and_agreement_offer_only_the_sidebar_collections_golden_sets(demo_and_notes_home: Path, open_app):
    """Issue 36: with another collection in the sidebar, Tune defaulted to the demo's set (every trial 0.0000)."""
    from tests.notes_collection import GENERATED, add_generated_set

    add_generated_set(demo_and_notes_home)
    page = open_evaluation_tab(open_app(demo_and_notes_home, page=PAGE), "Tune")
    page.sidebar.selectbox(key="collection").set_value("notes").run()
    assert not page.exception, page.exception
    picker = page.selectbox(key="tune_golden")
    assert picker.value == "notes" and set(picker.options) == {"notes", GENERATED}
    judging = open_app(demo_and_notes_home, page="app_pages/judging.py")
    judging.sidebar.selectbox(key="collection").set_value("notes").run()
    assert not judging.exception, judging.exception
    a, b = judging.selectbox(key="judging_agree_a"), judging.selectbox(key="judging_agree_b")
    assert {a.value, b.value} == {"notes", GENERATED} and "demo" not in a.options + b.options
