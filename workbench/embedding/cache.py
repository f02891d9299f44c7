"""Embeddings cached in the catalog by (model, content hash): no text is embedded twice.

The vectors' table is ``store.embedding_cache``; this module decides what to embed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from store.catalog import Catalog
from store.embedding_cache import store_vectors, vector_matrix
from workbench.embedding.base import Embedder, content_hash

#: how many texts are embedded between two cache writes; a crash loses at most one batch
WRITE_BATCH = 256


@dataclass(frozen=True)
class EmbeddingStats:
    requested: int
    cached: int
    embedded: int


def embed_cached(
    catalog: Catalog,
    embedder: Embedder,
    texts: list[str],
    progress: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, EmbeddingStats]:
    """Vectors for ``texts`` (row-aligned), embedding only hashes the cache lacks."""
    hashes = [content_hash(text) for text in texts]
    matrix, found = vector_matrix(catalog, embedder.name, hashes)
    missing: dict[str, list[int]] = {}  # hash -> the rows that need its vector
    for row in np.flatnonzero(~found).tolist():
        missing.setdefault(hashes[row], []).append(row)
    pending = list(missing.items())
    for offset in range(0, len(pending), WRITE_BATCH):
        batch = pending[offset : offset + WRITE_BATCH]
        vectors = np.asarray(embedder.embed([texts[rows[0]] for _, rows in batch]), dtype=np.float32)
        store_vectors(catalog, embedder.name, [digest for digest, _ in batch], vectors)
        if matrix.shape[1] == 0:  # nothing was cached: the embedder tells the width
            matrix = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
        if vectors.shape[1] != matrix.shape[1]:
            raise ValueError(
                f"embedder {embedder.name!r} returned {vectors.shape[1]}-dimensional vectors; "
                f"the cache holds {matrix.shape[1]}-dimensional ones for it"
            )
        for (_, rows), vector in zip(batch, vectors, strict=False):
            matrix[rows] = vector
        if progress:
            progress(min(offset + WRITE_BATCH, len(pending)), len(pending))
    if not texts:
        matrix = np.zeros((0, 0), dtype=np.float32)
    stats = EmbeddingStats(requested=len(texts), cached=len(texts) - len(missing), embedded=len(missing))
    return matrix, stats
