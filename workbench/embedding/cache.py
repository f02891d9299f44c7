"""Embeddings cached in the catalog by (model, content hash): no text is embedded twice.

The vectors' table is ``store.embedding_cache``; this module decides what to embed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from store.catalog import Catalog
from store.embedding_cache import load_vectors, store_vectors
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
    known = load_vectors(catalog, embedder.name, hashes)
    missing: dict[str, str] = {}
    for digest, text in zip(hashes, texts):
        if digest not in known and digest not in missing:
            missing[digest] = text
    pending = list(missing.items())
    for offset in range(0, len(pending), WRITE_BATCH):
        batch = pending[offset : offset + WRITE_BATCH]
        vectors = embedder.embed([text for _, text in batch])
        store_vectors(catalog, embedder.name, [digest for digest, _ in batch], vectors)
        known.update({digest: vector for (digest, _), vector in zip(batch, vectors)})
        if progress:
            progress(min(offset + WRITE_BATCH, len(pending)), len(pending))
    if texts:
        matrix = np.stack([known[digest] for digest in hashes]).astype(np.float32)
    else:
        matrix = np.zeros((0, 0), dtype=np.float32)
    stats = EmbeddingStats(requested=len(texts), cached=len(texts) - len(missing), embedded=len(missing))
    return matrix, stats
