"""Maximal marginal relevance: diversify a ranked list by penalising near-duplicates.

Greedy selection: at each step pick the candidate maximising
``lambda * relevance - (1 - lambda) * max_similarity_to_already_selected``, where relevance is the
cosine similarity between the query and the chunk. ``lambda = 1`` is pure relevance order,
``lambda = 0`` pure diversity.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from workbench.retrieval.ranking import Hit, RankedList
from workbench.retrieval.stages import MMR


def mmr(
    candidates: RankedList,
    query_vector: np.ndarray,
    vectors: Mapping[int, np.ndarray],
    lambda_: float,
    top_k: int,
    pool: int,
    name: str = MMR,
) -> tuple[RankedList, dict[int, dict[str, object]]]:
    """Select up to ``top_k`` chunks from the first ``pool`` candidates by MMR.

    The returned list's score is each chunk's MMR score at the moment it was selected. Ties go to
    the candidate ranked earlier in ``candidates``.

    Candidates of the pool without a vector in ``vectors`` cannot be compared, so they are appended
    after the selected chunks, in their original order and with their original scores, and the
    whole list is cut to ``top_k``.

    The details dict has an entry for every pool candidate with a vector: ``relevance``,
    ``max_similarity`` (to the most similar chunk selected before it), ``penalty`` (``(1 - lambda)
    * max_similarity``), ``mmr_score``, ``selected_against`` (that most similar chunk's id, or
    ``None`` for the first pick) and ``selected``. For selected chunks the values are those at
    selection time; for candidates never selected they are measured against the final selection,
    which explains why they lost. Candidates without a vector get ``{"selected": False,
    "missing_vector": True}`` plus whether they were kept in the list.
    """
    if not 0.0 <= lambda_ <= 1.0:
        raise ValueError(f"MMR lambda must be in [0, 1] (mmr.lambda), got {lambda_}")
    if top_k < 0 or pool < 0:
        raise ValueError(f"MMR top_k and pool must be >= 0 (retrieval.top_k, mmr.pool), got {top_k} and {pool}")

    pool_hits = candidates.hits[:pool]
    with_vector = [hit for hit in pool_hits if hit.chunk_id in vectors]
    without_vector = [hit for hit in pool_hits if hit.chunk_id not in vectors]

    query = _unit(np.asarray(query_vector, dtype=np.float64))
    details: dict[int, dict[str, object]] = {}
    selected_order: list[tuple[int, int, float]] = []
    if with_vector:
        matrix = _unit_rows(
            np.vstack([_checked_vector(vectors[hit.chunk_id], hit.chunk_id, query.shape) for hit in with_vector])
        )
        relevance = matrix @ query
        similarity = matrix @ matrix.T
        # Running maximum similarity of every candidate to the selection so far, and to whom (an
        # index into with_vector; -1 before the first pick). Whole arrays at a time: a pool of 50
        # picked to the end is 50 steps over 50 candidates per query, which tune repeats for
        # hundreds of queries per trial.
        max_similarity = np.zeros(len(with_vector))
        most_similar = np.full(len(with_vector), -1, dtype=np.int64)
        taken = np.zeros(len(with_vector), dtype=bool)
        while len(selected_order) < min(top_k, len(with_vector)):
            mmr_scores = lambda_ * relevance - (1.0 - lambda_) * max_similarity
            # argmax keeps the first of equal scores and candidates are in ranked order,
            # so ties go to the better-ranked candidate.
            best = int(np.argmax(np.where(taken, -np.inf, mmr_scores)))
            hit = with_vector[best]
            details[hit.chunk_id] = _detail(
                relevance[best],
                max_similarity[best],
                _chunk_of(with_vector, most_similar[best]),
                lambda_,
                mmr_scores[best],
                selected=True,
            )
            selected_order.append((hit.chunk_id, hit.doc_id, float(mmr_scores[best])))
            taken[best] = True
            column = similarity[:, best]
            raised = ~taken & ((most_similar < 0) | (column > max_similarity))
            max_similarity[raised] = column[raised]
            most_similar[raised] = best
        for i in np.flatnonzero(~taken):
            score = lambda_ * relevance[i] - (1.0 - lambda_) * max_similarity[i]
            details[with_vector[i].chunk_id] = _detail(
                relevance[i],
                max_similarity[i],
                _chunk_of(with_vector, most_similar[i]),
                lambda_,
                score,
                selected=False,
            )

    appended = [(hit.chunk_id, hit.doc_id, hit.score) for hit in without_vector]
    ordered = (selected_order + appended)[:top_k]
    kept_ids = {chunk_id for chunk_id, _, _ in ordered}
    for hit in without_vector:
        details[hit.chunk_id] = {"selected": False, "missing_vector": True, "kept": hit.chunk_id in kept_ids}
    return RankedList.from_ordered(name, ordered), details


def _chunk_of(hits: list[Hit], index: np.int64 | int) -> int | None:
    return hits[int(index)].chunk_id if index >= 0 else None


def _detail(
    relevance: float, max_similarity: float, against: int | None, lambda_: float, mmr_score: float, selected: bool
) -> dict[str, object]:
    return {
        "relevance": float(relevance),
        "max_similarity": float(max_similarity),
        "penalty": (1.0 - lambda_) * float(max_similarity),
        "mmr_score": float(mmr_score),
        "selected_against": against,
        "selected": selected,
    }


def _checked_vector(vector: np.ndarray, chunk_id: int, query_shape: tuple[int, ...]) -> np.ndarray:
    array = np.asarray(vector, dtype=np.float64)
    if array.shape != query_shape:
        raise ValueError(
            f"vector of chunk {chunk_id} has shape {array.shape} but the query vector has {query_shape}; "
            "both must come from the same embedding model"
        )
    return array


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    # _unit for every row at once (a zero row stays zero)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: np.ndarray = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0.0)
    return unit


def _unit(vector: np.ndarray) -> np.ndarray:
    # Re-normalising makes relevance a true cosine even if a caller passes raw embeddings;
    # a zero vector stays zero (similar to nothing) instead of dividing by zero.
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0.0 else vector
