"""The background warm-up under AppTest: the first page is drawn while the models load, the sidebar
says it is warming, then that the models are ready, and the app queries with what was warmed."""

from __future__ import annotations

from pathlib import Path

from workbench.ui import warmup

MODEL = "all-MiniLM-L6-v2"


def _status_text(app) -> str:
    # the caption is escaped Markdown ("all\-MiniLM"): compare the text it shows
    return " ".join(str(element.value) for element in app.get_by_key("warmup_status").get("caption")).replace("\\", "")


def test_the_page_draws_while_the_models_load_and_the_sidebar_says_so(demo_home_copy: Path, open_app):
    from workbench.embedding import registry
    from workbench.service import first_use

    # holding the embedding registry's lock stops the warm-up inside its model step, however
    # fast this machine loads the model: the page must still be drawn, and say it is warming
    with registry._GUARD:
        app = open_app(demo_home_copy)
        assert not app.exception, app.exception
        warm = warmup.current(demo_home_copy, read_only=False)
        assert warm is not None, "the app's first run did not start the warm-up"
        assert warm.status().state == warmup.WARMING
        assert [title.value for title in app.title] == ["Retrieval lab"]  # the page, not a spinner
        text = _status_text(app)
        assert "Warming up" in text and f"embedding model {MODEL}" in text and "indexes of demo" in text, text

    assert warm.wait(timeout_s=300), warm.status()
    status = warm.status()
    assert status.state == warmup.READY, status
    assert status.done[0] == f"embedding model {MODEL} and the indexes of demo"
    assert ("embed", MODEL) in first_use._WARMED  # the lab's first query finds the model warmed
    app.run()
    text = _status_text(app)
    assert "Models ready" in text and MODEL in text, text
    assert warm.adopt() is None  # the app took the warmed Workbench (it holds the loaded indexes)


def test_the_first_query_after_the_warm_up_pays_no_model_load(demo_home_copy: Path, open_app):
    app = open_app(demo_home_copy)
    warm = warmup.current(demo_home_copy, read_only=False)
    assert warm is not None and warm.wait(timeout_s=300) and warm.status().state == warmup.READY
    app.text_input(key="lab_query").set_value("Autophagy declines in aged organisms.").run()
    assert not app.exception, app.exception
    first_use = [str(c.value) for c in app.caption if str(c.value).startswith("First\\-use cost")]
    assert not any("load embedding model" in text for text in first_use), first_use


def test_an_empty_home_warms_the_default_embedding_model(tmp_path: Path):
    warm = warmup.start(tmp_path / "empty-home", read_only=False)
    assert warm.wait(timeout_s=300)
    assert warm.status().state == warmup.READY and warm.status().done == (f"embedding model {MODEL}",)


def test_a_warm_up_that_fails_says_why(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "catalog.duckdb").write_text("not a database", encoding="utf-8")
    warm = warmup.start(home, read_only=False)
    assert warm.wait(timeout_s=300)
    status = warm.status()
    assert status.state == warmup.FAILED and status.problem
    assert "The first query loads what it needs itself" in status.describe()


def _page_with_a_one_off_error() -> None:
    import streamlit as st

    from workbench.ui import sidebar

    if st.button("Download", key="download"):
        st.error("the download failed verification and was removed")  # shown by this run only
    sidebar._warming_status()  # the polling fragment, as a page drawn while warming holds it


def test_the_warm_up_ending_leaves_the_page_s_last_message_in_place(tmp_path: Path, monkeypatch):
    # a full rerun when the warm-up ends (the fragment's next poll) would wipe a message the page's
    # last run showed once, such as a failed download's, and the person would never see it
    from streamlit.testing.v1 import AppTest

    home = tmp_path / "empty-home"
    monkeypatch.setenv("WORKBENCH_HOME", str(home))
    warm = warmup.start(home, read_only=False)
    assert warm.wait(timeout_s=300) and warm.status().state == warmup.READY
    app = AppTest.from_function(_page_with_a_one_off_error, default_timeout=120)
    app.run()
    app.button(key="download").click().run()
    assert not app.exception, app.exception
    assert [error.value for error in app.error] == ["the download failed verification and was removed"]
    assert "Models ready" in _status_text(app)
