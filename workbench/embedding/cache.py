"""Embeddings cached in the catalog by (model, content hash): no text is embedded twice."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from store.catalog import Catalog
from store.repository import insert_frame
from workbench.embedding.base import Embedder, content_hash

#: how many texts are embedded between two cache writes; a crash loses at most one batch
WRITE_BATCH = 256


@dataclass(frozen=True)
class EmbeddingStats:
    requested: int
    cached: int
    embedded: int


def cached_hashes(catalog: Catalog, model: str, hashes: list[str]) -> set[str]:
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
    import pandas as pd

    frame = pd.DataFrame({"model": model, "content_hash": hashes, "vector": list(vectors.astype(np.float32))})
    with catalog.connect() as con:
        insert_frame(con, "embeddings", frame, or_ignore=True)


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
