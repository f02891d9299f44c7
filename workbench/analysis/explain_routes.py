"""The arithmetic of each route's score for one hit: BM25's terms, the dense route's cosine.

Recomputed from the snapshot the trace came from, beside the score the trace recorded, so the
page can show that they agree (the terms sum to the bm25 stage score; the cosine equals the
dense stage score). A Milvus route that analyses text itself cannot be broken down: it gets the
score, the rank and the query terms the chunk holds.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from store.index_set import Snapshot
from store.retrieval_index import ExplainNotSupported
from workbench.retrieval.enhance import AS_TYPED
from workbench.retrieval.stages import BM25, DENSE, variant_stage
from workbench.retrieval.trace import Trace
from workbench.text import number


def _num(value: float, digits: int = 4) -> str:
    return number(value, digits)


def route_text(trace: Trace, route: str) -> tuple[str, str]:
    """(text, stage name) of the list a route's explanation is checked against: the query as typed
    when the route searched with it, else the route's one text (a rewrite, the HyDE passage, the keywords)."""
    enhanced = trace.enhancement
    variants = enhanced.for_route(route) if enhanced else []
    if not variants:
        return trace.query, route
    if len(variants) == 1:
        return variants[0].text, route
    chosen = next((v for v in variants if v.origin == AS_TYPED), variants[0])
    return chosen.text, variant_stage(route, chosen.origin)


@dataclass(frozen=True)
class TermContribution:
    term: str
    query_count: int
    tf: int
    df: int
    idf: float
    doc_len: int
    avg_doc_len: float
    contribution: float
    formula: str
    #: the query's word as typed ("combine") for the indexed term ("combin"); ``term`` when none
    word: str = ""

    @property
    def shown(self) -> str:
        return self.word or self.term


@dataclass(frozen=True)
class Bm25Explanation:
    terms: tuple[TermContribution, ...]
    total: float
    stage_score: float | None  # the bm25 stage's score for the chunk; None when it did not list it
    stage_rank: int | None
    k1: float
    b: float
    num_chunks: int
    formula: str


@dataclass(frozen=True)
class ServerBm25Explanation:
    """BM25 scored by a backend that reports each chunk's total only (Milvus): what can be shown
    instead of a breakdown, with the query's terms as the workbench tokenizer finds them."""

    backend: str
    reason: str  # why there is no breakdown
    stage_score: float | None  # the bm25 stage's score for the chunk; None when it did not list it
    stage_rank: int | None
    matched: tuple[tuple[str, int, int], ...]  # (term, times in the query, times in this chunk)
    unmatched: tuple[str, ...]  # query terms this chunk does not contain
    formula: str


@dataclass(frozen=True)
class CosineExplanation:
    cosine: float
    stage_score: float | None  # the dense stage's score; None when it did not list the chunk
    stage_rank: int | None
    dot: float
    query_norm: float
    chunk_norm: float
    dimension: int
    formula: str


def explain_bm25(trace: Trace, snapshot: Snapshot, chunk_id: int) -> Bm25Explanation | None:
    """Each query term's Lucene BM25 share of the chunk's score (None if the index lacks the chunk)."""
    sparse = snapshot.sparse
    text, stage_name = route_text(trace, BM25)
    try:
        rows = sparse.explain(text, chunk_id).parts
    except KeyError:
        return None
    k1, b, n = float(sparse.k1), float(sparse.b), len(sparse)
    forms = sparse.tokenizer.surface_forms(text)
    terms = []
    for row in rows:
        word = forms.get(row["term"], row["term"])
        terms.append(
            TermContribution(
                term=row["term"],
                query_count=int(row["query_count"]),
                tf=int(row["tf"]),
                df=int(row["df"]),
                idf=float(row["idf"]),
                doc_len=int(row["doc_len"]),
                avg_doc_len=float(row["avg_doc_len"]),
                contribution=float(row["contribution"]),
                formula=_term_formula(row, k1, b, n, word),
                word=word,
            )
        )
    total = math.fsum(term.contribution for term in terms)
    stage = trace.stage(stage_name)
    stage_score = stage.ranked.score_map().get(chunk_id) if stage else None
    stage_rank = stage.ranked.rank_of(chunk_id) if stage else None
    parts = [_num(term.contribution) for term in terms if term.contribution] or ["0"]
    formula = (
        "BM25 = Σ over query terms of  qc × idf × tf·(k1 + 1) / (tf + k1·(1 − b + b·dl/avgdl))\n"
        f"     = {' + '.join(parts)} = {_num(total)}"
    )
    return Bm25Explanation(tuple(terms), total, stage_score, stage_rank, k1, b, n, formula)


