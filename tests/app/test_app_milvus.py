"""The Retrieval lab on a collection that lives in Milvus Lite: A/B, every stage, explain; and a
collection whose Milvus is down says so while the other collections keep working."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from store.milvus import CONNECTIONS
from tests.app.conftest import open_lab_panels
from workbench.ingestion.ingest import Source
from workbench.service import Workbench
from workbench.ui.hit_explanation import PANEL_KEY as EXPLAIN_PANEL

PAGE = "app_pages/retrieval_lab.py"


def _texts(app, *kinds: str) -> list[str]:
    return [element.value.replace("\\", "") for kind in kinds for element in app.get(kind)]


@pytest.fixture
def milvus_demo(demo_home_copy: Path) -> Path:
    """The demo collection moved to Milvus Lite (a file in the home); nothing is re-embedded."""
    bench = Workbench(demo_home_copy)
    moved = bench.migrate_backend("demo", "milvus")
    assert moved.uri == "indexes/milvus.db"
    yield demo_home_copy
    CONNECTIONS.release()


def test_the_lab_runs_a_and_b_on_milvus_with_every_stage_and_explain(milvus_demo: Path, open_app):
    lab = open_lab_panels(open_app(milvus_demo, page=PAGE), EXPLAIN_PANEL)
    assert not lab.exception, lab.exception
    assert any("milvus (indexes/milvus.db)" in text for text in _texts(lab.sidebar, "caption"))
    lab.text_input(key="lab_query").set_value("How does reciprocal rank fusion combine rankings?").run()
    assert not lab.exception, lab.exception
    assert not _texts(lab, "error")
    for side in ("a", "b"):
        stages = [label.split(" · ")[0] for label in lab.segmented_control(key=f"lab_{side}_stage").options]
        assert stages == ["All stages", "dense", "bm25", "fusion"] + (["mmr"] if side == "b" else []) + ["final"]
    assert any("A vs B" in header for header in _texts(lab, "subheader"))
    markdown = _texts(lab, "markdown")
    assert any("**BM25**, scored by milvus: no term breakdown" in text for text in markdown)
    codes = _texts(lab, "code")
    assert any("query terms in this chunk (workbench tokenizer):" in code for code in codes)
    assert any(code.startswith("cos(q, c) =") for code in codes)  # Milvus hands the stored vector back
    assert any(code.startswith("RRF = ") for code in codes)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_collection_whose_milvus_is_down_names_it_and_the_others_keep_working(demo_home_copy: Path, open_app):
    down = f"http://127.0.0.1:{_free_port()}"
    bench = Workbench(demo_home_copy)
    config = bench.config_for(None, overrides=["index.backend=milvus", f"milvus.uri={down}", "milvus.timeout_s=2"])
    with pytest.raises(Exception, match="is unavailable"):
        bench.ingest("remote", [Source.from_markdown("note.md", "# Note\n\nA note about fusion.")], config)

    lab = open_app(demo_home_copy, page=PAGE)
    lab.sidebar.selectbox(key="collection").set_value("remote").run()
    lab.text_input(key="lab_query").set_value("fusion").run()
    assert not lab.exception, lab.exception
    errors = _texts(lab, "error")
    assert any(f"Milvus at {down} is unavailable" in text and "docker compose up -d" in text for text in errors)
    lab.sidebar.selectbox(key="collection").set_value("demo").run()
    assert not lab.exception, lab.exception
    assert not _texts(lab, "error")
    assert any("A vs B" in header for header in _texts(lab, "subheader"))
