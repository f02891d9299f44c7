"""Local files: an hnswlib graph and a bm25s index in each snapshot folder of the home.

The catalog is the source of truth. A snapshot records the catalog generation it reflects; when
they differ (new documents, deletions, a crash between the catalog commit and the index write)
``sync`` rebuilds: the HNSW graph incrementally from the previous snapshot (vectors come from the
embedding cache, nothing is re-embedded), BM25 from the chunk texts.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Set
from pathlib import Path

import numpy as np

from store.catalog import Catalog
from store.dense_index import DenseIndex
from store.documents import index_source
from store.id_set import IdSet, ids_array
from store.index_set import SnapshotIndexes, new_version_dir, publish, read_current
from store.retrieval_index import ChunkBatch, IndexFormatError
from store.sparse_index import SparseIndex
from store.text_tokenizer import Bm25Tokenizer
from workbench.backends.base import IndexBackend
from workbench.backends.snapshot_files import SyncResult, layout_dir, write_snapshot_tables
from workbench.embedding import get_embedder
from workbench.embedding.cache import embed_cached
from workbench.layout import LOCAL, Layout

log = logging.getLogger(__name__)

DENSE_DIR, SPARSE_DIR = "dense", "sparse"


class LocalBackend(IndexBackend):
    name = LOCAL

    def open_indexes(self, folder: Path, chunk_ids: Set[int]) -> SnapshotIndexes:
        sparse = SparseIndex.load(folder / SPARSE_DIR)
        dense = DenseIndex.load(folder / DENSE_DIR) if (folder / DENSE_DIR).exists() else None
        known = ids_array(chunk_ids)
        # Checked once here, so the query path can rely on it: every indexed chunk has a row.
        for part, index in ((SPARSE_DIR, sparse), (DENSE_DIR, dense)):
            if index is not None and len(np.setdiff1d(index.ids(), known)):
                raise ValueError(
                    f"index snapshot {folder} is inconsistent: its {part} index holds chunks that "
                    f"its chunk table lacks; delete {folder.parent} and the next query rebuilds it from the catalog"
                )
        dense_ids = IdSet(dense.ids()) if dense is not None else IdSet()
        if isinstance(chunk_ids, IdSet) and np.array_equal(dense_ids.array, chunk_ids.array):
            dense_ids = chunk_ids  # the usual case, every chunk embedded: one array for both
        return SnapshotIndexes(self.name, sparse, dense, dense_ids)

    def sync(
        self, catalog: Catalog, home: Path, collection: str, layout: Layout, rebuild: bool = False, verify: bool = False
    ) -> SyncResult:
        """A snapshot is published atomically, so its generation tells whether it is current:
        ``verify`` has nothing more to check."""
        started = time.perf_counter()
        target = layout_dir(home, collection, layout)
        pointer = read_current(target)
        # A rebuild asks for the rows as if nothing had been indexed yet.
        indexed_generation = None if pointer is None or rebuild else pointer["generation"]
        source = index_source(catalog, collection, layout.chunkset_key, indexed_generation)
        generation, rows, documents = source.generation, source.chunk_rows, source.documents
        if rows is None or documents is None:  # up to date: the published index reflects the catalog
            return SyncResult(layout.key, generation, False, -1, 0, 0, time.perf_counter() - started)

        chunk_ids = np.asarray(rows["id"], dtype=np.int64)
        indexed_texts = [str(t) for t in rows["indexed_text"]]
        building = new_version_dir(target, generation)

        previous = None
        if pointer is not None and (target / pointer["version"] / DENSE_DIR).exists():
            try:
                previous = DenseIndex.load(target / pointer["version"] / DENSE_DIR)
            except IndexFormatError as error:
                log.warning("building the vector index afresh: %s", error)
        previous_ids = set(previous.ids().tolist()) if previous is not None else set()
        removed = previous_ids - set(chunk_ids.tolist())
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
        dense.save(building / DENSE_DIR)

        sparse = SparseIndex.from_chunks(
            ChunkBatch(chunk_ids, texts=indexed_texts),
            Bm25Tokenizer(stopwords=layout.bm25.stopwords),
            k1=layout.bm25.k1,
            b=layout.bm25.b,
        )
        sparse.save(building / SPARSE_DIR)

        chunk_count = write_snapshot_tables(building, rows, documents)
        publish(
            target,
            building,
            {
                "generation": generation,
                "collection": collection,
                "layout_key": layout.key,
                "layout": layout.to_dict(),
                "chunks": chunk_count,
                "documents": len(documents),
                "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            },
        )
        elapsed = time.perf_counter() - started
        log.info(
            "indexed %s/%s: %d chunks (+%d -%d) in %.1f s",
            collection,
            layout.key,
            chunk_count,
            int(to_add_mask.sum()),
            len(removed),
            elapsed,
        )
        return SyncResult(layout.key, generation, True, chunk_count, int(to_add_mask.sum()), len(removed), elapsed)
