"""Maximal marginal relevance: diversify a ranked list by penalising near-duplicates.

Greedy selection: at each step pick the candidate maximising
``lambda * relevance - (1 - lambda) * max_similarity_to_already_selected``, where relevance is the
cosine similarity between the query and the chunk. ``lambda = 1`` is pure relevance order,
``lambda = 0`` pure diversity.

When the embedding model does not read the query's language (all-MiniLM-L6-v2 and a Chinese
question), its query cosine is noise: relevance is then the incoming ranking's own score, scaled
to [0, 1] over the pool (the best 1, the worst 0). The chunks' similarities to each other still
come from their vectors: identical text has identical vectors in any language, so a boilerplate
section repeated in every chapter is still picked once (issue 48: with the cosine, MMR dropped the
answer BM25 ranked first and the verdict said "No answer").
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from workbench.retrieval.lazy import LazyMapping
from workbench.retrieval.ranking import RankedList
from workbench.retrieval.stages import MMR


def mmr(
    candidates: RankedList,
    query_vector: np.ndarray | None,
    vectors: Mapping[int, np.ndarray],
    lambda_: float,
    top_k: int,
    pool: int,
    name: str = MMR,
) -> tuple[RankedList, Mapping[int, dict[str, object]]]:
    """Select up to ``top_k`` chunks from the first ``pool`` candidates by MMR.

    The returned list's score is each chunk's MMR score at the moment it was selected. Ties go to
    the candidate ranked earlier in ``candidates``.

    Candidates of the pool without a vector in ``vectors`` cannot be compared, so they are appended
    after the selected chunks, in their original order and with their original scores, and the
    whole list is cut to ``top_k``. ``query_vector`` None: relevance is the candidates' scores,
    scaled (see the module doc).

    The details mapping (built on its first read: evaluation never reads it) has an entry for
    every pool candidate with a vector: ``relevance``, ``max_similarity`` (to the most similar
    chunk selected before it), ``penalty`` (``(1 - lambda) * max_similarity``), ``mmr_score``,
    ``selected_against`` (that most similar chunk's id, or ``None`` for the first pick) and
    ``selected``. For selected chunks the values are those at selection time; for candidates never
    selected they are measured against the final selection, which explains why they lost.
    Candidates without a vector get ``{"selected": False, "missing_vector": True}`` plus whether
    they were kept in the list.
    """
    if not 0.0 <= lambda_ <= 1.0:
        raise ValueError(f"MMR lambda must be in [0, 1] (mmr.lambda), got {lambda_}")
    if top_k < 0 or pool < 0:
        raise ValueError(f"MMR top_k and pool must be >= 0 (retrieval.top_k, mmr.pool), got {top_k} and {pool}")

    ids, doc_ids, scores = candidates.ids[:pool], candidates.doc_ids[:pool], candidates.scores[:pool]
    with_vector = [i for i, chunk_id in enumerate(ids) if chunk_id in vectors]
    without_vector = [i for i, chunk_id in enumerate(ids) if chunk_id not in vectors]
    query = _unit(np.asarray(query_vector, dtype=np.float64)) if query_vector is not None else None
    picks: list[int] = []  # indices into with_vector, in the order picked
    picked_scores: list[float] = []
    relevance = similarity = np.zeros(0)
    if with_vector:
        shape = query.shape if query is not None else np.shape(vectors[ids[with_vector[0]]])
        matrix = _unit_rows(np.vstack([_checked_vector(vectors[ids[i]], ids[i], shape) for i in with_vector]))
        relevance = matrix @ query if query is not None else _scaled([scores[i] for i in with_vector])
        similarity = matrix @ matrix.T
        picks, picked_scores = _select(relevance, similarity, lambda_, min(top_k, len(with_vector)))

    selected_order = [
        (ids[with_vector[j]], doc_ids[with_vector[j]], score) for j, score in zip(picks, picked_scores, strict=True)
    ]
    appended = [(ids[i], doc_ids[i], scores[i]) for i in without_vector]
    ordered = (selected_order + appended)[:top_k]

    def details() -> dict[int, dict[str, object]]:
        chunk_ids = [ids[i] for i in with_vector]
        built = _selection_details(chunk_ids, relevance, similarity, lambda_, picks, picked_scores)
        kept_ids = {chunk_id for chunk_id, _, _ in ordered}
        for i in without_vector:
            built[ids[i]] = {"selected": False, "missing_vector": True, "kept": ids[i] in kept_ids}
        return built

    return RankedList.from_ordered(name, ordered), LazyMapping(details)


def _scaled(scores: list[float]) -> np.ndarray:
    """Scores min-max scaled to [0, 1]; all equal: all 1."""
    values = np.asarray(scores, dtype=np.float64)
    low, high = float(values.min()), float(values.max())
    return (values - low) / (high - low) if high > low else np.ones(len(values))


def _select(relevance: np.ndarray, similarity: np.ndarray, lambda_: float, count: int) -> tuple[list[int], list[float]]:
    """The greedy picks (indices) and each one's MMR score when picked.

    Whole arrays at a time, in place: tune repeats this for every query of every trial, over
    pools of up to hundreds of candidates picked to the end."""
    base = lambda_ * relevance
    max_similarity = np.zeros(len(relevance))  # to the picks so far; 0 before the first pick
    blocked = np.zeros(len(relevance))  # -inf once picked
    mmr_scores = np.empty(len(relevance))
    picks: list[int] = []
    picked_scores: list[float] = []
    for step in range(count):
        np.multiply(max_similarity, -(1.0 - lambda_), out=mmr_scores)
        mmr_scores += base
        mmr_scores += blocked
        # argmax keeps the first of equal scores and candidates are in ranked order, so ties go to
        # the better-ranked candidate.
        best = int(np.argmax(mmr_scores))
        picks.append(best)
        picked_scores.append(float(mmr_scores[best]))
        blocked[best] = -np.inf
        if step == 0:  # the first pick sets every similarity, even a negative one
            max_similarity[:] = similarity[:, best]
        else:
            np.maximum(max_similarity, similarity[:, best], out=max_similarity)
    return picks, picked_scores


def _selection_details(
    chunk_ids: list[int],
    relevance: np.ndarray,
    similarity: np.ndarray,
    lambda_: float,
    picks: list[int],
    picked_scores: list[float],
) -> dict[int, dict[str, object]]:
    """Each candidate's numbers, replayed from the picks: a pick's against the picks before it,
    the others' against them all (the first most similar pick in pick order, as selection kept)."""
    built: dict[int, dict[str, object]] = {}
    order = np.asarray(picks, dtype=np.int64)
    for step, (j, score) in enumerate(zip(picks, picked_scores, strict=True)):
        max_similarity, against = _most_similar(similarity[j, order[:step]], chunk_ids, order)
        built[chunk_ids[j]] = _detail(relevance[j], max_similarity, against, lambda_, score, selected=True)
    for i in sorted(set(range(len(chunk_ids))) - set(picks)):
        max_similarity, against = _most_similar(similarity[i, order], chunk_ids, order)
        score = lambda_ * relevance[i] - (1.0 - lambda_) * max_similarity
        built[chunk_ids[i]] = _detail(relevance[i], max_similarity, against, lambda_, score, selected=False)
    return built


def _most_similar(similarities: np.ndarray, chunk_ids: list[int], order: np.ndarray) -> tuple[float, int | None]:
    if not len(similarities):
        return 0.0, None
    k = int(np.argmax(similarities))
    return float(similarities[k]), chunk_ids[int(order[k])]


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
