"""Layouts: derived from the index-time keys, and keyed as homes written before keep finding them."""

from __future__ import annotations

import pytest

from workbench.config import Lifetime, WorkbenchConfig, keys_with_lifetime, place_keys
from workbench.layout import Layout

# Keys computed by the layout code before layouts were derived from the keys' lifetimes: a home
# built then must find its chunk sets and indexes under the same names now. Those homes did not cut
# chunks to the model's window: their layouts are the ones with chunking.fit_window off.
KEYS_OF_EARLIER_HOMES = [
    ((), "recursive-1000c-100-2eb45292a4", "recursive-1000c-100-2eb45292a4-8efa64"),
    (("chunking.size=500",), "recursive-500c-100-566f5913bb", "recursive-500c-100-566f5913bb-8efa64"),
    (
        ("chunking.strategy=markdown", "chunking.unit=tokens", "chunking.size=256", "chunking.overlap=0"),
        "markdown-256t-0-2ebb8bab7e",
        "markdown-256t-0-2ebb8bab7e-8efa64",
    ),
    (
        ("chunking.enrich=title", "chunking.enrich_index=true"),
        "recursive-1000c-100-enrich-title-indexed-8c66871138",
        "recursive-1000c-100-enrich-title-indexed-8c66871138-8efa64",
    ),
    (
        ("embedding.runtime=openvino", "embedding.precision=bf16"),
        "recursive-1000c-100-a0deb5403a",
        "recursive-1000c-100-a0deb5403a-8efa64",
    ),
    (
        ("embedding.runtime=torch", "embedding.precision=fp32"),
        "recursive-1000c-100-2eb45292a4",
        "recursive-1000c-100-2eb45292a4-8efa64",
    ),
    (
        ("bm25.k1=1.5", "dense.m=32", "dense.ef_construction=100"),
        "recursive-1000c-100-2eb45292a4",
        "recursive-1000c-100-2eb45292a4-00c9a7",
    ),
    (
        ("dense.ef_search=50", "fusion.k=10", "mmr.enabled=true"),
        "recursive-1000c-100-2eb45292a4",
        "recursive-1000c-100-2eb45292a4-8efa64",
    ),
    (("index.backend=milvus",), "recursive-1000c-100-2eb45292a4", "recursive-1000c-100-2eb45292a4-e06eba-milvus"),
    (
        (
            "index.backend=milvus",
            "milvus.uri=http://h:19530",
            "milvus.analysis=server",
            "milvus.token=abc",
            "milvus.timeout_s=3",
        ),
        "recursive-1000c-100-2eb45292a4",
        "recursive-1000c-100-2eb45292a4-875cc5-milvus",
    ),
    (("milvus.uri=http://h:19530",), "recursive-1000c-100-2eb45292a4", "recursive-1000c-100-2eb45292a4-8efa64"),
]


@pytest.mark.parametrize(("overrides", "chunkset_key", "key"), KEYS_OF_EARLIER_HOMES)
def test_a_layout_keeps_the_keys_earlier_homes_were_built_under(overrides, chunkset_key, key):
    layout = Layout.of(WorkbenchConfig().with_overrides([*overrides, "chunking.fit_window=false"]))
    assert (layout.chunkset_key, layout.key) == (chunkset_key, key)


def test_chunks_fitted_to_the_window_are_a_new_chunk_set_so_earlier_collections_sync_again():
    earlier = Layout.of(WorkbenchConfig().with_value("chunking.fit_window", False))
    now = Layout.of(WorkbenchConfig())
    assert now.chunking.fit_window
    assert now.chunkset_key != earlier.chunkset_key and now.key != earlier.key
    assert now.key.startswith("recursive-1000c-100-")


def test_a_layout_reads_every_index_time_key_and_no_other():
    config = WorkbenchConfig().with_overrides(["index.backend=milvus"])
    layout = Layout.of(config)
    read = {f"chunking.{name}" for name in vars(layout.chunking)} | {
        "embedding.model",
        "embedding.runtime",
        "embedding.precision",
    }
    read |= {key for key, _ in layout.build}
    assert read == set(keys_with_lifetime(Lifetime.INDEX))


def test_another_backends_place_is_not_part_of_a_local_layout():
    local = Layout.of(WorkbenchConfig())
    assert not {key for key, _ in local.build} & set(place_keys())
    assert local.place == ()


def test_every_index_time_key_changes_the_layout_key():
    base = Layout.of(WorkbenchConfig())
    changed = {
        "chunking.strategy": "fixed",
        "chunking.size": 999,
        "chunking.overlap": 7,
        "chunking.unit": "tokens",
        "chunking.window": 3,
        "chunking.threshold": 0.5,
        "chunking.context_headers": False,
        "chunking.enrich": "title",
        "chunking.enrich_index": True,
        "chunking.fit_window": False,
        "embedding.model": "another-model",
        "embedding.runtime": "onnx",
        "embedding.precision": "int8",
        "dense.m": 8,
        "dense.ef_construction": 50,
        "bm25.k1": 0.9,
        "bm25.b": 0.5,
        "bm25.stopwords": "en_plus",
        "index.backend": "milvus",
    }
    assert set(changed) | set(place_keys()) == set(keys_with_lifetime(Lifetime.INDEX))
    for key, value in changed.items():
        config = WorkbenchConfig().with_value(key, value)
        if key == "embedding.precision":
            config = config.with_value("embedding.runtime", "onnx")
        assert Layout.of(config).key != base.key, key


def test_a_milvus_layout_is_keyed_by_its_place_and_not_by_its_credentials():
    milvus = WorkbenchConfig().with_value("index.backend", "milvus")
    base = Layout.of(milvus)
    assert Layout.of(milvus.with_value("milvus.uri", "http://db:19530")).key != base.key
    assert Layout.of(milvus.with_value("milvus.token", "user:secret")).key == base.key
    assert Layout.of(milvus.with_value("milvus.timeout_s", 3.0)).key == base.key
