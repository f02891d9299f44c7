"""The embedding cache's table: vectors by (model, content hash). Each function is one transaction.

Which texts to embed, and with what, is ``workbench.embedding.cache``'s business; this module
only reads and writes the vectors.
"""

from __future__ import annotations

import numpy as np

from store.catalog import Catalog, single_int
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
    """The cached vectors of ``hashes`` by hash (a hash the cache lacks is left out)."""
    if not hashes:
        return {}
    with catalog.connect() as con:
        result = con.execute(
            "SELECT content_hash, vector FROM embeddings WHERE model = ? AND content_hash IN (SELECT unnest(?))",
            [model, list(set(hashes))],
        ).fetchnumpy()
    return {h: np.asarray(v, dtype=np.float32) for h, v in zip(result["content_hash"], result["vector"], strict=False)}


def vector_matrix(catalog: Catalog, model: str, hashes: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The cached vectors of ``hashes`` as one float32 matrix, row-aligned, and which rows were found
    (a row the cache lacks is zeros).

    The bulk read: the hashes travel as one Arrow column joined in DuckDB, and the vectors come
    back as one flat buffer, so a million rows cost seconds and no Python object per vector.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    found = np.zeros(len(hashes), dtype=bool)
    if not hashes:
        return np.zeros((0, 0), dtype=np.float32), found
    wanted = pa.table(
        {
            "position": pa.array(np.arange(len(hashes), dtype=np.int64)),
            "content_hash": pa.array(hashes, type=pa.string()),
        }
    )
    with catalog.connect() as con:
        con.register("_wanted_hashes", wanted)
        result = con.sql(
            "SELECT w.position, e.vector FROM _wanted_hashes w JOIN embeddings e"
            " ON e.model = $model AND e.content_hash = w.content_hash",
            params={"model": model},
        ).to_arrow_table()
        con.unregister("_wanted_hashes")
    if result.num_rows == 0:
        return np.zeros((len(hashes), 0), dtype=np.float32), found
    positions = result.column("position").to_numpy()
    lists = result.column("vector").combine_chunks()
    flat = pc.list_flatten(lists).to_numpy(zero_copy_only=False).astype(np.float32, copy=False)
    dimension = len(flat) // result.num_rows
    if dimension * result.num_rows != len(flat):
        raise ValueError(
            f"embedding cache: the {model!r} vectors are not all of one length; "
            "delete that model's rows from the embeddings table and embed again"
        )
    matrix = np.zeros((len(hashes), dimension), dtype=np.float32)
    matrix[positions] = flat.reshape(result.num_rows, dimension)
    found[positions] = True
    return matrix, found


def store_vectors(catalog: Catalog, model: str, hashes: list[str], vectors: np.ndarray) -> None:
    """Add vectors row-aligned with ``hashes``; a hash already cached keeps its vector.

    The vectors go to DuckDB as one Arrow list column over the matrix's own buffer (no Python
    object per vector), so a bulk load of a million vectors is one statement.
    """
    import pyarrow as pa

    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if len(hashes) != len(vectors):
        raise ValueError(f"store_vectors: {len(hashes)} hashes but {len(vectors)} vectors")
    if not hashes:
        return
    dimension = vectors.shape[1]
    offsets = pa.array(np.arange(0, (len(vectors) + 1) * dimension, dimension, dtype=np.int64))
    column = pa.LargeListArray.from_arrays(offsets, pa.array(vectors.ravel()))
    rows = pa.table(
        {
            "model": pa.array([model] * len(hashes), type=pa.string()),
            "content_hash": pa.array(hashes, type=pa.string()),
            "vector": column,
        }
    )
    with catalog.connect() as con:
        insert_frame(con, "embeddings", rows, or_ignore=True)


def embedding_counts(catalog: Catalog, models: list[str]) -> dict[str, int]:
    """Cached vectors per model: a sweep compares these before and after to prove reuse."""
    with catalog.connect() as con:
        return {model: single_int(con, "SELECT count(*) FROM embeddings WHERE model = ?", [model]) for model in models}
