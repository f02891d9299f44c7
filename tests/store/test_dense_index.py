import numpy as np
import pytest

from store.dense_index import DenseIndex
from store.retrieval_index import ChunkBatch

DIM = 384


def clustered_vectors(rng: np.random.Generator, count: int, centers: np.ndarray) -> np.ndarray:
    """Points scattered around random cluster centres, like embeddings of a few topics."""
    assignment = rng.integers(0, len(centers), size=count)
    return (centers[assignment] + 0.6 * rng.standard_normal((count, DIM))).astype(np.float32)


@pytest.fixture(scope="module")
def corpus():
    rng = np.random.default_rng(7)
    centers = rng.standard_normal((30, DIM))
    vectors = clustered_vectors(rng, 3000, centers)
    queries = clustered_vectors(rng, 100, centers)
    ids = np.arange(1000, 4000, dtype=np.int64)  # ids need not start at 0
    index = DenseIndex.create(DIM)
    index.add(ChunkBatch(ids, vectors=vectors))
    return index, ids, vectors, queries


def brute_force(ids, vectors, query, k):
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    similarities = unit @ (query / np.linalg.norm(query))
    order = np.argsort(-similarities)[:k]
    return [(int(ids[row]), float(similarities[row])) for row in order]


def test_hnsw_recall_at_10_against_exact_search(corpus):
    index, _, _, queries = corpus
    found = 0
    for query in queries:
        exact = {chunk_id for chunk_id, _ in index.search(query, 10, exact=True)}
        approximate = {chunk_id for chunk_id, _ in index.search(query, 10)}
        found += len(exact & approximate)
    assert found / (10 * len(queries)) >= 0.99


def test_exact_search_returns_cosine_similarity_best_first(corpus):
    index, ids, vectors, queries = corpus
    expected = brute_force(ids, vectors, queries[0], 5)
    result = index.search(queries[0], 5, exact=True)
    assert [chunk_id for chunk_id, _ in result] == [chunk_id for chunk_id, _ in expected]
    np.testing.assert_allclose([s for _, s in result], [s for _, s in expected], atol=1e-5)
    # HNSW reports the same similarities (1 - cosine distance), not distances.
    hnsw = dict(index.search(queries[0], 5))
    for chunk_id, similarity in expected:
        assert hnsw[chunk_id] == pytest.approx(similarity, abs=1e-5)


def test_similarity_of_hand_made_vectors():
    index = DenseIndex.create(2)
    index.add(ChunkBatch(np.array([1, 2, 3]), vectors=np.array([[1, 0], [1, 1], [0, 5]], dtype=np.float32)))
    for exact in (False, True):
        result = index.search(np.array([3.0, 0.0]), 3, exact=exact)
        assert [chunk_id for chunk_id, _ in result] == [1, 2, 3]
        np.testing.assert_allclose([s for _, s in result], [1.0, np.sqrt(0.5), 0.0], atol=1e-6)
    np.testing.assert_allclose(index.vectors_for(np.array([3, 2])), [[0, 1], [np.sqrt(0.5), np.sqrt(0.5)]], atol=1e-6)


def test_k_larger_than_the_index_is_clamped():
    index = DenseIndex.create(4)
    assert index.search(np.ones(4), 10) == []
    index.add(ChunkBatch(np.array([5, 6]), vectors=np.eye(4, dtype=np.float32)[:2]))
    assert len(index.search(np.ones(4), 10)) == 2
    assert len(index.search(np.ones(4), 10, ef_search=1)) == 2