def explain_bm25_server(
    trace: Trace, snapshot: Snapshot, chunk_id: int, unsupported: ExplainNotSupported
) -> ServerBm25Explanation | None:
    """The score and rank the backend gave, and which query terms the chunk contains by the
    workbench tokenizer (the terms a client-analysed Milvus collection indexes)."""
    chunk = snapshot.chunks.get(chunk_id)
    if chunk is None:
        return None
    tokenizer = snapshot.sparse.tokenizer
    in_query = Counter(tokenizer.tokenize(route_text(trace, BM25)[0]))
    in_chunk = Counter(tokenizer.tokenize(chunk.indexed_text))
    matched = tuple((term, count, in_chunk[term]) for term, count in in_query.items() if in_chunk[term])
    unmatched = tuple(term for term in in_query if not in_chunk[term])
    stage = trace.stage(BM25)
    stage_score = stage.ranked.score_map().get(chunk_id) if stage else None
    stage_rank = stage.ranked.rank_of(chunk_id) if stage else None
    shown = (
        f"score {_num(stage_score)}, rank {stage_rank}"
        if stage_score is not None
        else "the bm25 stage did not list this chunk"
    )
    terms = ", ".join(f"“{term}” ×{count}" for term, _, count in matched) or "none"
    formula = (
        f"BM25 = Σ over query terms of  qc × idf × tf·(k1 + 1) / (tf + k1·(1 − b + b·dl/avgdl)), computed by "
        f"{unsupported.backend}: {shown}\nquery terms in this chunk (workbench tokenizer): {terms}"
    )
    return ServerBm25Explanation(
        unsupported.backend, str(unsupported), stage_score, stage_rank, matched, unmatched, formula
    )


def _term_formula(row: Mapping[str, Any], k1: float, b: float, num_chunks: int, word: str = "") -> str:
    tf, df = int(row["tf"]), int(row["df"])
    # the query's word, and the form the index holds when stemming changed it
    indexed = row["term"]
    named = f"“{word}” (indexed as “{indexed}”)" if word and word.lower() != indexed else f"“{word or indexed}”"
    if df == 0:
        return f"{named} is in no chunk of the index: contributes 0"
    idf_part = (
        f"idf = ln(1 + (N − df + 0.5)/(df + 0.5)) = ln(1 + ({num_chunks} − {df} + 0.5)/({df} + 0.5)) "
        f"= {_num(row['idf'])}"
    )
    if tf == 0:
        return f"{named} does not occur in this chunk: contributes 0   ({idf_part})"
    return (
        f"{idf_part};  {named}: {row['query_count']} × {_num(row['idf'])} × {tf}·({k1:g} + 1) / "
        f"({tf} + {k1:g}·(1 − {b:g} + {b:g}·{row['doc_len']}/{_num(row['avg_doc_len'], 2)})) "
        f"= {_num(row['contribution'])}"
    )


def explain_cosine(
    trace: Trace, snapshot: Snapshot, chunk_id: int, query_vector: np.ndarray
) -> CosineExplanation | None:
    """The cosine between the query vector and the chunk's stored vector, recomputed."""
    if snapshot.dense is None or chunk_id not in snapshot.dense_ids:
        return None
    query = np.asarray(query_vector, dtype=np.float64).ravel()
    if query.shape != (snapshot.dense.dim,):
        raise ValueError(
            f"the query vector has {query.shape[0]} dimensions but the index {snapshot.dense.dim}; "
            "embed the query with the collection's embedding model"
        )
    explanation = snapshot.dense.explain(query, chunk_id)
    cosine, parts = explanation.score, explanation.parts[0]
    dot, query_norm, chunk_norm = parts["dot"], parts["query_norm"], parts["chunk_norm"]
    stage = trace.stage(route_text(trace, DENSE)[1])
    stage_score = stage.ranked.score_map().get(chunk_id) if stage else None
    stage_rank = stage.ranked.rank_of(chunk_id) if stage else None
    formula = (
        f"cos(q, c) = Σᵢ qᵢ·cᵢ / (‖q‖·‖c‖) over {len(query)} dimensions\n"
        f"          = {_num(dot, 6)} / ({_num(query_norm, 6)} × {_num(chunk_norm, 6)}) = {_num(cosine, 6)}"
    )
    return CosineExplanation(cosine, stage_score, stage_rank, dot, query_norm, chunk_norm, len(query), formula)
