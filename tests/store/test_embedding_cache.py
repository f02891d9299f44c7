"""The embedding cache's table: vectors by (model, content hash), first write wins."""

from __future__ import annotations

import numpy as np

from store import embedding_cache as cache
from store.catalog import Catalog


def test_vectors_round_trip_per_model_and_a_cached_hash_keeps_its_vector(tmp_path):
    catalog = Catalog.in_home(tmp_path)
    cache.store_vectors(catalog, "m1", ["a", "b"], np.array([[1, 0], [0, 1]], dtype=np.float64))
    cache.store_vectors(catalog, "m1", ["b", "c"], np.array([[9, 9], [0.5, 0.5]]))
    cache.store_vectors(catalog, "m2", ["a"], np.array([[3, 4]]))

    loaded = cache.load_vectors(catalog, "m1", ["a", "b", "c", "missing", "a"])
    assert sorted(loaded) == ["a", "b", "c"]
    assert loaded["b"].tolist() == [0.0, 1.0]  # the second write of "b" was ignored
    assert loaded["c"].dtype == np.float32
    assert cache.cached_hashes(catalog, "m2", ["a", "b"]) == {"a"}
    assert cache.cached_hashes(catalog, "m2", []) == set() and cache.load_vectors(catalog, "m2", []) == {}
    assert cache.embedding_counts(catalog, ["m1", "m2", "m3"]) == {"m1": 3, "m2": 1, "m3": 0}


def test_vector_matrix_reads_rows_aligned_with_the_hashes_and_marks_the_missing(tmp_path):
    catalog = Catalog.in_home(tmp_path)
    rng = np.random.default_rng(7)
    stored = rng.standard_normal((1000, 3)).astype(np.float32)
    cache.store_vectors(catalog, "m", [f"h{i}" for i in range(1000)], stored)

    matrix, found = cache.vector_matrix(catalog, "m", ["h999", "nope", "h0", "h999"])
    assert found.tolist() == [True, False, True, True]
    assert matrix.dtype == np.float32 and matrix.shape == (4, 3)
    assert np.array_equal(matrix[0], stored[999]) and np.array_equal(matrix[3], stored[999])
    assert np.array_equal(matrix[2], stored[0]) and matrix[1].tolist() == [0.0, 0.0, 0.0]

    none_cached, found = cache.vector_matrix(catalog, "other-model", ["h1"])
    assert none_cached.shape == (1, 0) and found.tolist() == [False]
    empty, found = cache.vector_matrix(catalog, "m", [])
    assert empty.shape == (0, 0) and len(found) == 0


def test_store_vectors_refuses_hashes_and_vectors_of_different_lengths(tmp_path):
    import pytest

    with pytest.raises(ValueError, match="2 hashes but 1 vectors"):
        cache.store_vectors(Catalog.in_home(tmp_path), "m", ["a", "b"], np.ones((1, 3)))
