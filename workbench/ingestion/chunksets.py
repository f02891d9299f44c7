"""A layout's chunk set filled in: every document chunked (and its texts embedded through the cache).

A configuration asking for a new chunking or model gets its layout built from the documents the
catalog already holds, without their files: the canonical Markdown is stored.
"""

from __future__ import annotations

from store import documents as stored_documents
from store.catalog import Catalog
from workbench.chunking.preparation import check_enrichment, finish_chunks, split_document
from workbench.embedding import get_embedder
from workbench.ingestion.sources import Progress, ProgressCallback, quiet
from workbench.layout import Layout
from workbench.llm.client import LlmClient

#: documents chunked, embedded and committed together when a chunk set is built or completed
CHUNKSET_BATCH = 64


def ensure_chunkset(
    catalog: Catalog, collection_name: str, layout: Layout, progress: ProgressCallback | None = None
) -> int:
    """Chunk (and embed, through the cache) every document lacking chunks in this layout's chunk set.

    Documents are committed in batches, so an interrupted build resumes where it stopped and
    re-embeds nothing (every batch's vectors are in the cache before its chunks are committed).
    """
    from workbench.embedding.cache import embed_cached

    progress = progress or quiet
    unchunked = stored_documents.documents_lacking_chunks(
        catalog, collection_name, layout.chunkset_key, layout.chunkset_config()
    )
    todo = unchunked.documents
    if not todo:
        return 0
    llm = LlmClient.from_env(catalog) if layout.chunking.enrich != "none" else None
    check_enrichment(layout.chunking, llm)
    embedder = get_embedder(layout.embedding_model)
    for offset in range(0, len(todo), CHUNKSET_BATCH):
        prepared = []
        for position, (doc_id, markdown, page_starts) in enumerate(
            todo[offset : offset + CHUNKSET_BATCH], start=offset + 1
        ):
            progress(Progress("chunk", str(doc_id), position, len(todo)))
            chunks = split_document(markdown or "", layout.chunking, embedder)
            prepared.append(
                (doc_id, finish_chunks(chunks, list(page_starts or []), layout.chunking, embedder, llm=llm))
            )
        texts = [chunk.indexed_text for _, chunks in prepared for chunk in chunks]
        embed_cached(
            catalog,
            embedder,
            texts,
            progress=lambda d, t: progress(Progress("embed", f"{d}/{t} new chunk texts", d, t)),
        )
        stored_documents.add_chunks(catalog, unchunked.collection_id, layout.chunkset_key, prepared)
    return len(todo)
