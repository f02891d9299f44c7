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
