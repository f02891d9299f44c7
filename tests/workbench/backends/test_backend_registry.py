"""The backend registry: names, what a snapshot's manifest picks, and layout keys that stay put."""

from __future__ import annotations

import pytest

from store.index_set import Snapshot
from workbench.backends import BACKENDS, IndexBackend, open_snapshot_indexes
from workbench.config import WorkbenchConfig
from workbench.layout import Layout


def test_every_engine_is_registered_by_the_name_index_backend_uses():
    assert BACKENDS.names() == ("local", "milvus")
    for name in BACKENDS.names():
        backend = BACKENDS.get(name)
        assert isinstance(backend, IndexBackend) and backend.name == name


def test_an_unknown_backend_names_the_known_ones():
    with pytest.raises(ValueError, match="index backend 'faiss' not found; known: local, milvus"):
        BACKENDS.get("faiss")


def test_describe_says_where_a_collection_lives():
    assert BACKENDS.get("local").describe({}) == "local"
    assert BACKENDS.get("milvus").describe({"milvus.uri": "http://db:19530"}) == "milvus (http://db:19530)"
    assert BACKENDS.get("milvus").describe({}) == "milvus (indexes/milvus.db)"


def test_layout_keys_are_the_ones_homes_already_hold():
    # computed by the layout code before backends were plugins: a home's index folders and Milvus
    # collections keep their names, so nothing is rebuilt
    # (chunks not cut to the model's window, as every layout was then)
    earlier = WorkbenchConfig().with_value("chunking.fit_window", False)
    local = Layout.of(earlier)
    milvus = Layout.of(earlier.with_overrides(["index.backend=milvus"]))
    served = Layout.of(
        earlier.with_overrides(
            ["index.backend=milvus", "milvus.uri= http://x:1 ", "milvus.analysis=server", "chunking.size=300"]
        )
    )
    assert local.key == "recursive-1000c-100-2eb45292a4-8efa64"
    assert milvus.key == "recursive-1000c-100-2eb45292a4-e06eba-milvus"
    assert served.key == "recursive-300c-100-caddc6b756-494f18-milvus"
    assert milvus.to_dict()["milvus"] == {
        "uri": "indexes/milvus.db",
        "collection_prefix": "workbench_",
        "analysis": "client",
        "analyzer": "auto",
    }
    assert "milvus" not in local.to_dict() and local.place == ()


def test_a_manifest_from_before_backends_opens_as_local_files(tmp_path):
    from tests.store.test_index_set import build_version

    version = build_version(tmp_path / "layout", 1, [1, 2, 3])  # its manifest names no layout
    snapshot = Snapshot(version, open_snapshot_indexes)
    assert snapshot.backend == "local" and snapshot.dense_ids == frozenset({1, 2, 3})
    assert snapshot.sparse.has_term_statistics and snapshot.dense.exact_search_note
