"""The retrieval pipeline: query -> candidates -> fusion -> filters -> MMR -> rerank -> final top k (repeats folded).

``run_pipeline`` is pure over a loaded index snapshot and reads as one line per stage. Each
stage is a small function of its typed config that returns its ``StageTrace``: the stage's
named ranked list, timing, notes and per-chunk details. What only a front end shows (chunk
views, the fusion breakdown) is built on first read, so evaluation and sweeps, which read ids
and scores, pay for nothing else.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace
from typing import Any

import numpy as np

from store.id_set import IdSet
from store.index_set import Snapshot
from workbench.config import (
    Bm25Config,
    DenseConfig,
    FilterConfig,
    FoldConfig,
    FusionConfig,
    MmrConfig,
    QueryConfig,
    RerankConfig,
    WorkbenchConfig,
    section_dict,
)
from workbench.llm.client import LlmClient
from workbench.retrieval.assessment import DeferredConfidence, RerankScores
from workbench.retrieval.enhance import AS_TYPED, EnhancedQuery, QueryVariant, enhance_query
from workbench.retrieval.filters import ChunkScope, filter_hits, scope_of
from workbench.retrieval.fold import fold
from workbench.retrieval.fusion import fuse
from workbench.retrieval.language_guard import LanguageCheck, check_language
from workbench.retrieval.lazy import LazyMapping
from workbench.retrieval.llm_rerank import LlmReranker
from workbench.retrieval.mmr import mmr
from workbench.retrieval.ranking import RankedList
from workbench.retrieval.rerank import Reranker, load_reranker, rerank
from workbench.retrieval.stages import BM25, DENSE, FILTER, FINAL, FUSION, MMR, RERANK, variant_stage
from workbench.retrieval.trace import SnapshotChunkViews, StageTrace, Trace

QueryEmbedder = Callable[[str], np.ndarray]


def needs_query_vectors(config: WorkbenchConfig) -> bool:
    """Whether a query under ``config`` is embedded: for the dense route, or for MMR (which
    weighs each pick's similarity to the query) on top of BM25 alone."""
    return config.retrieval.mode != "bm25" or config.mmr.enabled


class QueryError(ValueError):
    """The query itself cannot be run (empty text, bad parameters); the message says why."""


class QueryVector:
    """The query's embedding, computed on first use: a BM25-only query never embeds."""

    def __init__(self, embed_query: QueryEmbedder, query: str) -> None:
        self._embed_query, self._query = embed_query, query
        self._vector: np.ndarray | None = None

    def __call__(self) -> np.ndarray:
        if self._vector is None:
            self._vector = self._embed_query(self._query)
        return self._vector


def run_pipeline(
    query: str,
    config: WorkbenchConfig,
    snapshot: Snapshot,
    embed_query: QueryEmbedder,
    collection: str,
    llm: LlmClient | None = None,
) -> Trace:
    """Run ``query``; ``llm`` serves the LLM stages (query enhancement, LLM rerank) when they are on."""
    _check(query, config)
    started = time.perf_counter()
    mode, candidates = config.retrieval.mode, config.retrieval.candidates
    scope = scope_of(snapshot, config.filters)
    vector = QueryVector(embed_query, query)
    enhanced = _query_stage(query, config.query, snapshot, llm)

    language = check_language(query, config.retrieval.language_guard, mode, config.embedding.model, config.rerank.model)

    stages: list[StageTrace] = []
    routes: list[RankedList] = []
    if mode in ("dense", "hybrid"):
        stages += _route_stages(
            DENSE,
            query,
            enhanced,
            config.fusion.k,
            lambda variant, name: _dense_stage(
                snapshot, _vector_for(variant, vector, embed_query), config.dense, candidates, scope, language, name
            ),
        )
        routes.append(stages[-1].ranked)
    if mode in ("bm25", "hybrid"):
        stages += _route_stages(
            BM25,
            query,
            enhanced,
            config.fusion.k,
            lambda variant, name: _bm25_stage(snapshot, variant.text, config.bm25, candidates, scope, name),
        )
        routes.append(stages[-1].ranked)
    if mode == "hybrid":
        stages.append(_fusion_stage(routes, config.fusion, language))
    if scope is not None:
        stages.append(_filter_stage(stages[-1].ranked, scope, config.filters))
    if config.mmr.enabled:
        stages.append(_mmr_stage(stages[-1].ranked, snapshot, vector, config.mmr, language))
    if reranks(config.rerank):
        stages.append(_rerank_stage(query, stages[-1].ranked, snapshot, config.rerank, llm))
    stages.append(_final_stage(stages[-1].ranked, config.retrieval.top_k, snapshot, config.fold))

    return Trace(
        query=query,
        collection=collection,
        config=LazyMapping(config.to_dict),
        stages=tuple(stages),
        chunks=SnapshotChunkViews(snapshot, (stage.ranked for stage in stages)),
        total_ms=_ms(started),
        notes=tuple(dict.fromkeys((*(enhanced.notes if enhanced else ()), *_distinct_notes(stages)))),
        language=language,
        confidence_source=_deferred_confidence(query, stages, snapshot, config, language, scope),
        enhancement=enhanced,
    )


def reranks(config: RerankConfig) -> bool:
    """Whether the rerank stage runs: the LLM method, or a cross-encoder model named."""
    return config.method == "llm" or bool(config.model.strip())


def _check(query: str, config: WorkbenchConfig) -> None:
    if not query or not query.strip():
        raise QueryError("the query is empty; type a question or keywords")
    if config.retrieval.top_k < 1:
        raise QueryError(f"retrieval.top_k must be at least 1, got {config.retrieval.top_k}")
    if config.retrieval.mode not in ("dense", "bm25", "hybrid"):
        raise QueryError(f"unknown retrieval.mode {config.retrieval.mode!r}; use dense, bm25 or hybrid")


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000.0, 3)


