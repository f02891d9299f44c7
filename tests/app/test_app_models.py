"""The Models page and the download offers, under AppTest, against a local Hub mirror (tests/fake_hub.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import save_tiny_sentence_model
from tests.fake_hub import FakeHub

PAGE = "app_pages/models.py"
EMBED = "tiny/embed-model"


def plain(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", re.sub(r"(?<!\\)\*\*", "", markdown))


def texts(app, *kinds: str) -> list[str]:
    return [plain(str(element.value)) for kind in kinds for element in app.get(kind)]


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    fake = FakeHub().start()
    fake.add_folder(EMBED, save_tiny_sentence_model(tmp_path_factory.mktemp("hub") / "tiny-embed", ("zh", "en")))
    yield fake
    fake.stop()


@pytest.fixture
def cache(hub, tmp_path, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub-cache"))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub-cache"))
    return tmp_path / "hub-cache"


def test_the_catalogue_with_sizes_status_and_where_it_is_cached(tmp_path: Path, open_app, cache):
    app = open_app(tmp_path / "home", page=PAGE)
    assert not app.exception, app.exception
    embedding, rerank = [frame.value for frame in app.dataframe][:2]
    by_name = dict(zip(embedding["model"], embedding["status"], strict=False))
    assert by_name["all-MiniLM-L6-v2"] == "bundled"
    bundled = embedding[embedding["model"] == "all-MiniLM-L6-v2"].iloc[0]
    assert bundled["on disk"].endswith(" MB") and float(bundled["on disk"].split()[0]) > 50  # the package's files
    assert by_name["BAAI/bge-small-zh-v1.5"] == "not downloaded"
    row = embedding[embedding["model"] == "BAAI/bge-small-zh-v1.5"].iloc[0]
    assert row["download"] == "96 MB" and row["cached in"] == str(cache / "models--BAAI--bge-small-zh-v1.5")
    assert "cross-encoder/ms-marco-MiniLM-L-6-v2" in set(rerank["model"])
    assert app.button(key="download_baai_bge_small_zh_v1_5").label == "Download BAAI/bge-small-zh-v1.5 (96 MB)"


def test_download_by_id_then_pick_it_for_a_collection_then_remove_it(tmp_path: Path, open_app, cache, hub):
    app = open_app(tmp_path / "home", page=PAGE)
    app.text_input(key="models_other_id").input(EMBED).run()
    app.button(key="models_other_download_tiny_embed_model").click().run()
    assert not app.exception, app.exception
    assert any(f"Downloaded and verified {EMBED}" in text for text in texts(app, "success"))
    embedding = app.dataframe[0].value
    row = embedding[embedding["model"] == EMBED].iloc[0]
    assert row["status"] == "downloaded" and row["languages"] == "zh, en"

    # the new-collection picker lists it now
    app.switch_page("app_pages/documents.py").run()
    picker = app.selectbox(key="new_collection_model")
    assert any(option.startswith(f"{EMBED} — zh, en · downloaded") for option in picker.options)
    picker.set_value(EMBED).run()
    app.text_input(key="new_collection_name").input("tiny")  # a form: sent with its button
    app.button(key="create_collection").click().run()
    assert not app.exception, app.exception
    assert app.session_state["collection"] == "tiny"

    app.switch_page(PAGE).run()
    app.button(key="remove_tiny_embed_model").click().run()
    assert not app.exception, app.exception
    # nothing is deleted on the first click: the page asks, naming what uses the model
    assert (cache / "models--tiny--embed-model").exists()
    (question,) = [text for text in texts(app, "warning") if text.startswith(f"Remove {EMBED}?")]
    assert "Collection tiny uses it and cannot embed queries until it is downloaded again" in question
    app.button(key="remove_cancel_tiny_embed_model").click().run()
    assert (cache / "models--tiny--embed-model").exists()
    assert not [text for text in texts(app, "warning") if text.startswith(f"Remove {EMBED}?")]
    app.button(key="remove_tiny_embed_model").click().run()
    app.button(key="remove_confirm_tiny_embed_model").click().run()
    assert not app.exception, app.exception
    assert any(f"Removed {EMBED}" in text for text in texts(app, "success"))
    assert not (cache / "models--tiny--embed-model").exists()


def test_a_missing_model_in_a_picker_offers_its_download_and_a_failure_is_clear(
    tmp_path: Path, open_app, cache, monkeypatch
):
    app = open_app(tmp_path / "home", page="app_pages/documents.py")
    app.selectbox(key="new_collection_model").set_value("BAAI/bge-small-zh-v1.5").run()
    offer = app.button(key="new_collection_model_download_baai_bge_small_zh_v1_5")
    assert offer.label == "Download BAAI/bge-small-zh-v1.5 (96 MB)"
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # the network is down
    offer.click().run()
    assert not app.exception, app.exception
    (error,) = [text for text in texts(app, "error") if "could not reach" in text]
    assert (
        error.startswith(
            "could not reach the Hugging Face Hub at http://127.0.0.1:9 to download 'BAAI/bge-small-zh-v1.5'"
        )
        and "nothing was changed" in error
    )


def test_the_upload_box_says_the_limit_ingest_enforces_and_the_user_can_raise_it(demo_home_copy: Path, open_app):
    """Regression: the box said 200 MB per file (Streamlit's default) while ingest refused files over 20 MB."""
    app = open_app(demo_home_copy, page="app_pages/documents.py")
    assert app.get("file_uploader")[0].proto.max_upload_size_mb == 20
    assert any("Files up to 20 MB each (ingest.max_file_mb, default 20 MB)." in text for text in texts(app, "caption"))
    app.number_input(key="documents_max_file_mb").set_value(50.0).run()
    assert app.get("file_uploader")[0].proto.max_upload_size_mb == 50
    cost = next(text for text in texts(app, "caption") if text.startswith("One file at this size costs about"))
    assert "a PDF: about" in cost and "to embed" in cost
    app.number_input(key="documents_max_file_mb").set_value(500.0).run()
    assert app.get("file_uploader")[0].proto.max_upload_size_mb == 200  # the server's own cap
    assert any("--server.maxUploadSize=500" in text for text in texts(app, "caption"))


def test_a_new_collection_on_another_runtime_estimates_at_the_rate_the_demo_measured(demo_home_copy: Path, open_app):
    """The demo's import measured all-MiniLM-L6-v2 on torch fp32; a collection made with auto (here
    onnx int8) is estimated at that measured rate, not at the first guess of 25 chunks/s."""
    import json

    from store import collections as stored_collections
    from workbench.config import WorkbenchConfig, index_settings
    from workbench.layout import Layout
    from workbench.service import Workbench

    (demo_home_copy / "ingest_rates.json").write_text(json.dumps({"all-MiniLM-L6-v2": 3.25}), encoding="utf-8")
    config = WorkbenchConfig().with_overrides(["embedding.runtime=onnx", "embedding.precision=int8"])
    layout = Layout.of(config)
    stored_collections.create_collection(
        Workbench(demo_home_copy).catalog,
        "fast",
        index_settings(config),
        layout.chunkset_key,
        layout.chunkset_config(),
    )
    app = open_app(demo_home_copy, page="app_pages/documents.py")
    app.sidebar.selectbox(key="collection").set_value("fast").run()
    assert not app.exception, app.exception
    cost = next(text for text in texts(app, "caption") if text.startswith("One file at this size costs about"))
    assert "first guess" not in cost
    assert "at the 3.2 chunks/s this home measured for all-MiniLM-L6-v2" in cost


def test_the_runtime_table_shows_auto_s_pick_and_why_it_refused_each_other(tmp_path: Path, open_app, monkeypatch):
    import json

    from workbench.embedding import calibration

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv(calibration.CALIBRATION_DIR_ENV, str(tmp_path / "machine"))
    runtimes = {
        "torch-fp32": {"texts_per_s": 13.4, "query_ms_p50": 20.0, "min_cosine": 1.0},
        "openvino-fp32": {"texts_per_s": 15.2, "query_ms_p50": 12.0, "min_cosine": 0.99999},
        "openvino-int8": {"texts_per_s": 25.0, "query_ms_p50": 9.0, "min_cosine": 0.985},
        "onnx-int8": {"texts_per_s": 17.5, "query_ms_p50": 10.0, "min_cosine": 0.904},
    }
    record = {"chosen": calibration.choose_measured(runtimes, {}), "sample_texts": 40, "runtimes": runtimes}
    (home / calibration.CALIBRATION_FILE).write_text(json.dumps({calibration.machine_id(): {"m": record}}))
    app = open_app(home, page="app_pages/models.py")
    assert not app.exception, app.exception
    table = next(frame.value for frame in app.dataframe if "auto picks" in frame.value.columns)
    rows = {row["runtime"]: row for row in table.to_dict("records")}
    assert rows["openvino-fp32"]["auto picks"] == "✓" and rows["openvino-fp32"]["texts/s"] == 15.2
    assert rows["openvino-int8"]["agreement with fp32"] == "min cosine 0.98500"
    assert rows["openvino-int8"]["auto refuses it because"] == "min cosine 0.9850 to torch fp32, below 0.99"
    assert rows["onnx-int8"]["auto refuses it because"] == "min cosine 0.9040 to torch fp32, below 0.99"
    assert rows["torch-fp32"]["auto refuses it because"] == ""
