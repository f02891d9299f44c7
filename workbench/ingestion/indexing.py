"""Bring a layout's index snapshot in line with the catalog.

The catalog is the source of truth. A snapshot records the catalog generation it reflects; when
they differ (new documents, deletions, a crash between the catalog commit and the index write)
``sync_layout`` rebuilds: the HNSW graph incrementally from the previous snapshot (vectors come
from the embedding cache, nothing is re-embedded), BM25 from the chunk texts.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from store.catalog import Catalog
from store.documents import index_source
from store.index_set import new_version_dir, publish, read_current
from workbench.embedding import get_embedder
from workbench.embedding.cache import embed_cached
from workbench.layout import MILVUS, Layout
from workbench.ingestion.snapshot_files import SyncResult, layout_dir, write_snapshot_tables

__all__ = ["SyncResult", "layout_dir", "sync_layout"]

log = logging.getLogger(__name__)


def sync_layout(catalog: Catalog, home: Path, collection_name: str, layout: Layout,
                rebuild: bool = False) -> SyncResult:
    """``rebuild`` builds a new snapshot even when the current one is up to date (its files are
    in a format this version no longer reads, say; for a Milvus layout: check the collection's
    rows against the catalog and repair them)."""
    if layout.backend == MILVUS:
        from workbench.ingestion.milvus_sync import sync_milvus_layout

        return sync_milvus_layout(catalog, home, collection_name, layout, verify=rebuild)
    started = time.perf_counter()
    target = layout_dir(home, collection_name, layout)
    pointer = read_current(target)
    # A rebuild asks for the rows as if nothing had been indexed yet.
    indexed_generation = None if pointer is None or rebuild else pointer["generation"]
    source = index_source(catalog, collection_name, layout.chunkset_key, indexed_generation)
    if source.up_to_date:
        return SyncResult(layout.key, source.generation, False, -1, 0, 0, time.perf_counter() - started)
    generation, rows, documents = source.generation, source.chunk_rows, source.documents

    from store.dense_index import DenseIndex
    from store.retrieval_index import ChunkBatch, IndexFormatError
    from store.sparse_index import SparseIndex
    from store.text_tokenizer import Bm25Tokenizer

    chunk_ids = np.asarray(rows["id"], dtype=np.int64)
    indexed_texts = [str(t) for t in rows["indexed_text"]]
    building = new_version_dir(target, generation)

    previous = None
    if pointer is not None and (target / pointer["version"] / "dense").exists():
        try:
            previous = DenseIndex.load(target / pointer["version"] / "dense")
        except IndexFormatError as error:
            log.warning("building the vector index afresh: %s", error)
    previous_ids = set(previous.ids().tolist()) if previous is not None else set()
    wanted = set(chunk_ids.tolist())
    removed = previous_ids - wanted
    to_add_mask = np.array([cid not in previous_ids for cid in chunk_ids.tolist()], dtype=bool)

    dense = previous
    if to_add_mask.any() or dense is None:
        embedder = get_embedder(layout.embedding_model)
        vectors, _ = embed_cached(catalog, embedder, [indexed_texts[i] for i in np.flatnonzero(to_add_mask)])
        if dense is None:
            dimension = vectors.shape[1] if len(vectors) else embedder.dimension
            dense = DenseIndex.create(dimension, m=layout.dense_m, ef_construction=layout.dense_ef_construction)
        if len(vectors):
            dense.add(ChunkBatch(chunk_ids[to_add_mask], vectors=vectors))
    if removed:
        dense.delete(np.fromiter(removed, dtype=np.int64))
    dense.save(building / "dense")

    sparse = SparseIndex.from_chunks(ChunkBatch(chunk_ids, texts=indexed_texts), Bm25Tokenizer(),
                                     k1=layout.bm25.k1, b=layout.bm25.b)
    sparse.save(building / "sparse")

    chunk_rows = write_snapshot_tables(building, rows, documents)
    publish(
        target,
        building,
        {
            "generation": generation,
            "collection": collection_name,
            "layout_key": layout.key,
            "layout": layout.to_dict(),
            "chunks": len(chunk_rows),
            "documents": len(documents),
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
    )
    elapsed = time.perf_counter() - started
    log.info("indexed %s/%s: %d chunks (+%d -%d) in %.1f s", collection_name, layout.key, len(chunk_rows),
             int(to_add_mask.sum()), len(removed), elapsed)
    return SyncResult(layout.key, generation, True, len(chunk_rows), int(to_add_mask.sum()), len(removed), elapsed)
