"""Offline availability: found where it is, and a clear error with the one command when it is not."""

from pathlib import Path

import pytest

from workbench.models import availability
from workbench.models.availability import (
    ModelNotAvailableError,
    card_for,
    declared_languages,
    hub_cache_dir,
    locate,
    require_available,
)
from workbench.models.catalogue import EMBEDDING, RERANK
from workbench.models.download import ModelDownloadError, download


def test_the_bundled_model_is_always_available():
    folder = require_available("all-MiniLM-L6-v2", EMBEDDING)
    assert (folder / "config.json").exists()


def test_a_catalogue_model_missing_from_the_cache_names_the_fix(tmp_path, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(ModelNotAvailableError) as raised:
        require_available("BAAI/bge-small-zh-v1.5", EMBEDDING)
    message = str(raised.value)
    assert message == (
        "embedding model 'BAAI/bge-small-zh-v1.5' is not available offline: it must be downloaded once while "
        f"online (about 96 MB). It will be cached in {tmp_path / 'hub'}. Download it with: "
        "python -m workbench models download BAAI/bge-small-zh-v1.5"
    )


def test_a_model_in_the_hugging_face_cache_is_found(tmp_path, monkeypatch):
    from huggingface_hub import constants

    cache = tmp_path / "hub"
    snapshot = cache / "models--cross-encoder--ms-marco-MiniLM-L-6-v2" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}", encoding="utf-8")
    (cache / "models--cross-encoder--ms-marco-MiniLM-L-6-v2" / "refs").mkdir()
    (cache / "models--cross-encoder--ms-marco-MiniLM-L-6-v2" / "refs" / "main").write_text("abc123")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    assert locate("cross-encoder/ms-marco-MiniLM-L-6-v2", RERANK) == snapshot


def test_a_missing_folder_says_it_does_not_exist(tmp_path):
    with pytest.raises(ModelNotAvailableError, match=r"rerank model folder '.*nope' does not exist"):
        require_available(str(tmp_path / "nope"), RERANK)


def test_languages_come_from_the_model_card(tmp_path):
    (tmp_path / "README.md").write_text("---\nlanguage:\n- zh\n- en-US\n- multilingual\n---\n# card\n")
    assert declared_languages(tmp_path) == ("zh", "en")
    (tmp_path / "README.md").write_text("---\nlanguage: ja\nlicense: mit\n---\n")
    assert declared_languages(tmp_path) == ("ja",)
    (tmp_path / "README.md").write_text("# no front matter\n")
    assert declared_languages(tmp_path) == ()
    assert declared_languages(None) == ()


def test_any_other_model_has_unknown_languages_unless_its_card_declares_them(tmp_path):
    assert card_for("some-org/unknown-model", EMBEDDING).languages == ()
    assert card_for("some-org/unknown-model", EMBEDDING).describe_languages() == "unknown"
    folder = tmp_path / "local-model"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "README.md").write_text("---\nlanguage: [zh]\n---\n")
    card = card_for(str(folder), EMBEDDING)
    assert card.languages == ("zh",) and card.hub_id is None and not card.in_catalogue
    assert card_for("BAAI/bge-m3", EMBEDDING).in_catalogue


def test_download_of_a_folder_or_the_bundled_model_needs_no_network(tmp_path):
    assert download("all-MiniLM-L6-v2") == availability.bundled_folder(None)
    with pytest.raises(ModelDownloadError, match="is a folder path, not a model id"):
        download(str(tmp_path))


def test_the_cache_dir_is_the_hub_cache():
    from huggingface_hub import constants

    assert hub_cache_dir() == Path(constants.HF_HUB_CACHE)
