"""An interrupted "Load the demo": the app keeps offering it, and loading again finishes it
without re-embedding anything; no page points at a button that is not there."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from store.catalog import Catalog

DOCUMENTS = 12


@pytest.fixture
def twelve_document_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    import workbench.demo

    folder = tmp_path / "demo"
    (folder / "documents").mkdir(parents=True)
    topics = [
        "glaciers",
        "volcanoes",
        "harbours",
        "orchards",
        "comets",
        "canyons",
        "lagoons",
        "prairies",
        "tundra",
        "reefs",
        "deltas",
        "fjords",
    ]
    for number, topic in enumerate(topics, start=1):
        (folder / "documents" / f"doc-{number:02d}.md").write_text(
            f"# {topic.title()}\n\nA short note about {topic}, number {number}.\n", encoding="utf-8"
        )
    golden = {"id": "q1", "query": "Which note is about fjords?", "relevant": [{"doc": "doc-12.md"}]}
    (folder / "golden.jsonl").write_text(json.dumps(golden) + "\n")
    monkeypatch.setattr(workbench.demo, "DEMO_DIR", folder)
    return folder


def plain(markdown: str) -> str:
    """Markdown as the reader sees it: backslash escapes removed."""
    return re.sub(r"\\(.)", r"\1", markdown)


def _catalog(home: Path, sql: str) -> list[tuple]:
    # through the store, as the app does: the app holds the file open in this process between its
    # runs, and DuckDB refuses a second opening of it with other settings (read-only, say)
    with Catalog.in_home(home).connect() as con:
        return con.execute(sql).fetchall()


def _buttons(app) -> dict[str, str]:
    return {button.key: button.label for button in [*app.button, *app.sidebar.button]}


def _mentions_loading_the_demo(app) -> list[str]:
    values = [element.value for kind in ("markdown", "info", "warning", "caption") for element in app.get(kind)]
    values += [
        element.value for kind in ("markdown", "info", "warning", "caption") for element in app.sidebar.get(kind)
    ]
    return [value for value in values if "load the demo" in value.lower() or "loading it again" in value.lower()]


def test_an_interrupted_demo_load_is_offered_again_and_finishes_without_reembedding(
    twelve_document_demo: Path, tmp_path: Path, open_app, monkeypatch: pytest.MonkeyPatch
):
    from streamlit.runtime.scriptrunner_utils.exceptions import StopException

    import workbench.ingestion.stream as stream_module
    from workbench.ui.ingest_progress import IngestProgressView

    home = tmp_path / "home"
    monkeypatch.setattr(stream_module, "EMBED_GROUP", 3)  # embed and commit three documents at a time
    draw = IngestProgressView.__call__
    embedded_groups = []

    def closes_the_tab_after_two_groups(self, event):
        draw(self, event)
        if event.stage == "embed" and event.source.startswith(tuple(f"{n}/{n} " for n in range(1, 100))):
            embedded_groups.append(event.source)
            if len(embedded_groups) == 2:
                # what Streamlit raises in the script thread when the browser tab goes away
                raise StopException()

    monkeypatch.setattr(IngestProgressView, "__call__", closes_the_tab_after_two_groups)
    app = open_app(home)
    app.button(key="welcome_load_demo").click().run()
    assert not app.exception, app.exception
    committed = _catalog(home, "SELECT count(*) FROM documents WHERE status = 'success'")[0][0]
    assert committed == 3, "the first group is committed, the second was in flight"
    cached_before = _catalog(home, "SELECT count(*) FROM embeddings")[0][0]
    assert cached_before == 6, "both groups' vectors reached the cache before the stop"
    assert _catalog(home, "SELECT status FROM ingestion_runs")[0][0] == "cancelled"

    # the user comes back: a new session on the same home
    monkeypatch.setattr(IngestProgressView, "__call__", draw)
    app = open_app(home)
    assert not app.exception
    buttons = _buttons(app)
    assert buttons.get("welcome_load_demo") == "Load the demo"
    assert buttons.get("sidebar_load_demo") == "Load the demo"
    assert any(f"demo: 3 of {DOCUMENTS} documents" in plain(element.value) for element in app.warning)
    assert any("after 3 of its 12 files" in plain(element.value) for element in app.sidebar.caption)

    for page in ("app_pages/tour.py", "app_pages/retrieval_lab.py", "app_pages/documents.py"):
        app.switch_page(page).run()
        assert not app.exception, (page, app.exception)
        if _mentions_loading_the_demo(app):  # every hint about loading the demo has its button
            assert "Load the demo" in _buttons(app).values(), page
    app.switch_page("app_pages/tour.py").run()
    assert _buttons(app).get("tour_load_demo") == "Load the demo"
    assert any(f"demo: 3 of {DOCUMENTS} documents" in plain(element.value) for element in app.info)

    app.switch_page("app_pages/welcome.py").run()
    app.button(key="welcome_load_demo").click().run()
    assert not app.exception, app.exception
    assert _catalog(home, "SELECT count(*) FROM documents WHERE status = 'success'")[0][0] == DOCUMENTS
    distinct_texts = _catalog(home, "SELECT count(DISTINCT content_hash) FROM chunks")[0][0]
    ((status, skipped, embedded),) = _catalog(
        home, "SELECT status, skipped, chunks_embedded FROM ingestion_runs ORDER BY id DESC LIMIT 1"
    )
    assert status == "finished" and skipped == 3
    assert embedded == distinct_texts - cached_before == 6, "only the texts the cache lacked were embedded"
    # complete now: the offer is gone, and the tour runs
    assert "welcome_load_demo" not in _buttons(app) and "sidebar_load_demo" not in _buttons(app)
    app.switch_page("app_pages/tour.py").run()
    assert not app.exception and "tour_load_demo" not in _buttons(app)
