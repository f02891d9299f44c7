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
    captions = [str(caption.value) for caption in page.caption]
    assert any("9 keys, 7,200 configurations" in text for text in captions)
    page.multiselect(key="tune_keys").set_value(["retrieval.mode", "mmr.enabled"]).run()
    assert not page.exception, page.exception
    assert any("2 keys, 6 configurations" in str(caption.value) for caption in page.caption)
    page.multiselect(key="tune_keys").set_value(["fusion.k"]).run()  # read only in RRF hybrid, which the default is
    assert any("1 key, 10 configurations" in str(caption.value) for caption in page.caption)
    assert not page.button(key="tune_start").disabled
