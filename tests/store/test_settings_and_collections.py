"""Collections and presets in the catalog: one read for both, clear errors, all-or-nothing writes."""

from __future__ import annotations

import pytest

from store import collections as stored_collections
from store import settings as stored_settings
from store.catalog import Catalog
from store.repository import NotFoundError


@pytest.fixture
def catalog(tmp_path) -> Catalog:
    return Catalog.in_home(tmp_path)


def test_the_built_in_preset_always_exists_and_sets_nothing(catalog):
    settings = stored_settings.read_settings(catalog)
    assert settings.preset(stored_settings.DEFAULT_PRESET) == {}
    assert [p.name for p in stored_settings.list_presets(catalog)] == ["default"]


def test_presets_and_collections_are_read_together_with_errors_naming_what_exists(catalog):
    stored_collections.create_collection(catalog, "notes", {"chunking.size": 300}, "k", {})
    stored_collections.create_collection(catalog, "faq", {}, "k", {})
    stored_settings.save_preset(catalog, "wide", {"retrieval.top_k": 20}, "more hits")
    settings = stored_settings.read_settings(catalog)
    assert list(settings.collections) == ["faq", "notes"]
    assert settings.collection("notes").config == {"chunking.size": 300}
    assert settings.preset("wide") == {"retrieval.top_k": 20}
    with pytest.raises(NotFoundError, match=r"collection 'x' not found; known: faq, notes$"):
        settings.collection("x")
    with pytest.raises(NotFoundError, match=r"preset 'y' not found; known: default, wide$"):
        settings.preset("y")
    assert [(p.name, p.description) for p in stored_settings.list_presets(catalog)] == [
        ("default", "built-in defaults"),
        ("wide", "more hits"),
    ]


def test_an_empty_catalog_says_so(catalog):
    with pytest.raises(NotFoundError, match="known: none yet"):
        stored_settings.read_settings(catalog).collection("kb")


def test_set_default_preset_checks_the_preset_then_the_collection(catalog):
    stored_collections.create_collection(catalog, "kb", {}, "k", {})
    with pytest.raises(NotFoundError, match="preset 'nope' not found; known: default"):
        stored_settings.set_default_preset(catalog, "kb", "nope")
    with pytest.raises(NotFoundError, match="collection 'other' not found"):
        stored_settings.set_default_preset(catalog, "other", "default")
    stored_settings.save_preset(catalog, "fast", {"retrieval.mode": "bm25"})
    stored_settings.set_default_preset(catalog, "kb", "fast")
    assert stored_collections.get_collection(catalog, "kb").default_preset == "fast"


def test_a_collection_is_created_with_its_first_chunk_set_and_only_once(catalog):
    row = stored_collections.create_collection(catalog, "kb", {"embedding.model": "m"}, "set-a", {"size": 1})
    assert (row.name, row.generation, row.default_preset) == ("kb", 0, "default")
    assert stored_collections.chunksets_of(catalog, "kb") == {"set-a": {"size": 1}}
    with pytest.raises(ValueError, match="collection 'kb' already exists; pick another name or delete it first"):
        stored_collections.create_collection(catalog, "kb", {}, "set-b", {})
    assert stored_collections.chunksets_of(catalog, "kb") == {"set-a": {"size": 1}}
    summaries = stored_collections.collection_summaries(catalog)
    assert [(s.row.name, s.documents, s.chunks) for s in summaries] == [("kb", 0, 0)]
    stored_collections.delete_collection(catalog, "kb")
    assert stored_collections.find_collection(catalog, "kb") is None


def test_create_or_join_makes_the_collection_once_and_lets_the_check_refuse_the_rest(catalog):
    seen = []
    made, created = stored_collections.create_or_join_collection(
        catalog, "kb", {"embedding.model": "m"}, "set-a", {"size": 1}, seen.append
    )
    assert created and seen == []  # nothing to check: it was made here
    joined, created = stored_collections.create_or_join_collection(
        catalog, "kb", {"embedding.model": "other"}, "set-b", {"size": 2}, seen.append
    )
    assert not created and joined == made and seen == [made]  # the check saw the row as stored
    assert joined.config == {"embedding.model": "m"}
    assert stored_collections.chunksets_of(catalog, "kb") == {"set-a": {"size": 1}}

    def refuse(row):
        raise ValueError(f"not {row.name}")

    with pytest.raises(ValueError, match="not kb"):
        stored_collections.create_or_join_collection(catalog, "kb", {}, "set-c", {}, refuse)
    assert stored_collections.chunksets_of(catalog, "kb") == {"set-a": {"size": 1}}
    assert [row.name for row in stored_collections.list_collections(catalog)] == ["kb"]


def _wait_past_racy_window() -> None:
    import time

    from store.catalog import RACY_S

    time.sleep(RACY_S + 0.05)


def test_a_read_is_kept_while_the_file_is_unchanged_and_each_caller_gets_its_own_copy(catalog, monkeypatch):
    stored_settings.save_preset(catalog, "wide", {"retrieval.top_k": 20}, "more hits")
    stored_settings.read_settings(catalog)  # opens the file once (migrations, then the read)
    _wait_past_racy_window()
    first = stored_settings.read_settings(catalog)  # the file is settled: this read is kept
    opened = []
    real_open = Catalog._open
    monkeypatch.setattr(Catalog, "_open", lambda self: opened.append(self.path) or real_open(self))
    first.preset("wide")["retrieval.top_k"] = 99  # a caller changing its copy
    again = stored_settings.read_settings(catalog)
    assert opened == []
    assert again.preset("wide") == {"retrieval.top_k": 20}
    assert again is not first


def test_a_write_by_another_process_is_read_at_once(catalog, tmp_path):
    stored_settings.save_preset(catalog, "wide", {"retrieval.top_k": 20}, "more hits")
    _wait_past_racy_window()
    assert stored_settings.read_settings(catalog).preset("wide") == {"retrieval.top_k": 20}  # kept
    other = Catalog.in_home(tmp_path)  # another handle on the file, as another process has
    other._lock = __import__("threading").RLock()  # and not this process's lock
    stored_settings.save_preset(other, "wide", {"retrieval.top_k": 30}, "more hits")
    stored_collections.create_collection(other, "notes", {}, "k", {})
    settings = stored_settings.read_settings(catalog)
    assert settings.preset("wide") == {"retrieval.top_k": 30}
    assert list(settings.collections) == ["notes"]


def test_a_file_changed_within_the_racy_window_is_read_again(catalog, monkeypatch):
    import store.catalog

    stored_settings.save_preset(catalog, "wide", {"retrieval.top_k": 20}, "more hits")
    monkeypatch.setattr(store.catalog, "RACY_S", 3600.0)  # every change is recent: none can be told apart
    assert catalog.file_state() is None
    opened = []
    real_open = Catalog._open
    monkeypatch.setattr(Catalog, "_open", lambda self: opened.append(self.path) or real_open(self))
    stored_settings.read_settings(catalog)
    stored_settings.read_settings(catalog)
    assert len(opened) == 2