def test_incremental_add_grows_past_initial_capacity_and_replaces_existing_ids():
    rng = np.random.default_rng(1)
    index = DenseIndex.create(8, m=8, ef_construction=50)
    first = rng.standard_normal((800, 8)).astype(np.float32)
    second = rng.standard_normal((800, 8)).astype(np.float32)
    index.add(ChunkBatch(np.arange(800), vectors=first))
    index.add(ChunkBatch(np.arange(800, 1600), vectors=second))  # beyond the initial capacity of 1024
    assert len(index) == 1600
    assert sorted(index.ids().tolist()) == list(range(1600))
    # Every vector finds itself.
    assert index.search(second[10], 1)[0][0] == 810

    replacement = -first[3]
    index.add(ChunkBatch(np.array([3]), vectors=replacement[None, :]))
    assert len(index) == 1600
    np.testing.assert_allclose(
        index.vectors_for(np.array([3]))[0], replacement / np.linalg.norm(replacement), atol=1e-6
    )
    for exact in (False, True):
        top_id, top_similarity = index.search(replacement, 1, exact=exact)[0]
        assert top_id == 3 and top_similarity == pytest.approx(1.0, abs=1e-5)


def test_delete_removes_from_results_and_ignores_unknown_ids():
    rng = np.random.default_rng(2)
    vectors = rng.standard_normal((200, 16)).astype(np.float32)
    index = DenseIndex.create(16)
    index.add(ChunkBatch(np.arange(200), vectors=vectors))
    assert index.search(vectors[42], 1)[0][0] == 42
    index.delete(np.array([42, 99999]))
    assert len(index) == 199
    assert 42 not in index.ids()
    for exact in (False, True):
        assert 42 not in {chunk_id for chunk_id, _ in index.search(vectors[42], 199, exact=exact)}
    with pytest.raises(KeyError, match="42"):
        index.vectors_for(np.array([42]))
    # A deleted id can come back.
    index.add(ChunkBatch(np.array([42]), vectors=vectors[42][None, :]))
    assert index.search(vectors[42], 1)[0][0] == 42


def test_allowed_ids_filter_in_both_modes(corpus):
    index, ids, vectors, queries = corpus
    allowed = {int(chunk_id) for chunk_id in ids[::7]}
    subset = np.isin(ids, list(allowed))
    expected = brute_force(ids[subset], vectors[subset], queries[3], 10)
    for exact in (False, True):
        result = index.search(queries[3], 10, exact=exact, allowed_ids=allowed)
        assert {chunk_id for chunk_id, _ in result} <= allowed
        assert [chunk_id for chunk_id, _ in result] == [chunk_id for chunk_id, _ in expected]
    # Fewer allowed items than k: all of them, and no error from hnswlib.
    assert {chunk_id for chunk_id, _ in index.search(queries[3], 10, allowed_ids={1000, 1001, 555})} == {1000, 1001}


def test_save_load_round_trip(tmp_path, corpus):
    index, ids, _, queries = corpus
    index.save(tmp_path / "dense")
    loaded = DenseIndex.load(tmp_path / "dense")
    assert len(loaded) == len(index) and (loaded.dim, loaded.m, loaded.ef_construction) == (DIM, 16, 200)
    np.testing.assert_array_equal(loaded.ids(), index.ids())
    np.testing.assert_array_equal(loaded.vectors_for(ids[:50]), index.vectors_for(ids[:50]))
    for query in queries[:10]:
        assert loaded.search(query, 10) == index.search(query, 10)
        assert loaded.search(query, 10, exact=True) == index.search(query, 10, exact=True)


def test_save_load_keeps_deletions(tmp_path):
    vectors = np.random.default_rng(3).standard_normal((50, 8)).astype(np.float32)
    index = DenseIndex.create(8)
    index.add(ChunkBatch(np.arange(50), vectors=vectors))
    index.delete(np.array([7]))
    index.save(tmp_path / "dense")
    loaded = DenseIndex.load(tmp_path / "dense")
    assert len(loaded) == 49
    assert 7 not in {chunk_id for chunk_id, _ in loaded.search(vectors[7], 49)}


def test_rejects_wrong_shapes_and_zero_vectors():
    index = DenseIndex.create(4)
    with pytest.raises(ValueError, match=r"\(n, 4\)"):
        index.add(ChunkBatch(np.array([1]), vectors=np.ones((1, 3), dtype=np.float32)))
    with pytest.raises(ValueError, match="zero"):
        index.add(ChunkBatch(np.array([1]), vectors=np.zeros((1, 4), dtype=np.float32)))
