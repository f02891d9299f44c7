"""Index snapshots: what a reader checks when it loads one, and how it follows CURRENT."""

from __future__ import annotations

import numpy as np
import pytest

from store.dense_index import DenseIndex
from store.index_set import (
    CHUNK_COLUMNS,
    DOCUMENT_COLUMNS,
    Snapshot,
    SnapshotCache,
    new_version_dir,
    publish,
    write_chunk_table,
    write_table,
)
from store.retrieval_index import ChunkBatch
from store.sparse_index import SparseIndex
from workbench.backends import open_snapshot_indexes

TEXTS = ["alpha beta", "beta gamma", "gamma delta"]


def build_version(layout_dir, generation: int, table_ids: list[int]):
    """A snapshot whose indexes hold chunks 1-3 and whose chunk table holds ``table_ids``."""
    folder = new_version_dir(layout_dir, generation)
    batch = ChunkBatch(np.array([1, 2, 3]), texts=TEXTS, vectors=np.eye(3, dtype=np.float32))
    SparseIndex.from_chunks(batch).save(folder / "sparse")
    DenseIndex.from_chunks(batch).save(folder / "dense")
    rows = [(cid, 7, cid, 0, 10, TEXTS[cid - 1], TEXTS[cid - 1], [], None, None, False) for cid in table_ids]
    write_chunk_table(folder, {name: [row[i] for row in rows] for i, name in enumerate(CHUNK_COLUMNS)})
    write_table(folder / "documents.parquet", [(7, "doc.md", None, "md", "Doc")], DOCUMENT_COLUMNS)
    return publish(layout_dir, folder, {"generation": generation})


def test_a_loaded_snapshot_maps_chunks_to_documents(tmp_path):
    snapshot = Snapshot(build_version(tmp_path / "layout", 1, [1, 2, 3]), open_snapshot_indexes)
    assert snapshot.doc_id_of == {1: 7, 2: 7, 3: 7}
    assert snapshot.sparse.search("gamma", 5)[0][0] in (2, 3)


def test_an_index_holding_chunks_the_table_lacks_is_refused_with_the_fix(tmp_path):
    version = build_version(tmp_path / "layout", 1, [1, 2])
    with pytest.raises(ValueError, match="inconsistent") as caught:
        Snapshot(version, open_snapshot_indexes)
    assert str(tmp_path / "layout") in str(caught.value) and "rebuilds it from the catalog" in str(caught.value)


def test_the_cache_follows_current_to_a_new_version(tmp_path):
    layout = tmp_path / "layout"
    cache = SnapshotCache(open_snapshot_indexes)
    assert cache.get(layout) is None
    build_version(layout, 1, [1, 2, 3])
    first = cache.get(layout)
    assert cache.get(layout) is first  # unchanged CURRENT: the loaded snapshot, not a reload
    build_version(layout, 2, [1, 2, 3])
    second = cache.get(layout)
    assert second is not first and second.generation == 2


def test_a_peek_gives_the_loaded_snapshot_only_while_current_points_at_it(tmp_path):
    layout = tmp_path / "layout"
    cache = SnapshotCache(open_snapshot_indexes)
    build_version(layout, 1, [1, 2, 3])
    assert cache.peek(layout) is None  # not loaded yet: get would load it
    first = cache.get(layout)
    assert cache.peek(layout) is first
    build_version(layout, 2, [1, 2, 3])
    assert cache.peek(layout) is None  # CURRENT moved: get would load the new version
    assert cache.get(layout).generation == 2 and cache.peek(layout).generation == 2
