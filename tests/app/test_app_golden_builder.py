"""The Evaluation page's "From your documents" tab under AppTest, on a copy of the demo, against
the fake OpenAI-compatible endpoint: the estimate before the run, the build, the review table and
the quote shown in its document."""

from __future__ import annotations

from pathlib import Path

from tests.app.conftest import open_evaluation_tab
from workbench.ui.text import md_escape

PAGE = "app_pages/evaluation.py"


def _texts(app, *kinds: str) -> list[str]:
    return [str(element.value) for kind in kinds for element in app.get(kind)]


def test_build_a_set_then_review_it_with_the_quote_in_its_document(demo_home_copy: Path, open_app, fake_llm):
    app = open_app(demo_home_copy, page=PAGE)
    assert not app.exception, app.exception
    assert "From your documents" in [tab.label for tab in app.tabs]
    open_evaluation_tab(app, "From your documents").run()
    # issue 36: the default can show a gain of 0.05 on a typical collection, and says why
    assert app.number_input(key="synth_n").value == 52
    assert any("about 46 kept queries can show a gain of 0.05" in text for text in _texts(app, "caption"))
    app.number_input(key="synth_n").set_value(6)
    app.multiselect(key="synth_kinds").set_value(["specific", "multi_hop"]).run()
    assert any(text.startswith("LLM (fake\\-llm@") and "at most 6 LLM calls" in text for text in _texts(app, "caption"))
    assert fake_llm.count("/chat/completions") == 0  # nothing is asked before the button

    app.button(key="synth_run").click().run()
    assert not app.exception, app.exception
    assert fake_llm.count("/chat/completions") == 6
    metrics = {metric.label: metric.value for metric in app.metric}
    assert metrics["kept"].endswith("of 6") and "question/quote overlap" in metrics
    assert any("Wrote" in text and "demo\\-synth" in text for text in _texts(app, "success"))

    assert app.selectbox(key="synth_review_set").value == "demo-synth"
    table = app.dataframe(key="synth_review_table_demo-synth").value
    assert set(table["decision"]) == {"pending"} and set(table["kind"]) <= {"specific", "multi_hop"}
    shown = app.selectbox(key="synth_review_item").value
    highlighted = [text for text in _texts(app, "markdown") if ":orange-background[" in text]
    assert highlighted, "the quote is highlighted in its document"
    quote = table.set_index("id").loc[shown, "quote"]
    assert f":orange-background[{md_escape(quote)}]" in highlighted[0]


def test_saving_a_review_confirms_it_in_the_tab_and_stays_there(demo_and_notes_home: Path, open_app):
    from tests.notes_collection import GENERATED, add_generated_set

    add_generated_set(demo_and_notes_home)
    app = open_app(demo_and_notes_home, page=PAGE)
    app.sidebar.selectbox(key="collection").set_value("notes").run()
    open_evaluation_tab(app, "From your documents").run()  # where the user is
    assert app.selectbox(key="synth_review_set").value == GENERATED
    app.button(key="synth_review_save").click().run()
    assert not app.exception, app.exception
    assert app.session_state["evaluation_tab"] == "From your documents"
    (tab,) = [tab for tab in app.tabs if tab.label == "From your documents"]
    assert [success.value for success in tab.success] == [
        md_escape(f"Review of {GENERATED} saved: 0 accepted, 0 edited, 0 rejected; 2 still pending.")
    ]
    # the review lists only the sets generated from the selected collection
    app.sidebar.selectbox(key="collection").set_value("demo").run()
    assert not [box for box in app.selectbox if box.key == "synth_review_set"]
