"""The app shell under AppTest: the empty home, every page's empty state, loading the demo."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

EMPTY_STATES = {
    "app_pages/documents.py": "No collection yet. Create one above",
    "app_pages/chunking_lab.py": "there is nothing to chunk",
    "app_pages/embedding_map.py": "there is nothing to map",
    "app_pages/presets_mcp.py": "there is nothing to configure",
    "app_pages/tour.py": "The tour runs on the bundled demo, which is not loaded",
}


def plain(markdown: str) -> str:
    """Markdown as the reader sees it: bold markers and backslash escapes removed."""
    return re.sub(r"\\(.)", r"\1", re.sub(r"(?<!\\)\*\*", "", markdown))


def texts(app, *kinds: str) -> list[str]:
    return [plain(element.value) for kind in kinds for element in app.get(kind)]


def test_an_empty_home_offers_the_demo_and_shows_the_home(tmp_path: Path, open_app):
    home = tmp_path / "home"
    app = open_app(home)
    assert not app.exception
    assert app.sidebar.button(key="sidebar_load_demo").label == "Load the demo"
    assert [code.value for code in app.sidebar.code] == [str(home.resolve())]
    assert not app.sidebar.selectbox  # no collection or preset picker without collections
    # the welcome page is the default while there is nothing to search
    assert [title.value for title in app.title] == ["RAG Workbench"]
    assert any("This home is empty" in text for text in texts(app, "markdown"))
    assert app.button(key="welcome_load_demo").label == "Load the demo"


def test_with_a_collection_the_root_opens_the_retrieval_lab(demo_home: Path, open_app):
    app = open_app(demo_home)
    assert not app.exception, app.exception
    assert [title.value for title in app.title] == ["Retrieval lab"]
    assert app.sidebar.selectbox(key="collection").value == "demo"


@pytest.mark.parametrize("page", sorted(EMPTY_STATES))
def test_every_page_says_what_to_do_on_an_empty_home(page: str, tmp_path: Path, open_app):
    app = open_app(tmp_path / "home", page=page)
    assert not app.exception, app.exception
    assert not app.error
    assert any(EMPTY_STATES[page] in text for text in texts(app, "info")), texts(app, "info")


@pytest.fixture
def tiny_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A two-document demo folder in the bundled demo's layout, installed as the app's demo."""
    import workbench.demo

    folder = tmp_path / "tiny-demo"
    (folder / "documents").mkdir(parents=True)
    (folder / "documents" / "alpha.md").write_text("# Alpha\n\nAlpha particles are helium nuclei.\n")
    (folder / "documents" / "beta.md").write_text("# Beta\n\nBeta decay emits an electron.\n")
    golden = {"id": "q1", "query": "What is an alpha particle?", "relevant": [{"doc": "alpha.md"}]}
    (folder / "golden.jsonl").write_text(json.dumps(golden) + "\n")
    monkeypatch.setattr(workbench.demo, "DEMO_DIR", folder)
    return folder


def test_the_demo_button_loads_the_demo_and_selects_it(tiny_demo: Path, tmp_path: Path, open_app):
    home = tmp_path / "home"
    app = open_app(home)
    app.sidebar.button(key="sidebar_load_demo").click().run()
    assert not app.exception, app.exception
    assert app.session_state["collection"] == "demo"
    assert app.sidebar.selectbox(key="collection").value == "demo"
    assert any(text.startswith("2 documents · 2 chunks") for text in texts(app.sidebar, "caption"))
    assert any(
        "Loaded the demo: 2 documents in collection demo and the golden set demo (1 query)" in text
        for text in texts(app, "success")
    )
    installed = json.loads((home / "golden_sets" / "demo.jsonl").read_text())
    assert installed["query"] == "What is an alpha particle?"


def test_a_broken_demo_folder_names_the_fix(tmp_path: Path, open_app, monkeypatch: pytest.MonkeyPatch):
    import workbench.demo

    monkeypatch.setattr(workbench.demo, "DEMO_DIR", tmp_path / "missing-demo")
    app = open_app(tmp_path / "home")
    app.sidebar.button(key="sidebar_load_demo").click().run()
    assert not app.exception
    assert any("regenerate them with: python demo/make_documents.py" in text for text in texts(app, "error"))
