"""The arithmetic behind one hit, with this query's real numbers.

Every number is either read from the trace (what the pipeline computed) or recomputed from the
same snapshot the trace came from, and each explanation carries both, so the page can show that
they agree: BM25 term contributions sum to the bm25 stage score, the recomputed cosine equals
the dense stage score, RRF terms sum to the fusion score.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import numpy as np

from store.index_set import Snapshot
from store.retrieval_index import ExplainNotSupported
from workbench.analysis.explain_routes import (
    Bm25Explanation,
    CosineExplanation,
    ServerBm25Explanation,
    explain_bm25,
    explain_bm25_server,
    explain_cosine,
)
from workbench.llm.client import LlmCall
from workbench.retrieval.enhance import QueryVariant
from workbench.retrieval.stages import FUSION, MMR, RERANK, ROUTES
from workbench.retrieval.trace import ChunkView, Trace
from workbench.text import number, operand


def _num(value: float, digits: int = 4) -> str:
    return number(value, digits)


@dataclass(frozen=True)
class StagePosition:
    stage: str
    rank: int | None
    score: float | None


@dataclass(frozen=True)
class FusionTerm:
    route: str
    rank: int | None
    score: float | None
    contribution: float
    weight: float | None = None
    normalized: float | None = None
    formula: str = ""


@dataclass(frozen=True)
class FusionExplanation:
    method: str
    terms: tuple[FusionTerm, ...]
    total: float
    stage_score: float
    stage_rank: int | None
    formula: str


@dataclass(frozen=True)
class MmrExplanation:
    lambda_: float
    relevance: float
    max_similarity: float
    most_similar_to: int | None
    penalty: float
    mmr_score: float
    selected: bool
    stage_rank: int | None
    formula: str


@dataclass(frozen=True)
class RerankExplanation:
    model: str
    score: float
    previous_rank: int | None
    new_rank: int | None
    formula: str
    call: LlmCall | None = None  # rerank.method=llm: the call that scored this chunk


@dataclass(frozen=True)
class QueryStageExplanation:
    """What the query stage searched with: each text, where it came from, which routes used it."""

    method: str
    variants: tuple[QueryVariant, ...]
    calls: tuple[LlmCall, ...]
    notes: tuple[str, ...]
    elapsed_ms: float


@dataclass(frozen=True)
class HitExplanation:
    chunk_id: int
    chunk: ChunkView | None
    positions: tuple[StagePosition, ...]
    bm25: Bm25Explanation | None
    cosine: CosineExplanation | None
    fusion: FusionExplanation | None
    mmr: MmrExplanation | None
    rerank: RerankExplanation | None
    notes: tuple[str, ...] = ()
    bm25_server: ServerBm25Explanation | None = None  # instead of ``bm25`` when the backend cannot break it down
    query: QueryStageExplanation | None = None  # query enhancement, when it was on
    variants: tuple[FusionExplanation, ...] = ()  # per route: the RRF of its query texts' lists


def explain_hit(
    trace: Trace, snapshot: Snapshot, chunk_id: int, query_vector: np.ndarray | None = None
) -> HitExplanation:
    """Explain ``chunk_id`` in ``trace``. ``snapshot`` must be the one the trace was run on;
    ``query_vector`` (the embedded query) enables the cosine part."""
    notes: list[str] = []
    positions = tuple(
        StagePosition(stage.stage, stage.ranked.rank_of(chunk_id), stage.ranked.score_map().get(chunk_id))
        for stage in trace.stages
    )
    bm25_server = None
    try:
        bm25 = explain_bm25(trace, snapshot, chunk_id)
    except ExplainNotSupported as unsupported:
        bm25, bm25_server = None, explain_bm25_server(trace, snapshot, chunk_id, unsupported)
        notes.append(str(unsupported))
    if bm25 is None and bm25_server is None:
        notes.append("the BM25 index does not hold this chunk")
    cosine = None
    if query_vector is None:
        notes.append("cosine similarity needs the query vector (dense retrieval or MMR computes it)")
    else:
        cosine = explain_cosine(trace, snapshot, chunk_id, query_vector)
        if cosine is None:
            notes.append("the chunk has no vector in the dense index")
    fusion = explain_fusion(trace, chunk_id)
    mmr = explain_mmr(trace, chunk_id)
    rerank = explain_rerank(trace, chunk_id)
    notes.extend(_stage_notes(trace, chunk_id, fusion, mmr, rerank))
    variants = tuple(
        found for route in ROUTES if (found := explain_fusion(trace, chunk_id, route, variants=True)) is not None
    )
    return HitExplanation(
        chunk_id,
        trace.chunks.get(chunk_id),
        positions,
        bm25,
        cosine,
        fusion,
        mmr,
        rerank,
        tuple(notes),
        bm25_server,
        explain_query(trace),
        variants,
    )


def explain_query(trace: Trace) -> QueryStageExplanation | None:
    enhanced = trace.enhancement
    if enhanced is None:
        return None
    return QueryStageExplanation(
        enhanced.method, enhanced.variants, enhanced.calls, enhanced.notes, enhanced.elapsed_ms
    )


def _stage_notes(trace: Trace, chunk_id: int, fusion, mmr, rerank) -> list[str]:
    notes = []
    if trace.stage(FUSION) is not None and fusion is None:
        notes.append("fusion did not list this chunk")
    mmr_stage = trace.stage(MMR)
    if mmr_stage is not None and mmr is None:
        detail = mmr_stage.details.get(chunk_id)
        if detail and detail.get("missing_vector"):
            notes.append("MMR had no vector for this chunk, so it kept its place after the selected ones")
        else:
            notes.append(f"the chunk was outside the MMR pool (mmr.pool = {mmr_stage.config.get('pool')})")
    rerank_stage = trace.stage(RERANK)
    if rerank_stage is not None and rerank is None and rerank_stage.ranked.rank_of(chunk_id) is not None:
        if rerank_stage.details:
            notes.append(
                f"not rescored: beyond rerank.top_m = {rerank_stage.config.get('top_m')}, "
                "so it follows the rescored hits in its previous order"
            )
        else:
            notes.append("rerank fell back to the previous order, so there is no cross-encoder score")
    return notes


def explain_fusion(
    trace: Trace, chunk_id: int, stage_name: str = FUSION, variants: bool = False
) -> FusionExplanation | None:
    """Each route's term of the fused score, from the fusion stage's own breakdown.

    With ``variants``, ``stage_name`` is a route whose query texts' lists were fused (multi,
    decompose): each text's term of the route's score.
    """
    stage = trace.stage(stage_name)
    if stage is None or chunk_id not in stage.details:
        return None
    if variants and "variants" not in stage.config:
        return None
    method = stage.config.get("method", "rrf")
    per_route = stage.details[chunk_id]
    terms = []
    for route, entry in per_route.items():
        rank, score, contribution = entry.get("rank"), entry.get("score"), float(entry["contribution"])
        if method == "rrf":
            k = stage.config.get("k", 60)
            formula = (
                f"{route}: 1/(k + rank) = 1/({k} + {rank}) = {_num(contribution, 6)}"
                if rank is not None
                else f"{route}: did not return it, contributes 0"
            )
            terms.append(FusionTerm(route, rank, score, contribution, formula=formula))
        else:
            weight, normalized = float(entry["weight"]), float(entry["normalized"])
            how = _normalization_formula(trace, route, score, normalized, stage.config.get("normalization", "minmax"))
            formula = (
                f"{route}: weight × normalised = {weight:g} × {operand(normalized)} = {_num(contribution)}   ({how})"
            )
            terms.append(FusionTerm(route, rank, score, contribution, weight, normalized, formula))
    total = math.fsum(term.contribution for term in terms)
    stage_score = stage.ranked.score_map()[chunk_id]
    digits = 6 if method == "rrf" else 4
    name = "RRF" if method == "rrf" else "weighted"
    formula = f"{name} = {' + '.join(operand(t.contribution, digits) for t in terms)} = {_num(total, digits)}"
    return FusionExplanation(method, tuple(terms), total, stage_score, stage.ranked.rank_of(chunk_id), formula)


def _normalization_formula(trace: Trace, route: str, score: float | None, normalized: float, method: str) -> str:
    """How the route's raw score became its normalised one, from that route's whole list."""
    route_stage = trace.stage(route)
    scores = [hit.score for hit in route_stage.ranked.hits] if route_stage else []
    if not scores:
        return f"{route} returned nothing"
    if score is None:
        return f"not returned by {route}: credited {route}'s lowest normalised score"
    if method == "zscore":
        mean = statistics.fmean(scores)
        std = statistics.pstdev(scores, mu=mean)
        return f"zscore: ({_num(score)} − mean {operand(mean)}) / std {_num(std)} = {_num(normalized)}"
    low, high = min(scores), max(scores)
    return f"minmax: ({_num(score)} − {operand(low)}) / ({_num(high)} − {operand(low)}) = {_num(normalized)}"


def explain_mmr(trace: Trace, chunk_id: int) -> MmrExplanation | None:
    """λ·relevance − (1 − λ)·max similarity to the chunks selected before it."""
    stage = trace.stage(MMR)
    if stage is None:
        return None
    detail = stage.details.get(chunk_id)
    if not detail or detail.get("missing_vector"):
        return None
    lambda_ = float(stage.config.get("lambda", stage.config.get("lambda_", 0.7)))
    relevance, max_similarity = float(detail["relevance"]), float(detail["max_similarity"])
    penalty, score = float(detail["penalty"]), float(detail["mmr_score"])
    against = detail.get("selected_against")
    versus = "first pick: nothing selected yet" if against is None else f"most similar selected chunk: {against}"
    formula = (
        "MMR = λ·relevance − (1 − λ)·max_similarity\n"
        f"    = {lambda_:g} × {operand(relevance)} − {_num(1.0 - lambda_, 2)} × {operand(max_similarity)}"
        f" = {_num(lambda_ * relevance)} − {operand(penalty)} = {_num(score)}   ({versus})"
    )
    return MmrExplanation(
        lambda_,
        relevance,
        max_similarity,
        against,
        penalty,
        score,
        bool(detail.get("selected")),
        stage.ranked.rank_of(chunk_id),
        formula,
    )


def explain_rerank(trace: Trace, chunk_id: int) -> RerankExplanation | None:
    stage = trace.stage(RERANK)
    if stage is None or chunk_id not in stage.details:
        return None
    detail = stage.details[chunk_id]
    score = float(detail["rerank_score"])
    previous, new = detail.get("previous_rank"), stage.ranked.rank_of(chunk_id)
    if stage.config.get("method") == "llm":
        call = next((c for c in stage.llm_calls if c.label == f"chunk {chunk_id}"), None)
        model = call.model if call else "the LLM"
        cost = ""
        if call is not None:
            cost = f" ({call.describe().split(': ', 1)[1]})"
        formula = (
            f"LLM {model}, pointwise prompt {call.prompt_version if call else ''}: relevance of the chunk to "
            f"the query on 0-10 = {_num(score, 1)}{cost}; rank {previous} before rerank → {new} after"
        )
        return RerankExplanation(f"llm:{model}", score, previous, new, formula, call)
    model = str(stage.config.get("model", ""))
    formula = (
        f"cross-encoder {model}: score(query, chunk text) = {_num(score)}; rank {previous} before rerank → {new} after"
    )
    return RerankExplanation(model, score, previous, new, formula)