def _distinct_notes(stages: Sequence[StageTrace]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(note for stage in stages for note in stage.notes))


# -- stages -------------------------------------------------------------------------------------


def _query_stage(query: str, config: QueryConfig, snapshot: Snapshot, llm: LlmClient | None) -> EnhancedQuery | None:
    """Query enhancement; None when it is off (the routes then search with the query as typed)."""
    if config.enhance == "none":
        return None
    started = time.perf_counter()
    # the keywords option needs the BM25 term statistics; a server-side BM25 (Milvus) keeps them to itself
    idf_of = (lambda word: _idf_of(snapshot, word)) if snapshot.sparse.has_term_statistics else None
    enhanced = enhance_query(query, config, llm, idf_of=idf_of)
    return replace(enhanced, elapsed_ms=_ms(started))


def _idf_of(snapshot: Snapshot, word: str) -> float:
    """A word's BM25 idf in the collection: its most specific token's (0 when no chunk has it)."""
    return max((snapshot.sparse.term_idf(token) for token in snapshot.sparse.tokenizer.tokenize(word)), default=0.0)


def _vector_for(
    variant: QueryVariant, query_vector: QueryVector, embed_query: QueryEmbedder
) -> Callable[[], np.ndarray]:
    if variant.origin == AS_TYPED:
        return query_vector
    return QueryVector(embed_query, variant.text)


def _route_stages(
    route: str,
    query: str,
    enhanced: EnhancedQuery | None,
    rrf_k: int,
    search: Callable[[QueryVariant, str], StageTrace],
) -> list[StageTrace]:
    """One route over the query's variants: one stage per variant and, with several, their RRF as
    the route's stage (named after the route, so everything downstream reads it unchanged)."""
    variants = enhanced.for_route(route) if enhanced else [QueryVariant(query, AS_TYPED)]
    if len(variants) == 1:
        stage = search(variants[0], route)
        if variants[0].origin == AS_TYPED:
            return [stage]
        note = f"{route} searched with the {variants[0].origin} text, not the query as typed"
        return [replace(stage, notes=(note, *stage.notes))]
    started = time.perf_counter()
    per_variant = [search(variant, variant_stage(route, variant.origin)) for variant in variants]
    fusion = fuse([stage.ranked for stage in per_variant], FusionConfig(method="rrf", k=rrf_k), name=route)
    merged = StageTrace(
        route,
        {"method": "rrf", "k": rrf_k, "variants": [v.text for v in variants]},
        fusion.ranked,
        _ms(started),
        (f"{route}: RRF of the lists of {len(variants)} query texts",),
        fusion.breakdown,
    )
    return [*per_variant, merged]


def _dense_stage(
    snapshot: Snapshot,
    vector: Callable[[], np.ndarray],
    config: DenseConfig,
    candidates: int,
    scope: ChunkScope | None,
    language: LanguageCheck,
    name: str = DENSE,
) -> StageTrace:
    started = time.perf_counter()
    # in dense mode the guard cannot leave the only route out; it says what to expect instead
    notes = [language.note] if language.note and language.dense_votes else []
    if snapshot.dense is None or len(snapshot.dense) == 0:
        ranked = RankedList(name)
        notes.append("the collection has no vectors yet")
    else:
        hits = snapshot.dense.search(
            vector(), candidates, _allowed(scope), ef_search=config.ef_search, exact=config.exact
        )
        ranked = _ranked(name, hits, snapshot)
        if config.exact:
            notes.append(snapshot.dense.exact_search_note)
    return _route_trace(name, section_dict(config), candidates, ranked, started, notes, scope)


