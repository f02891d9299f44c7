"""The embedding cache's table: vectors by (model, content hash). Each function is one transaction.

Which texts to embed, and with what, is ``workbench.embedding.cache``'s business; this module
only reads and writes the vectors.
"""

from __future__ import annotations

import numpy as np

from store.catalog import Catalog
from store.repository import insert_frame


def cached_hashes(catalog: Catalog, model: str, hashes: list[str]) -> set[str]:
    """The subset of ``hashes`` the cache holds a ``model`` vector for."""
    if not hashes:
        return set()
    with catalog.connect() as con:
        rows = con.execute(
            "SELECT content_hash FROM embeddings WHERE model = ? AND content_hash IN (SELECT unnest(?))",
            [model, list(set(hashes))],
        ).fetchall()
    return {row[0] for row in rows}


def load_vectors(catalog: Catalog, model: str, hashes: list[str]) -> dict[str, np.ndarray]:
    if not hashes:
        return {}
    with catalog.connect() as con:
        result = con.execute(
            "SELECT content_hash, vector FROM embeddings WHERE model = ? AND content_hash IN (SELECT unnest(?))",
            [model, list(set(hashes))],
        ).fetchnumpy()
    return {h: np.asarray(v, dtype=np.float32) for h, v in zip(result["content_hash"], result["vector"])}


def store_vectors(catalog: Catalog, model: str, hashes: list[str], vectors: np.ndarray) -> None:
    """Add vectors row-aligned with ``hashes``; a hash already cached keeps its vector."""
    import pyarrow as pa

    matrix = np.ascontiguousarray(vectors, dtype=np.float32)
    rows, width = matrix.shape if matrix.ndim == 2 else (0, 0)
    table = pa.table({
        "model": pa.array([model] * len(hashes), pa.string()),
        "content_hash": pa.array(hashes, pa.string()),
        # one flat buffer cut into rows: no Python object per vector
        "vector": pa.ListArray.from_arrays(pa.array(np.arange(rows + 1, dtype=np.int32) * width),
                                           pa.array(matrix.reshape(-1))),
    })
    with catalog.connect() as con:
        insert_frame(con, "embeddings", table, or_ignore=True)


def embedding_counts(catalog: Catalog, models: list[str]) -> dict[str, int]:
    """Cached vectors per model: a sweep compares these before and after to prove reuse."""
    with catalog.connect() as con:
        return {
            model: con.execute("SELECT count(*) FROM embeddings WHERE model = ?", [model]).fetchone()[0]
            for model in models
        }
