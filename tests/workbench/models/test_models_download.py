"""Downloading, verifying and removing a model, against a local Hub mirror (tests/fake_hub.py).

A tiny random-weight BERT is published on a Hub served on 127.0.0.1; ``HF_ENDPOINT`` points
there and ``HF_HUB_CACHE`` at a temp folder, so nothing touches the internet or the real cache.
"""

from __future__ import annotations

import pytest

from tests.conftest import save_tiny_sentence_model
from tests.fake_hub import FakeHub
from workbench.models.catalogue import EMBEDDING, RERANK
from workbench.models.download import (
    KEEP_FREE_ENV,
    DownloadPlan,
    ModelDownloadError,
    ModelRemoveError,
    download,
    remove,
    size_on_disk,
)

REPO = "tiny/embed-model"
WEIGHTS = "model.safetensors"


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    folder = save_tiny_sentence_model(
        tmp_path_factory.mktemp("hub-models") / "tiny-embed",
        ("zh", "en"),
        # weights just over huggingface_hub's 10 MiB read chunk, so a drop after
        # the first chunk leaves bytes to resume from
        hidden_size=96,
    )
    fake = FakeHub().start()
    fake.add_folder(REPO, folder)
    yield fake
    fake.stop()


@pytest.fixture
def cache(hub, tmp_path, monkeypatch):
    """An empty Hugging Face cache, the hub mirror as endpoint, and the hub's faults reset."""
    from huggingface_hub import constants

    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub-cache"))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub-cache"))
    hub.requests.clear()
    hub.drop_after.clear()
    hub.corrupt.clear()
    hub.fail.clear()
    return tmp_path / "hub-cache"


def test_download_shows_the_size_first_then_progress_and_the_model_loads_offline(hub, cache):
    from sentence_transformers import SentenceTransformer

    events: list = []
    folder = download(REPO, EMBEDDING, on_plan=events.append, on_progress=events.append)
    plan = events[0]
    repo = hub.repos[REPO]
    assert isinstance(plan, DownloadPlan)
    assert plan.total_bytes == plan.to_fetch == sum(len(f.data) for f in repo.files.values())
    done = [event.done for event in events[1:]]
    assert done == sorted(done) and done[-1] == plan.total_bytes and len(done) > 2
    assert folder == cache / "models--tiny--embed-model" / "snapshots" / repo.commit
    assert size_on_disk(REPO) == plan.total_bytes
    vectors = SentenceTransformer(str(folder), device="cpu").encode(["检索增强生成", "retrieval"])
    assert vectors.shape == (2, 96)


def test_a_dropped_connection_resumes_with_a_range_request(hub, cache):
    chunk = 10 * 1024 * 1024  # huggingface_hub writes what it has read in chunks of this size
    assert len(hub.repos[REPO].files[WEIGHTS].data) > chunk + 100_000
    hub.drop_after[WEIGHTS] = (chunk + 100_000, 1)
    download(REPO)
    assert hub.gets(WEIGHTS) == ["", f"bytes={chunk}-"]


def test_an_interrupted_download_keeps_what_it_fetched_and_the_next_one_resumes_after_it(hub, cache):
    hub.fail.add(WEIGHTS)
    with pytest.raises(ModelDownloadError) as raised:
        download(REPO)
    assert raised.value.kind == "interrupted"
    assert "download again" in str(raised.value)
    fetched_before = {path for _, path, _ in hub.requests if "/resolve/" in path}
    hub.fail.clear()
    hub.requests.clear()
    plans: list[DownloadPlan] = []
    download(REPO, on_plan=plans.append)
    fetched_after = [path for method, path, _ in hub.requests if method == "GET" and "/resolve/" in path]
    assert plans[0].to_fetch < plans[0].total_bytes
    assert all(path.endswith(WEIGHTS) or path not in fetched_before for path in fetched_after)
    assert any(path.endswith(WEIGHTS) for path in fetched_after)


def test_a_corrupt_file_fails_verification_and_is_removed(hub, cache):
    hub.corrupt.add(WEIGHTS)
    with pytest.raises(ModelDownloadError) as raised:
        download(REPO)
    assert raised.value.kind == "corrupt"
    assert f"{WEIGHTS} has sha256" in str(raised.value) and "was removed" in str(raised.value)
    snapshot = cache / "models--tiny--embed-model" / "snapshots" / hub.repos[REPO].commit
    assert not (snapshot / WEIGHTS).exists()
    assert not (cache / "models--tiny--embed-model" / "blobs" / hub.repos[REPO].files[WEIGHTS].etag).exists()
    hub.corrupt.clear()
    assert (download(REPO) / WEIGHTS).is_file()


def test_not_enough_disk_space_stops_before_any_byte_and_names_the_limit(hub, cache, monkeypatch):
    import shutil

    cache.mkdir(parents=True)
    free_mb = shutil.disk_usage(cache).free / 1e6
    monkeypatch.setenv(KEEP_FREE_ENV, str(int(free_mb)))  # all but < 1 MB must stay free: the model does not fit
    with pytest.raises(ModelDownloadError) as raised:
        download(REPO)
    assert raised.value.kind == "disk"
    assert KEEP_FREE_ENV in str(raised.value) and "nothing was downloaded" in str(raised.value)
    assert not [path for method, path, _ in hub.requests if method == "GET" and "/resolve/" in path]


def test_offline_and_unknown_models_say_so(hub, cache, monkeypatch):
    with pytest.raises(ModelDownloadError) as raised:
        download("tiny/no-such-model")
    assert raised.value.kind == "not_found" and "has no model 'tiny/no-such-model'" in str(raised.value)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens there
    with pytest.raises(ModelDownloadError) as raised:
        download(REPO)
    assert raised.value.kind == "offline"
    assert str(raised.value).startswith("could not reach the Hugging Face Hub at http://127.0.0.1:9")
    assert not cache.exists() or not any(cache.rglob("*.safetensors"))


def test_remove_frees_the_space_and_refuses_what_it_cannot_remove(hub, cache, tmp_path):
    download(REPO)
    size = size_on_disk(REPO)
    assert remove(REPO) == size > 0
    assert not (cache / "models--tiny--embed-model").exists()
    with pytest.raises(ModelRemoveError, match="is not downloaded"):
        remove(REPO)
    with pytest.raises(ModelRemoveError, match="bundled"):
        remove("all-MiniLM-L6-v2")
    with pytest.raises(ModelRemoveError, match="folder of yours"):
        remove(str(tmp_path), RERANK)


def test_the_models_command_downloads_lists_and_removes(hub, cache, capsys):
    import json

    from workbench.cli import main

    assert main(["models", "download", REPO]) == 0
    captured = capsys.readouterr()
    assert f"{REPO} is in " in captured.out and "verified" in captured.out
    assert f"{REPO}: {len(hub.repos[REPO].files)} files" in captured.err and "100%" in captured.err
    assert main(["models", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows[REPO]["status"] == "downloaded" and rows[REPO]["size_on_disk"] > 0
    assert rows["BAAI/bge-small-zh-v1.5"]["status"] == "not downloaded"
    assert main(["models", "remove", REPO]) == 0
    assert capsys.readouterr().out.startswith(f"removed {REPO}; ")
    assert main(["models", "remove", REPO]) == 2
    assert "is not downloaded" in capsys.readouterr().err