def _bm25_stage(
    snapshot: Snapshot, query: str, config: Bm25Config, candidates: int, scope: ChunkScope | None, name: str = BM25
) -> StageTrace:
    started = time.perf_counter()
    ranked = _ranked(name, snapshot.sparse.search(query, candidates, _allowed(scope)), snapshot)
    notes = [] if len(ranked) else ["no chunk shares a term with the query"]
    return _route_trace(name, section_dict(config), candidates, ranked, started, notes, scope)


def _fusion_stage(routes: list[RankedList], config: FusionConfig, language: LanguageCheck) -> StageTrace:
    """Fuse the routes that vote. A dense route whose model cannot read the query does not (the
    language guard); its list stays in the trace for learning, only its vote goes."""
    started = time.perf_counter()
    voting, fusion_config = routes, config
    if not language.dense_votes:
        voting = [route for route in routes if route.name != DENSE]
        # weights follow the routes, dense first: the remaining routes keep their own weights
        fusion_config = replace(config, weights=tuple(config.weights[len(routes) - len(voting) :]))
    fusion = fuse(voting, fusion_config)
    notes = (language.note,) if language.note else ()
    return StageTrace(FUSION, section_dict(config), fusion.ranked, _ms(started), notes, fusion.breakdown)


def _filter_stage(current: RankedList, scope: ChunkScope, config: FilterConfig) -> StageTrace:
    started = time.perf_counter()
    filtered, removed = filter_hits(current, scope.doc_ids, name=FILTER)
    return StageTrace(
        FILTER, section_dict(config), filtered, _ms(started), (f"removed {removed} chunks outside the filter",)
    )


def _mmr_stage(
    current: RankedList, snapshot: Snapshot, vector: QueryVector, config: MmrConfig, language: LanguageCheck
) -> StageTrace:
    started = time.perf_counter()
    # a model that does not read the query ranks it at random: MMR's relevance is then the ranking's own score
    unread = language.embedding.covered is False
    notes = (
        (
            f"MMR relevance is the ranking's score (scaled to 0-1), not the query's cosine: "
            f"{language.embedding.model} does not read {language.embedding.text_language}",
        )
        if unread
        else ()
    )
    pool_ids = list(current.ids[: config.pool])
    vectors = {}
    if snapshot.dense is not None and pool_ids:
        known = _with_vectors(pool_ids, snapshot.dense_ids)
        if known:
            vectors = dict(zip(known, snapshot.dense.vectors_for(np.asarray(known, dtype=np.int64)), strict=False))
    # MMR picks top_k; the rest of the pool follows so later stages (rerank) still see it
    selected, details = mmr(
        current,
        None if unread else vector(),
        vectors,
        config.lambda_,
        top_k=len(pool_ids),
        pool=config.pool,
        name=MMR,
    )
    return StageTrace(MMR, section_dict(config), selected, _ms(started), notes, details)


def _with_vectors(chunk_ids: list[int], dense_ids: AbstractSet[int]) -> list[int]:
    """The chunks the dense index holds, in order (an ``IdSet`` looks them all up at once)."""
    if isinstance(dense_ids, IdSet):
        found = dense_ids.positions(chunk_ids).tolist()
        return [chunk_id for chunk_id, at in zip(chunk_ids, found, strict=True) if at >= 0]
    return [chunk_id for chunk_id in chunk_ids if chunk_id in dense_ids]


