"""The retrieval pipeline: candidates -> fusion -> filters -> MMR -> rerank -> final top k.

``run_pipeline`` is pure over a loaded index snapshot: it reads the snapshot, calls one small
function per stage and records each stage's ranked list, timing and notes in a ``Trace``.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from store.index_set import Snapshot
from workbench.config import WorkbenchConfig, section_dict
from workbench.retrieval.ranking import RankedList
from workbench.retrieval.filters import filter_hits
from workbench.retrieval.fusion import fuse, fusion_breakdown
from workbench.retrieval.mmr import mmr
from workbench.retrieval.rerank import load_reranker, rerank
from workbench.retrieval.trace import ChunkView, StageTrace, Trace

QueryEmbedder = Callable[[str], np.ndarray]


class QueryError(ValueError):
    """The query itself cannot be run (empty text, bad parameters); the message says why."""


def run_pipeline(
    query: str,
    config: WorkbenchConfig,
    snapshot: Snapshot,
    embed_query: QueryEmbedder,
    collection: str,
) -> Trace:
    if not query or not query.strip():
        raise QueryError("the query is empty; type a question or keywords")
    if config.retrieval.top_k < 1:
        raise QueryError(f"retrieval.top_k must be at least 1, got {config.retrieval.top_k}")
    started = time.perf_counter()
    mode = config.retrieval.mode
    stages: list[StageTrace] = []
    notes: list[str] = []
    allowed_ids, filter_note = _allowed_chunks(snapshot, config)
    query_vector: np.ndarray | None = None

    def need_query_vector() -> np.ndarray:
        nonlocal query_vector
        if query_vector is None:
            query_vector = embed_query(query)
        return query_vector

    routes: list[RankedList] = []
    if mode in ("dense", "hybrid"):
        routes.append(_timed(stages, "dense", section_dict(config.dense) | {"candidates": config.retrieval.candidates},
                             lambda: _dense(snapshot, need_query_vector(), config, allowed_ids)))
    if mode in ("bm25", "hybrid"):
        routes.append(_timed(stages, "bm25", section_dict(config.bm25) | {"candidates": config.retrieval.candidates},
                             lambda: _bm25(snapshot, query, config, allowed_ids)))
    if filter_note:
        for stage in stages:
            object.__setattr__(stage, "notes", stage.notes + (filter_note,))

    current = routes[0]
    if mode == "hybrid":
        fusion_started = time.perf_counter()
        fused = fuse(routes, config.fusion).renamed("fusion")
        breakdown = fusion_breakdown(routes, fused, config.fusion)
        stages.append(StageTrace("fusion", section_dict(config.fusion), fused, _ms(fusion_started), (), breakdown))
        current = fused

    if allowed_ids is not None:
        filter_started = time.perf_counter()
        keep_docs = {snapshot.chunks[c].doc_id for c in allowed_ids if c in snapshot.chunks}
        filtered, removed = filter_hits(current, keep_docs, name="filter")
        stages.append(StageTrace("filter", section_dict(config.filters), filtered, _ms(filter_started),
                                 (f"removed {removed} chunks outside the filter",)))
        current = filtered

    if config.mmr.enabled:
        current = _mmr_stage(stages, current, snapshot, need_query_vector(), config)

    if config.rerank.model:
        rerank_started = time.perf_counter()
        texts = {hit.chunk_id: snapshot.chunks[hit.chunk_id].indexed_text for hit in current.hits[: config.rerank.top_m]}
        try:
            reranker = load_reranker(config.rerank.model)
            outcome = rerank(query, current, texts, reranker, config.rerank.top_m, config.rerank.timeout_s)
            ranked, stage_notes = outcome.ranked, outcome.notes
            details = {cid: {"rerank_score": s, "previous_rank": current.rank_of(cid)} for cid, s in outcome.scores.items()}
        except Exception as error:  # loading failures fall back exactly like scoring failures
            ranked = current.renamed("rerank")
            stage_notes = (f"rerank fell back to the previous order: {error}",)
            details = {}
        stages.append(StageTrace("rerank", section_dict(config.rerank), ranked, _ms(rerank_started), stage_notes, details))
        notes.extend(stage_notes)
        current = ranked

    final = current.top(config.retrieval.top_k).renamed("final")
    stages.append(StageTrace("final", {"top_k": config.retrieval.top_k}, final, 0.0))
    for stage in stages:
        notes.extend(n for n in stage.notes if n not in notes)
    return Trace(
        query=query,
        collection=collection,
        config=config.to_dict(),
        stages=tuple(stages),
        chunks=_chunk_views(snapshot, stages),
        total_ms=_ms(started),
        notes=tuple(notes),
    )


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000.0, 3)


def _timed(stages: list[StageTrace], name: str, config: dict, produce: Callable[[], tuple[RankedList, tuple, dict]]) -> RankedList:
    started = time.perf_counter()
    ranked, notes, details = produce()
    stages.append(StageTrace(name, config, ranked, _ms(started), notes, details))
    return ranked


def _allowed_chunks(snapshot: Snapshot, config: WorkbenchConfig) -> tuple[set[int] | None, str]:
    """Chunk ids passing the metadata filters (None = no filter), and a note for the trace."""
    wanted_docs = set(config.filters.documents)
    wanted_types = {t.lower().lstrip(".") for t in config.filters.doc_types}
    if not wanted_docs and not wanted_types:
        return None, ""
    doc_ids = set()
    for doc in snapshot.documents.values():
        if wanted_docs and not ({str(doc.doc_id), doc.source, doc.external_id or ""} & wanted_docs):
            continue
        if wanted_types and doc.doc_type.lower() not in wanted_types:
            continue
        doc_ids.add(doc.doc_id)
    allowed = {cid for cid, chunk in snapshot.chunks.items() if chunk.doc_id in doc_ids}
    return allowed, f"pre-filtered to {len(allowed)} of {len(snapshot.chunks)} chunks ({len(doc_ids)} documents)"


def _dense(snapshot: Snapshot, vector: np.ndarray, config: WorkbenchConfig, allowed: set[int] | None):
    if snapshot.dense is None or len(snapshot.dense) == 0:
        return RankedList("dense"), ("the collection has no vectors yet",), {}
    hits = snapshot.dense.search(vector, config.retrieval.candidates, ef_search=config.dense.ef_search,
                                 exact=config.dense.exact, allowed_ids=allowed)
    scored = [(cid, snapshot.chunks[cid].doc_id, score) for cid, score in hits if cid in snapshot.chunks]
    notes = ("exact (brute-force) cosine search",) if config.dense.exact else ()
    return RankedList.from_scores("dense", scored), notes, {}


def _bm25(snapshot: Snapshot, query: str, config: WorkbenchConfig, allowed: set[int] | None):
    mask = None
    if allowed is not None:
        mask = np.fromiter((int(cid) in allowed for cid in snapshot.sparse.chunk_ids), dtype=bool,
                           count=len(snapshot.sparse))
    hits = snapshot.sparse.search(query, config.retrieval.candidates, allowed=mask)
    scored = [(cid, snapshot.chunks[cid].doc_id, score) for cid, score in hits if cid in snapshot.chunks]
    notes = () if scored else ("no chunk shares a term with the query",)
    return RankedList.from_scores("bm25", scored), notes, {}


def _mmr_stage(stages, current: RankedList, snapshot: Snapshot, query_vector: np.ndarray, config: WorkbenchConfig):
    started = time.perf_counter()
    pool_ids = [hit.chunk_id for hit in current.hits[: config.mmr.pool]]
    vectors = {}
    if snapshot.dense is not None and pool_ids:
        known = [cid for cid in pool_ids if cid in snapshot.dense_ids]
        if known:
            vectors = dict(zip(known, snapshot.dense.vectors_for(np.asarray(known, dtype=np.int64))))
    # MMR picks top_k; the rest of the pool follows so later stages (rerank) still see it
    selected, details = mmr(current, query_vector, vectors, config.mmr.lambda_, top_k=len(pool_ids),
                            pool=config.mmr.pool, name="mmr")
    stages.append(StageTrace("mmr", section_dict(config.mmr), selected, _ms(started),
                             (), details))
    return selected


def _chunk_views(snapshot: Snapshot, stages: list[StageTrace]) -> dict[int, ChunkView]:
    views: dict[int, ChunkView] = {}
    for stage in stages:
        for hit in stage.ranked.hits:
            if hit.chunk_id in views:
                continue
            chunk = snapshot.chunks.get(hit.chunk_id)
            if chunk is None:
                continue
            doc = snapshot.documents.get(chunk.doc_id)
            views[hit.chunk_id] = ChunkView(
                chunk_id=chunk.chunk_id,
                doc_id=chunk.doc_id,
                source=doc.source if doc else "",
                external_id=doc.external_id if doc else None,
                doc_type=doc.doc_type if doc else "",
                title=doc.title if doc else "",
                heading_path=chunk.heading_path,
                page=chunk.page,
                start=chunk.start,
                end=chunk.end,
                text=chunk.text,
                token_count=chunk.token_count,
                over_max_length=chunk.over_max_length,
            )
    return views
