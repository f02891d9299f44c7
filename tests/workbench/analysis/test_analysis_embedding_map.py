"""The embedding map's data: chunk vectors of a snapshot projected, labelled by document."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from store.index_set import ChunkRecord, DocumentInfo
from workbench.analysis.embedding_map import build_map, document_label


class FakeDense:
    def __init__(self, vectors: dict[int, list[float]]):
        self._vectors = vectors

    def __len__(self) -> int:
        return len(self._vectors)

    def ids(self) -> np.ndarray:
        return np.array(list(self._vectors)[::-1], dtype=np.int64)  # deliberately unsorted

    def vectors_for(self, ids: np.ndarray) -> np.ndarray:
        return np.array([self._vectors[int(i)] for i in ids])


def chunk(chunk_id: int, doc_id: int, text: str) -> ChunkRecord:
    return ChunkRecord(chunk_id, doc_id, 0, 0, len(text), text, text, (), None, None, False)


def snapshot(vectors: dict[int, list[float]]):
    return SimpleNamespace(
        dense=FakeDense(vectors),
        chunks={1: chunk(1, 10, "alpha"), 2: chunk(2, 10, "beta"), 3: chunk(3, 20, "gamma"), 4: chunk(4, 20, "delta")},
        documents={
            10: DocumentInfo(10, "a.md", None, "md", "Alpha and beta"),
            20: DocumentInfo(20, "g.pdf", None, "pdf", "g.pdf"),
        },
    )


def test_points_are_projected_in_chunk_order_with_their_documents():
    # variance 18/4 along x, 2/4 along y: PCA keeps the coordinates as they are
    emap = build_map(
        snapshot({1: [3.0, 0.0], 2: [-3.0, 0.0], 3: [0.0, 1.0], 4: [0.0, -1.0]}),
        "pca",
        query_vector=np.array([1.0, 2.0]),
    )
    assert [p.chunk_id for p in emap.points] == [1, 2, 3, 4]
    np.testing.assert_allclose([(p.x, p.y) for p in emap.points], [(3, 0), (-3, 0), (0, 1), (0, -1)], atol=1e-12)
    assert [p.document for p in emap.points] == ["Alpha and beta", "Alpha and beta", "g.pdf", "g.pdf"]
    np.testing.assert_allclose(emap.query_xy, (1.0, 2.0), atol=1e-12)
    np.testing.assert_allclose(emap.explained_variance_ratio, (0.9, 0.1))
    assert emap.point_of(3).text == "gamma" and emap.point_of(99) is None


def test_an_empty_index_gives_an_empty_map():
    empty = SimpleNamespace(dense=None, chunks={}, documents={})
    assert build_map(empty).points == ()


def test_document_label_prefers_a_real_title():
    assert document_label("  A   title ", "a.md") == "A title"
    assert document_label("a.md", "a.md") == "a.md"
    assert document_label(None, "b.pdf") == "b.pdf"


def test_a_large_collection_is_mapped_from_a_fixed_sample_that_keeps_the_chunks_asked_for():
    from workbench.analysis.embedding_map import sample_ids

    ids = np.arange(100, 0, -1)  # unsorted, as an index returns them
    assert sample_ids(ids, 100).tolist() == list(range(1, 101))
    sampled = sample_ids(ids, 10, include=[7, 500])
    assert len(sampled) in (10, 11) and 7 in sampled and 500 not in sampled  # 500 is not in the index
    assert sampled.tolist() == sorted(sampled.tolist()) == sample_ids(ids, 10, include=[7, 500]).tolist()

    emap = build_map(
        snapshot({1: [3.0, 0.0], 2: [-3.0, 0.0], 3: [0.0, 1.0], 4: [0.0, -1.0]}), "pca", max_points=2, include=[3]
    )
    assert 3 in {p.chunk_id for p in emap.points} and len(emap.points) in (2, 3)
    assert emap.total_chunks == 4 and emap.sampled
    assert not build_map(snapshot({1: [1.0, 0.0], 2: [0.0, 1.0]}), "pca").sampled