def _rerank_stage(
    query: str, current: RankedList, snapshot: Snapshot, config: RerankConfig, llm: LlmClient | None
) -> StageTrace:
    started = time.perf_counter()
    head = current.ids[: config.top_m]
    texts = {cid: record.indexed_text for cid, record in snapshot.chunks.records(head).items()}
    reranker: Reranker | None = None
    try:
        if config.method == "llm":
            if llm is None or not llm.available:
                reason = (
                    llm.unavailable_reason("rerank.method=llm") if llm else "rerank.method=llm needs an LLM endpoint"
                )
                return StageTrace(
                    RERANK,
                    section_dict(config),
                    current.renamed(RERANK),
                    _ms(started),
                    (f"{reason}; kept the previous order",),
                )
            reranker = LlmReranker(llm, config.timeout_s, labels=[f"chunk {cid}" for cid in head])
        else:
            reranker = load_reranker(config.model, config.runtime, config.precision)
        outcome = rerank(query, current, texts, reranker, config.top_m, config.timeout_s)
        ranked, notes = outcome.ranked, outcome.notes
        details = {cid: {"rerank_score": s, "previous_rank": current.rank_of(cid)} for cid, s in outcome.scores.items()}
        # what the scores are (logits or probabilities), for the confidence verdict
        stage_config = section_dict(config) | (
            {"score_kind": reranker.score_kind, "scored_by": reranker.scored_by}
            if outcome.scores and reranker is not None  # scores come only from a reranker
            else {}
        )
    except Exception as error:  # loading failures fall back exactly like scoring failures
        ranked = current.renamed(RERANK)
        notes = (f"rerank fell back to the previous order: {error}",)
        details = {}
        stage_config = section_dict(config)
    calls = tuple(reranker.calls) if isinstance(reranker, LlmReranker) else ()
    return StageTrace(RERANK, stage_config, ranked, _ms(started), notes, details, calls)


def _final_stage(current: RankedList, top_k: int, snapshot: Snapshot, config: FoldConfig) -> StageTrace:
    """The first ``top_k`` hits; with ``fold.enabled`` near-identical passages take one place
    (``workbench.retrieval.fold``), the details listing each one's other places."""
    stage_config = {"top_k": top_k, "fold": section_dict(config)}
    if not config.enabled:
        return StageTrace(FINAL, stage_config, current.top(top_k).renamed(FINAL), 0.0)
    started = time.perf_counter()
    folding = fold(current, snapshot.chunks.text_of, top_k, config.threshold, name=FINAL)
    repeats = sum(len(places) for places in folding.places.values())
    notes = (
        (f"folded {repeats} near-identical chunks into {len(folding.places)} hits that list their other places",)
        if repeats
        else ()
    )
    # eager and small: evaluation reads which places each hit stands for (``workbench.evaluation.stages``)
    return StageTrace(
        FINAL, stage_config, folding.ranked.top(top_k), _ms(started), notes, folding.details() if repeats else {}
    )


# -- helpers ------------------------------------------------------------------------------------


def _deferred_confidence(
    query: str,
    stages: Sequence[StageTrace],
    snapshot: Snapshot,
    config: WorkbenchConfig,
    language: LanguageCheck,
    scope: ChunkScope | None,
) -> DeferredConfidence:
    """The verdict's inputs, measured when someone reads ``Trace.confidence``."""
    by_name = {stage.stage: stage for stage in stages}
    # cosines of the query as typed: with several query texts the "dense" list holds RRF sums
    dense_stage = by_name.get(variant_stage(DENSE, AS_TYPED)) or by_name.get(DENSE)
    dense = dense_stage.ranked if dense_stage is not None else None
    rerank_stage = by_name.get(RERANK)
    reranked = None
    if rerank_stage is not None and rerank_stage.details:
        reranked = RerankScores(
            {cid: detail["rerank_score"] for cid, detail in rerank_stage.details.items()},
            rerank_stage.config.get("score_kind", "logit"),
            f"llm:{llm_model(rerank_stage)}" if config.rerank.method == "llm" else config.rerank.model,
        )
    searched = len(scope.chunk_ids) if scope is not None else len(snapshot.dense_ids)
    return DeferredConfidence(
        query, stages[-1].ranked, dense, reranked, snapshot, config.confidence, language, searched
    )


def llm_model(stage: StageTrace) -> str:
    return stage.llm_calls[0].model if stage.llm_calls else "the LLM"


def _allowed(scope: ChunkScope | None) -> frozenset[int] | None:
    return None if scope is None else scope.chunk_ids


def _ranked(name: str, hits: list[tuple[int, float]], snapshot: Snapshot) -> RankedList:
    """An index's (chunk id, score) pairs, best first, as a ranked list with each chunk's document."""
    if not hits:
        return RankedList(name)
    ids, scores = zip(*hits, strict=False)
    # Every indexed chunk has a row in the snapshot's tables (checked when it loads).
    return RankedList(name, ids, tuple(snapshot.chunks.doc_ids_of(ids).tolist()), scores)


def _route_trace(
    name: str,
    config: dict[str, Any],
    candidates: int,
    ranked: RankedList,
    started: float,
    notes: list[str],
    scope: ChunkScope | None,
) -> StageTrace:
    if scope is not None:
        notes.append(scope.note)
    return StageTrace(name, config | {"candidates": candidates}, ranked, _ms(started), tuple(notes))
