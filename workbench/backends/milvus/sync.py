"""Push a layout's chunks from the catalog to its Milvus collection, and repair what a crash left.

The catalog is the source of truth; the Milvus collection holds a copy derived from it. A sync
reads the layout's chunk rows at the catalog's current generation, compares their ids with the
ids the collection holds, upserts the missing rows in batches (vectors come from the embedding
cache: nothing is re-embedded), deletes the orphans, records the generation on the collection
and publishes a snapshot folder (the chunk and document tables, and where the collection
lives) whose ``CURRENT`` pointer carries that generation. A crash anywhere before the publish
leaves ``CURRENT`` at the old generation, so the next sync (an ingest, a query that finds no
snapshot, or ``python -m workbench sync``) compares the ids again and finishes the job.

Milvus Lite keeps BM25 statistics per segment (each flush starts one), so rows pushed on
their own would be scored against their own small statistics. On Lite a sync that changes
anything therefore writes every row again and flushes, which leaves one segment of live rows;
a Milvus server keeps corpus-wide statistics and gets only the difference.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from store.catalog import Catalog
from store.documents import index_source
from store.index_set import new_version_dir, publish, read_current
from store.milvus import (
    CONNECTIONS,
    ChunkRows,
    CollectionSpec,
    MilvusCollection,
    MilvusCollectionMissing,
    MilvusDenseIndex,
    MilvusError,
    is_lite,
    resolve_analyzer,
)
from workbench.backends.milvus.place import MILVUS_DIR, milvus_place, milvus_target
from workbench.backends.snapshot_files import SyncResult, layout_dir, write_snapshot_tables
from workbench.embedding import get_embedder
from workbench.embedding.cache import embed_cached
from workbench.layout import Layout

log = logging.getLogger(__name__)


def sync_milvus_layout(
    catalog: Catalog, home: Path, collection_name: str, layout: Layout, verify: bool = False
) -> SyncResult:
    """Bring the layout's Milvus collection and snapshot in line with the catalog.

    Without ``verify`` a snapshot that reflects the catalog's generation is trusted; with it the
    collection's ids are compared with the catalog's whatever the snapshot says.
    """
    started = time.perf_counter()
    if layout.bm25.stopwords != "en":
        raise MilvusError(
            f"bm25.stopwords={layout.bm25.stopwords} applies to the local BM25 index; a Milvus layout keeps "
            "en (client analysis) or its analyzer's own list (server analysis). Set bm25.stopwords=en, or "
            "index.backend=local"
        )
    target = layout_dir(home, collection_name, layout)
    pointer = read_current(target)
    source = index_source(
        catalog, collection_name, layout.chunkset_key, None if pointer is None or verify else pointer["generation"]
    )
    generation, rows, documents = source.generation, source.chunk_rows, source.documents
    if rows is None or documents is None:  # up to date: the snapshot reflects the catalog
        return SyncResult(layout.key, generation, False, -1, 0, 0, time.perf_counter() - started)
    uri, name = milvus_target(home, collection_name, layout)

    chunk_ids = np.asarray(rows["id"], dtype=np.int64)
    texts = [str(text) for text in rows["indexed_text"]]
    doc_ids = np.asarray(rows["document_id"], dtype=np.int64)
    type_of = {int(document[0]): str(document[3]).lower() for document in documents}
    doc_types = [type_of.get(int(doc_id), "") for doc_id in doc_ids]
    embedder = get_embedder(layout.embedding_model)

    collection = _open_or_create(uri, name, layout, embedder, texts)
    present = collection.ids()
    orphans = np.setdiff1d(present, chunk_ids)
    missing = ~np.isin(chunk_ids, present)
    changed = bool(missing.any() or len(orphans))
    push = np.ones(len(chunk_ids), dtype=bool) if is_lite(uri) and changed else missing
    pushed = 0
    if push.any():
        positions = np.flatnonzero(push)
        vectors, stats = embed_cached(catalog, embedder, [texts[i] for i in positions])
        if stats.embedded:
            log.info("embedded %d chunk texts the cache lacked", stats.embedded)
        batch = ChunkRows(
            chunk_ids[positions],
            doc_ids[positions],
            [doc_types[i] for i in positions],
            [texts[i] for i in positions],
            vectors,
        )
        pushed = collection.upsert(
            batch,
            generation,
            on_batch=lambda done, total: log.info(
                "milvus push %s: %d/%d rows (generation %d)", name, done, total, generation
            ),
        )
    if len(orphans):
        collection.delete(orphans.tolist())
        log.info("milvus push %s: deleted %d rows the catalog no longer has", name, len(orphans))
    if is_lite(uri) and changed:
        collection.flush()
    held = collection.count()
    if held != len(chunk_ids):
        raise MilvusError(
            f"after the push, Milvus collection {name!r} at {uri} holds {held} rows but the catalog "
            f"has {len(chunk_ids)} chunks; run python -m workbench sync -c {collection_name} again"
        )
    collection.record_generation(generation)

    building = new_version_dir(target, generation)
    chunk_count = write_snapshot_tables(building, rows, documents)
    MilvusDenseIndex(collection).save(building / MILVUS_DIR)
    publish(
        target,
        building,
        {
            "generation": generation,
            "collection": collection_name,
            "layout_key": layout.key,
            "layout": layout.to_dict(),
            "chunks": chunk_count,
            "documents": len(documents),
            "milvus_collection": name,
            "pushed": pushed,
            "deleted": int(len(orphans)),
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
    )
    elapsed = time.perf_counter() - started
    log.info(
        "milvus %s/%s: %d chunks in %s (+%d upserted, -%d deleted) in %.1f s",
        collection_name,
        layout.key,
        chunk_count,
        name,
        pushed,
        len(orphans),
        elapsed,
    )
    return SyncResult(layout.key, generation, True, chunk_count, pushed, int(len(orphans)), elapsed)


def _open_or_create(uri: str, name: str, layout: Layout, embedder, texts: list[str]) -> MilvusCollection:
    place = milvus_place(layout)
    try:
        collection = MilvusCollection.open(uri, name, CONNECTIONS)
    except MilvusCollectionMissing:
        spec = CollectionSpec(
            dim=embedder.dimension,
            analysis=place.analysis,
            analyzer=resolve_analyzer(place.analysis, place.analyzer, uri, texts),
            m=layout.dense_m,
            ef_construction=layout.dense_ef_construction,
            k1=layout.bm25.k1,
            b=layout.bm25.b,
        )
        log.info(
            "creating Milvus collection %s at %s (%s analysis, %s tokenizer)", name, uri, spec.analysis, spec.analyzer
        )
        return MilvusCollection.create(uri, name, spec, CONNECTIONS)
    wanted = {
        "dim": embedder.dimension,
        "analysis": place.analysis,
        "m": layout.dense_m,
        "ef_construction": layout.dense_ef_construction,
        "k1": layout.bm25.k1,
        "b": layout.bm25.b,
    }
    found = {key: getattr(collection.spec, key) for key in wanted}
    if found != wanted:
        raise MilvusError(
            f"Milvus collection {name!r} at {uri} was built with {found}, this layout needs {wanted}; "
            "drop that collection (python -m workbench migrate-backend moves a collection) or use "
            "another milvus.collection_prefix"
        )
    return collection


def drop_milvus_layout(home: Path, collection_name: str, layout: Layout) -> bool:
    """Drop the layout's Milvus collection if it exists (the catalog keeps everything to rebuild it)."""
    uri, name = milvus_target(home, collection_name, layout)
    try:
        collection = MilvusCollection.open(uri, name, CONNECTIONS)
    except MilvusCollectionMissing:
        return False
    collection.drop()
    return True
