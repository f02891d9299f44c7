"""The Chunking lab under AppTest: side-by-side chunkings, errors, applying one to the collection."""

from __future__ import annotations

import re
from pathlib import Path

from store.embedding_cache import cached_hashes
from workbench.chunking.preparation import prepare_chunks
from workbench.config import ChunkingConfig
from workbench.embedding import get_embedder
from workbench.service import Workbench
from workbench.ui.chunk_bands import bands_html

PAGE = "app_pages/chunking_lab.py"
DOCUMENT = "rag-pipeline-overview.md"


def plain(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", re.sub(r"(?<!\\)\*\*", "", markdown))


def metrics(app) -> list[tuple[str, str]]:
    return [(metric.label, metric.value) for metric in app.metric]


def test_side_a_draws_the_collection_chunking_exactly_as_stored(demo_home: Path, open_app):
    bench = Workbench(demo_home)
    document = bench.document(DOCUMENT, "demo")
    app = open_app(demo_home, page=PAGE)
    app.selectbox(key="chunk_lab_document").set_value(document.id).run()
    assert not app.exception, app.exception

    stored = bench.chunks_of(document.id, bench.config_for("demo"))
    markdown, _ = bench.markdown(document.id)
    side_a, side_b = app.get("html")
    # A is the collection's own chunking: the bands are the stored chunks, span for span
    assert side_a.proto.body == bands_html(markdown, [(row[3], row[4]) for row in stored])
    assert metrics(app)[0] == ("Chunks", str(len(stored)))
    # B starts as fixed windows of 200 model tokens with 40 of overlap
    assert app.selectbox(key="chunk_lab_B.strategy").value == "fixed"
    assert app.radio(key="chunk_lab_B.unit").value == "tokens"
    assert "repeated in overlaps" in app.caption[1].value
    assert {chart.key for chart in app.get("plotly_chart")} == {"chunk_lab_hist_A", "chunk_lab_hist_B"}
    assert side_b.proto.body != side_a.proto.body


def test_settings_no_splitter_can_honour_name_the_key(demo_home: Path, open_app):
    app = open_app(demo_home, page=PAGE)
    app.number_input(key="chunk_lab_A.overlap").set_value(1500).run()
    assert not app.exception
    assert [plain(error.value) for error in app.error] == [
        "chunking.overlap must be at least 0 and below chunking.size (1000), got 1500"
    ]
    assert len(app.get("html")) == 1  # side B still renders


def test_chunks_over_the_window_are_counted_and_the_checkbox_cuts_them(demo_home: Path, open_app):
    bench = Workbench(demo_home)
    document = bench.document(DOCUMENT, "demo")
    app = open_app(demo_home, page=PAGE)
    app.selectbox(key="chunk_lab_document").set_value(document.id).run()
    app.number_input(key="chunk_lab_A.size").set_value(5000).run()
    app.checkbox(key="chunk_lab_A.fit_window").uncheck().run()
    assert not app.exception, app.exception
    markdown, _ = bench.markdown(document.id)
    embedder = get_embedder("all-MiniLM-L6-v2")
    unfitted = ChunkingConfig(size=5000, fit_window=False)
    counts = [chunk.token_count for chunk in prepare_chunks(markdown, [], unfitted, embedder)]
    over = [count - 256 for count in counts if count > 256]
    assert over  # the whole overview in one chunk of 5000 characters is past 256 tokens
    assert ("Over the model's window", str(len(over))) in metrics(app)
    (warning,) = [plain(w.value) for w in app.warning if "window" in w.value]
    assert f"longer than all-MiniLM-L6-v2's 256-token window, by {max(over)} tokens" in warning
    assert "(chunking.fit_window) to cut them to fit" in warning
    app.checkbox(key="chunk_lab_A.fit_window").check().run()
    assert ("Over the model's window", "0") in metrics(app)
    assert not [w for w in app.warning if "window" in w.value]


def test_applying_a_chunking_embeds_only_new_texts_and_selects_its_preset(demo_home_copy: Path, open_app):
    bench = Workbench(demo_home_copy)
    chunking = ChunkingConfig(strategy="markdown", size=1000, overlap=100, unit="chars")
    # what should be embedded: the distinct indexed texts of the new chunking not yet in the cache
    embedder = get_embedder("all-MiniLM-L6-v2")
    texts = set()
    for document in bench.documents("demo"):
        markdown, pages = bench.markdown(document.id)
        texts.update(chunk.content_hash for chunk in prepare_chunks(markdown, pages, chunking, embedder))
    expected_new = len(texts - cached_hashes(bench.catalog, embedder.name, sorted(texts)))

    app = open_app(demo_home_copy, page=PAGE)
    app.selectbox(key="chunk_lab_B.strategy").set_value("markdown")
    app.radio(key="chunk_lab_B.unit").set_value("chars")
    app.number_input(key="chunk_lab_B.size").set_value(1000)
    app.number_input(key="chunk_lab_B.overlap").set_value(100).run()
    assert app.text_input(key="chunk_lab_B_preset_markdown-1000c-100").value == "markdown-1000c-100"
    app.button(key="chunk_lab_apply_B").click().run()
    assert not app.exception, app.exception

    assert [plain(s.value) for s in app.success] == [
        f"Applied the chunking to demo: embedded {expected_new} new chunk texts. Preset markdown-1000c-100 is "
        "selected and is now the collection's default."
    ]
    assert app.session_state["preset"] == "markdown-1000c-100"
    assert bench.preset_overrides("markdown-1000c-100") == {"chunking.strategy": "markdown"}
    assert bench.collections()[0].default_preset == "markdown-1000c-100"
    # the new chunk set exists for every document: a query under the preset needs no more building
    config = bench.config_for("demo")
    assert config.chunking.strategy == "markdown"
    assert all(bench.chunks_of(doc.id, config) for doc in bench.documents("demo"))
