"""The Documents page under AppTest: table, preview, chunk browser, uploads, collections."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from workbench.service import Workbench

PAGE = "app_pages/documents.py"
PROJECT_DIR = Path(__file__).resolve().parents[2]


def plain(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", re.sub(r"(?<!\\)\*\*", "", markdown))


def texts(app, *kinds: str) -> list[str]:
    return [plain(element.value) for kind in kinds for element in app.get(kind)]


def document_table(app):
    """The document table (the page also shows upload reports and chunk tables)."""
    return next(frame.value for frame in app.dataframe if "ingested at" in frame.value.columns)


def test_the_demo_table_preview_and_chunk_browser(demo_home: Path, open_app):
    app = open_app(demo_home, page=PAGE)
    assert not app.exception, app.exception
    table = document_table(app)
    assert list(table.columns) == [
        "name",
        "type",
        "size (KB)",
        "chunks",
        "over the window",
        "images",
        "status",
        "ingested at",
        "reason",
    ]
    assert len(table) == 44 and set(table["status"]) == {"success"}
    assert set(table["over the window"]) == {0}  # the default chunking fits the model's window
    assert not [text for text in texts(app, "warning") if "window" in text]
    assert set(table["type"]) == {"md", "pdf", "docx"}

    overview = Workbench(demo_home).document("rag-pipeline-overview.md", "demo")
    app.selectbox(key="documents_inspect").set_value(overview.id).run()
    markdown = app.code[0].value
    source = (PROJECT_DIR / "demo" / "documents" / "rag-pipeline-overview.md").read_text()
    assert markdown.strip() == source.strip()  # Markdown files are stored as written
    assert len(app.dataframe) == 1  # the Chunks tab is drawn when it is picked
    app.session_state["documents_detail_tab"] = "Chunks"
    app.run()
    chunks = app.dataframe[1].value
    assert len(chunks) == overview.chunk_count >= 3
    assert list(chunks["#"]) == list(range(1, overview.chunk_count + 1))
    # the chunk browser shows exactly the stored span of the canonical Markdown
    app.number_input(key=f"chunk_number_{overview.id}").set_value(3).run()
    start, end = int(chunks["start"][2]), int(chunks["end"][2])
    assert app.code[0].value == markdown[start:end]
    assert any(f"Chunk 3: characters {start}–{end}" in text for text in texts(app, "caption"))


def test_a_bad_upload_lists_each_failure_and_ingests_the_rest(demo_home_copy: Path, open_app):
    app = open_app(demo_home_copy, page=PAGE)
    app.file_uploader[0].set_value(
        [
            ("field-notes.md", b"# Field notes\n\nThe canopy was full of birds at dawn.\n", "text/markdown"),
            ("broken.pdf", b"%PDF-1.7\nthis is not really a PDF body", "application/pdf"),
            ("empty.txt", b"", "text/plain"),
        ]
    ).run()
    app.button(key="ingest_uploads").click().run()
    assert not app.exception, app.exception

    errors = texts(app, "error")
    assert (
        "broken.pdf was not ingested: not a valid PDF (file is corrupt or truncated); re-export it "
        "and upload it again" in errors
    )
    assert "empty.txt was not ingested: empty file (0 bytes); check the original and upload it again" in errors
    report = app.dataframe[0].value
    assert dict(zip(report["file"], report["outcome"], strict=False)) == {
        "field-notes.md": "ingested",
        "broken.pdf": "failed",
        "empty.txt": "failed",
    }
    documents = document_table(app)
    assert len(documents) == 47  # the demo's 44, the new note and a row per failed file with its reason
    statuses = dict(zip(documents["name"], documents["status"], strict=False))
    assert statuses["field-notes.md"] == "success" and statuses["broken.pdf"] == "failed"
    assert any(text.startswith("45 documents") for text in texts(app.sidebar, "caption"))
    assert not app.file_uploader[0].value  # a fresh uploader for the next batch

    # a failed entry can be deleted like any document
    failed = Workbench(demo_home_copy).document("broken.pdf", "demo")
    app.selectbox(key="documents_inspect").set_value(failed.id).run()
    assert any(text.startswith("broken.pdf failed to ingest: not a valid PDF") for text in texts(app, "error"))
    app.button(key="delete_document").click().run()
    assert not app.exception, app.exception
    assert "Deleted broken.pdf from demo." in texts(app, "success")
    assert "broken.pdf" not in set(document_table(app)["name"])
    assert len(document_table(app)) == 46


def test_create_a_collection_then_delete_it(tmp_path: Path, open_app):
    app = open_app(tmp_path / "home", page=PAGE)
    app.button(key="create_collection").click().run()
    assert any("collection name '' is not valid" in text for text in texts(app, "error"))

    app.text_input(key="new_collection_name").input("field_notes")  # a form: sent with its button
    app.button(key="create_collection").click().run()
    assert not app.exception, app.exception
    assert app.session_state["collection"] == "field_notes"
    assert "Created collection field_notes and selected it in the sidebar. Upload files below." in texts(app, "success")
    assert any("No documents yet" in text for text in texts(app, "info"))

    app.checkbox(key="confirm_delete_field_notes").check().run()
    app.button(key="delete_collection").click().run()
    assert not app.exception, app.exception
    assert "Deleted collection field_notes." in texts(app, "success")
    assert Workbench(tmp_path / "home").collection_names() == []
    assert any("No collection yet" in text for text in texts(app, "info"))
    assert app.sidebar.button(key="sidebar_load_demo")  # the empty home offers the demo again


def test_a_new_collection_beside_the_demo_is_selected_and_the_page_says_so(demo_home_copy: Path, open_app):
    app = open_app(demo_home_copy, page=PAGE)
    assert app.sidebar.selectbox(key="collection").value == "demo"
    app.text_input(key="new_collection_name").input("notes")  # a form: sent with its button
    app.button(key="create_collection").click().run()
    assert not app.exception, app.exception
    assert app.sidebar.selectbox(key="collection").value == "notes"
    assert "Created collection notes and selected it in the sidebar. Upload files below." in texts(app, "success")
    assert any("notes" in text for text in texts(app, "subheader"))


def test_a_second_click_while_the_first_still_creates_reports_the_creation(demo_home_copy: Path, open_app):
    # the first click's run wrote the collection and was cut short by the second click's rerun
    Workbench(demo_home_copy).create_collection("notes")
    app = open_app(demo_home_copy, page=PAGE)
    app.session_state["_documents_creating_collection"] = "notes"
    app.text_input(key="new_collection_name").input("notes")  # a form: sent with its button
    app.button(key="create_collection").click().run()
    assert not app.exception, app.exception
    assert not [text for text in texts(app, "error") if "already exists" in text]
    assert app.sidebar.selectbox(key="collection").value == "notes"
    assert "Created collection notes and selected it in the sidebar. Upload files below." in texts(app, "success")
    # without a creation in flight, the same name with the same settings (made by another tab or a
    # command, say) is joined and selected, and says so
    app.text_input(key="new_collection_name").input("notes")  # a form: sent with its button
    app.button(key="create_collection").click().run()
    assert not texts(app, "error")
    assert app.sidebar.selectbox(key="collection").value == "notes"
    assert (
        "Collection notes already exists with these settings (made elsewhere, another tab or a command, "
        "perhaps moments ago); selected it in the sidebar. Uploads below add to it."
    ) in texts(app, "success")


def test_deleting_needs_the_confirmation(demo_home: Path, open_app):
    app = open_app(demo_home, page=PAGE)
    assert app.button(key="delete_collection").disabled


def test_a_model_that_is_not_downloaded_cannot_create_a_collection(tmp_path: Path, open_app, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    app = open_app(tmp_path / "home", page=PAGE)
    picker = app.selectbox(key="new_collection_model")
    assert picker.value == "all-MiniLM-L6-v2"
    labels = list(picker.options)  # AppTest holds the formatted labels
    assert "all-MiniLM-L6-v2 — en · 91 MB · bundled" in labels
    assert "BAAI/bge-small-zh-v1.5 — zh · 96 MB · not downloaded" in labels
    picker.set_value("BAAI/bge-small-zh-v1.5").run()
    app.text_input(key="new_collection_name").input("chinese")  # a form: sent with its button
    app.button(key="create_collection").click().run()
    assert not app.exception, app.exception
    expected = (
        "embedding model 'BAAI/bge-small-zh-v1.5' is not available offline: it must be downloaded once "
        f"while online (about 96 MB). It will be cached in {tmp_path / 'hub'}. Download it with: "
        "python -m workbench models download BAAI/bge-small-zh-v1.5"
    )
    assert expected in texts(app, "error")
    assert Workbench(tmp_path / "home").collection_names() == []


def test_a_local_model_folder_can_be_typed_in(tmp_path: Path, open_app, tiny_chinese_model_dir: Path):
    app = open_app(tmp_path / "home", page=PAGE)
    app.selectbox(key="new_collection_model").set_value("__other__").run()
    app.text_input(key="new_collection_model_other").input(str(tiny_chinese_model_dir)).run()
    app.text_input(key="new_collection_name").input("local")  # a form: sent with its button
    app.button(key="create_collection").click().run()
    assert not app.exception, app.exception
    (info,) = Workbench(tmp_path / "home").collections()
    assert info.embedding_model == str(tiny_chinese_model_dir)


def test_a_chinese_collection_warns_that_the_english_model_cannot_read_it(tmp_path: Path, open_app):
    from workbench.ingestion.ingest import Source

    home = tmp_path / "home"
    notes = {
        f"笔记{n}.md": f"# 第{n}篇笔记\n\n检索增强生成先检索相关段落，再让模型根据这些段落回答问题。第{n}篇。\n"
        for n in range(3)
    }
    report = Workbench(home).ingest("zh", [Source.from_markdown(name, text) for name, text in notes.items()])
    assert not report.failures
    app = open_app(home, page=PAGE)
    assert not app.exception, app.exception
    (warning,) = [text for text in texts(app, "warning") if "does not cover" in text]
    assert "all-MiniLM-L6-v2 does not cover (it covers en)" in warning
    assert (
        "Models that cover zh: paraphrase-multilingual-MiniLM-L12-v2 (50+ languages, 471 MB download), "
        "BAAI/bge-small-zh-v1.5 (Chinese, 96 MB download)"
    ) in warning


def test_an_english_collection_shows_its_language_mix(demo_home: Path, open_app):
    app = open_app(demo_home, page=PAGE)
    captions = texts(app, "caption")
    assert any(text.startswith("Language mix: Latin (en) 100%") and "covers en" in text for text in captions), captions


def test_the_runtime_table_shows_each_runtimes_speed_and_scifact_cost(tmp_path: Path, open_app, monkeypatch):
    import json

    from workbench.embedding import calibration
    from workbench.embedding.quality import record_quality
    from workbench.embedding.runtime_report import MEASURE_COMMAND

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv(calibration.CALIBRATION_DIR_ENV, str(tmp_path / "machine"))
    app = open_app(home, page=PAGE)
    assert not app.exception, app.exception
    assert not any("Not measured on this machine yet" in text for text in texts(app, "caption"))  # folded
    app.session_state["documents_runtimes_open"] = True
    app.run()
    assert any("Not measured on this machine yet" in text for text in texts(app, "caption"))

    record = {
        "chosen": "openvino-bf16",
        "sample_texts": 40,
        "seconds": 4.2,
        "export_seconds": 11.5,
        "runtimes": {
            "torch-fp32": {"texts_per_s": 25.0, "query_ms_p50": 20.0, "min_cosine": 1.0},
            "openvino-bf16": {"texts_per_s": 50.0, "query_ms_p50": 8.0, "min_cosine": 0.99997, "export_s": 6.5},
            "onnx-int8": {"error": "embedding.runtime=onnx needs the 'onnxruntime' package"},
        },
    }
    (home / calibration.CALIBRATION_FILE).write_text(json.dumps({calibration.machine_id(): {"m": record}}))
    app.run()
    table = next(frame.value for frame in app.dataframe if "auto picks" in frame.value.columns)
    rows = {row["runtime"]: row for row in table.to_dict("records")}
    assert rows["openvino-bf16"]["texts/s"] == 50.0 and rows["openvino-bf16"]["vs torch fp32"] == 2.0
    assert rows["openvino-bf16"]["auto picks"] == "✓" and rows["openvino-bf16"]["export s"] == 6.5
    assert rows["openvino-bf16"]["SciFact nDCG@10 dense (Δ fp32)"] == "not measured"
    assert rows["onnx-int8"]["unavailable"] == "embedding.runtime=onnx needs the 'onnxruntime' package"
    assert any(f"{MEASURE_COMMAND} --record-in {home}" in text for text in texts(app, "caption"))

    record_quality(
        home,
        "m",
        "torch-fp32",
        {"ndcg@10": {"dense": 0.6730, "hybrid": 0.7188}, "vs_torch_fp32": {"dense": 0.0, "hybrid": 0.0}},
    )
    record_quality(
        home,
        "m",
        "openvino-bf16",
        {"ndcg@10": {"dense": 0.6725, "hybrid": 0.7190}, "vs_torch_fp32": {"dense": -0.0005, "hybrid": 0.0002}},
    )
    app.run()
    table = next(frame.value for frame in app.dataframe if "auto picks" in frame.value.columns)
    rows = {row["runtime"]: row for row in table.to_dict("records")}
    assert rows["openvino-bf16"]["SciFact nDCG@10 dense (Δ fp32)"] == "0.6725 (-0.0005)"
    assert rows["openvino-bf16"]["SciFact nDCG@10 hybrid (Δ fp32)"] == "0.7190 (+0.0002)"
    assert not any(MEASURE_COMMAND in text for text in texts(app, "caption"))


def test_chunks_over_the_window_are_counted_per_document_and_by_how_much(tmp_path: Path, open_app):
    from workbench.config import WorkbenchConfig
    from workbench.ingestion.ingest import Source

    home = tmp_path / "home"
    long_note = "# 长笔记\n\n" + "检索增强生成先检索相关段落，再让模型根据这些段落回答问题。" * 20  # 580 characters
    notes = {"长笔记.md": long_note, "短笔记.md": "# 短笔记\n\n分块要让模型读完整。\n"}
    unfitted = WorkbenchConfig().with_overrides(["chunking.fit_window=false", "chunking.size=2000"])
    bench = Workbench(home)
    assert not bench.ingest("zh", [Source.from_markdown(n, t) for n, t in notes.items()], unfitted).failures
    (row,) = bench.chunks_of(bench.document("长笔记.md", "zh").id, bench.config_for("zh"))
    excess = row[9] - 256  # one chunk of about 590 tokens (a token a character)
    assert excess > 300
    app = open_app(home, page=PAGE)
    assert not app.exception, app.exception
    (warning,) = [text for text in texts(app, "warning") if "window" in text]
    assert f"1 of 2 chunks is longer than all-MiniLM-L6-v2's 256-token window, by {excess} tokens" in warning
    assert "chunking.fit_window is off for this preset" in warning
    table = document_table(app)
    assert dict(zip(table["name"], table["over the window"], strict=True)) == {"短笔记.md": 0, "长笔记.md": 1}


def test_a_chinese_document_among_english_ones_is_named_and_no_zero_share_is_listed(tmp_path: Path, open_app):
    from workbench.ingestion.ingest import Source

    home = tmp_path / "home"
    english = {
        f"note-{n}.md": f"# Note {n}\n\nRetrieval augmented generation retrieves passages, then answers from them. "
        f"The μ of a fusion weight is a Greek letter in a formula, not a language. Note {n}.\n"
        for n in range(3)
    }
    chinese = {"笔记.md": "# 笔记\n\n检索增强生成先检索相关段落，再让模型根据这些段落回答问题。\n"}
    sources = [Source.from_markdown(name, text) for name, text in {**english, **chinese}.items()]
    assert not Workbench(home).ingest("mixed", sources).failures
    app = open_app(home, page=PAGE)
    assert not app.exception, app.exception
    (warning,) = [text for text in texts(app, "warning") if "笔记.md" in text]
    assert "1 document is in a language all-MiniLM-L6-v2 does not cover" in warning
    assert "笔记.md (Han (zh) 100%)" in warning
    (mix,) = [text for text in texts(app, "caption") if text.startswith("Language mix:")]
    assert "0%" not in mix, mix
    # the document's own view says it too
    app.selectbox(key="documents_inspect").set_value(Workbench(home).document("笔记.md", "mixed").id).run()
    assert any(text.startswith("笔记.md is in zh") for text in texts(app, "warning"))


def test_pictures_skipped_for_time_are_read_by_the_button_and_only_their_document_again(
    tmp_path: Path, open_app, fake_embedder, fake_config
):
    from tests.workbench.ingestion.parsers.pdf.test_pdf_image_text import ENGLISH, LARGE, around, picture_page
    from workbench.ingestion.ingest import Source
    from workbench.ingestion.parsers.images import ocr_languages

    if ocr_languages("eng+chi_sim") != "eng+chi_sim":
        pytest.skip("tesseract-ocr with eng and chi_sim data is not installed (.ci/run installs it)")
    home = tmp_path / "home"
    figure = picture_page(around("Before the figure.", "Figure 1.", "After the figure."), [(ENGLISH, LARGE)])
    sources = [Source(name="figure.pdf", data=figure), Source(name="notes.md", data=b"# Notes\n\nNo pictures.\n")]
    Workbench(home).ingest("figs", sources, fake_config.with_overrides(["ingest.ocr_budget_s=0.1"]))
    app = open_app(home, page=PAGE)
    assert not app.exception, app.exception
    images = dict(zip(document_table(app)["name"], document_table(app)["images"], strict=False))
    assert images == {"figure.pdf": "0 read by OCR, 1 skipped", "notes.md": ""}
    assert app.button(key="retry_ocr").label == "Read 1 picture skipped by OCR"
    app.button(key="retry_ocr").click().run()
    assert not app.exception, app.exception
    (said,) = [text for text in texts(app, "info") if text.startswith("OCR of skipped pictures")]
    assert said.startswith("OCR of skipped pictures: 1 of 1 picture read now, in 1 document parsed again")
    images = dict(zip(document_table(app)["name"], document_table(app)["images"], strict=False))
    assert images == {"figure.pdf": "1 read by OCR, 0 skipped", "notes.md": ""}
    assert not [button for button in app.button if button.key == "retry_ocr"]  # nothing left to read
