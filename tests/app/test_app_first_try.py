"""What a new user met on a first try with a collection of their own (issue 48, item 8), under
AppTest: the Chinese warning before the upload, a new tab on the collection last used, the Sweep
tab on the golden set that judges the collection, distinct colours on the embedding map, and the
judge's name as a form."""

from __future__ import annotations

import json
from pathlib import Path

from tests.app.conftest import open_evaluation_tab
from tests.notes_collection import add_notes_collection

DOCUMENTS = "app_pages/documents.py"
ADVICE = "paraphrase-multilingual-MiniLM-L12-v2 (50+ languages, 471 MB) or BAAI/bge-small-zh-v1.5 (Chinese, 96 MB)"


def _texts(app, kind: str) -> list[str]:
    return [str(element.value) for element in app.get(kind)]


def _chinese_warnings(app) -> list[str]:
    return [text for text in _texts(app, "alert") + _texts(app, "warning") if "If your documents are Chinese" in text]


def test_the_chinese_warning_comes_with_the_model_choice_before_any_upload(tmp_path: Path, open_app):
    app = open_app(tmp_path / "home", page=DOCUMENTS)
    assert not app.exception, app.exception
    (warning,) = _chinese_warnings(app)
    plain = warning.replace("\\", "")  # the page escapes Markdown
    assert plain == (
        "all-MiniLM-L6-v2 reads English only, and the model is fixed once the collection exists. If your "
        f"documents are Chinese (or mixed), pick {ADVICE} above before you create the collection."
    )
    app.selectbox(key="new_collection_model").set_value("BAAI/bge-small-zh-v1.5").run()
    assert not _chinese_warnings(app)  # a model that reads Chinese: nothing to say

    app.selectbox(key="new_collection_model").set_value("all-MiniLM-L6-v2").run()
    app.text_input(key="new_collection_name").input("handbook")
    app.button(key="create_collection").click().run()
    assert not app.exception, app.exception
    # the empty collection says it again above its upload box, now as "make another collection"
    below = [text.replace("\\", "") for text in _chinese_warnings(app)]
    assert (
        "all-MiniLM-L6-v2 reads English only (the model of handbook). If your documents are Chinese (or mixed), "
        f"create a collection with {ADVICE} (New collection, above) and upload them there."
    ) in below


def test_a_new_tab_opens_on_the_collection_last_used(demo_home_copy: Path, open_app):
    add_notes_collection(demo_home_copy)
    first = open_app(demo_home_copy)
    assert first.sidebar.selectbox(key="collection").value == "demo"  # the first by name, before any choice
    first.sidebar.selectbox(key="collection").set_value("notes").run()
    assert not first.exception, first.exception
    assert json.loads((demo_home_copy / "app_state.json").read_text(encoding="utf-8")) == {"last_collection": "notes"}

    second = open_app(demo_home_copy)  # a new browser tab: a new session
    assert not second.exception, second.exception
    assert second.sidebar.selectbox(key="collection").value == "notes"

    from workbench.service import Workbench

    Workbench(demo_home_copy).delete_collection("notes")  # a collection since deleted: the first again
    third = open_app(demo_home_copy)
    assert third.sidebar.selectbox(key="collection").value == "demo"


def test_the_sweep_tab_starts_on_the_golden_set_that_judges_the_collection(demo_home_copy: Path, open_app):
    add_notes_collection(demo_home_copy)
    # "another" judges one notes document and one elsewhere: it fits notes (half), and sorts first
    lines = [
        {"id": "a1", "query": "What do anemones do?", "relevant": [{"doc": "tide-pools.md"}]},
        {"id": "a2", "query": "Where is the harbour?", "relevant": [{"doc": "harbour.md"}]},
    ]
    (demo_home_copy / "golden_sets" / "another.jsonl").write_text(
        "\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8"
    )
    app = open_app(demo_home_copy, page="app_pages/evaluation.py")
    app.sidebar.selectbox(key="collection").set_value("notes").run()
    open_evaluation_tab(app, "Sweep").run()
    assert not app.exception, app.exception
    picker = app.selectbox(key="sweep_golden")
    assert list(picker.options) == ["another", "notes"]
    assert picker.value == "notes"  # all of its judged documents are in notes, not half


def test_each_document_on_the_map_has_its_own_colour_and_symbol(demo_home: Path, open_app):
    app = open_app(demo_home, page="app_pages/embedding_map.py")
    assert not app.exception, app.exception
    traces = json.loads(app.get_by_key("embedding_map_chart").proto.spec)["data"]
    markers = [(trace["marker"]["color"], trace["marker"]["symbol"]) for trace in traces]
    assert len(markers) == 44 and len(set(markers)) == 44  # the demo's 44 documents, none alike
    colours = {colour for colour, _ in markers}
    assert len(colours) == 24  # the whole palette, then again with the next symbol
    assert [symbol for _, symbol in markers].count("square") == 44 - 24


def test_the_judges_name_starts_judging_from_its_form_only(demo_home_copy: Path, open_app):
    from workbench.cli import main

    (demo_home_copy.parent / "q.txt").write_text("Autophagy declines in aged organisms.\n", encoding="utf-8")
    home = str(demo_home_copy)
    assert main(["golden", "queries", str(demo_home_copy.parent / "q.txt"), "--out", "one", "--home", home]) == 0
    assert (
        main(
            ["golden", "pool", "--queries", "one", "--configs", "retrieval.mode=bm25", "--depth", "1"]
            + [
                "--home",
                home,
            ]
        )
        == 0
    )
    app = open_app(demo_home_copy, page="app_pages/judging.py")
    app.text_input(key="judging_judge_input").set_value("Ada").run()  # typed, then focus left the box
    assert not any("Judging as" in text for text in _texts(app, "caption"))
    assert app.button(key="judging_start")  # still there: nothing started behind the user's back
    app.text_input(key="judging_judge_input").set_value("Ada")  # typed again: a form sends it with its button
    app.button(key="judging_start").click().run()  # the button, as Enter in the box does
    assert not app.exception, app.exception
    assert any("Judging as **Ada**" in text for text in _texts(app, "caption"))
    app.button(key="judging_change_judge").click().run()
    assert not any("Judging as" in text for text in _texts(app, "caption"))
    assert app.text_input(key="judging_judge_input").value == "Ada"
