"""Fusing several ranked lists of the same query into one.

Two methods: reciprocal rank fusion (uses ranks only, so score scales never matter) and a
weighted sum of normalised scores. Both are computed from per-run *contributions*, the same
numbers ``fusion_breakdown`` reports, so the explanation the UI shows can never drift from
the score it explains.
"""

from __future__ import annotations

import statistics
from typing import Literal, Sequence

from workbench.config import FusionConfig
from workbench.retrieval.ranking import RankedList

Normalization = Literal["minmax", "zscore"]
NORMALIZATIONS: tuple[str, ...] = ("minmax", "zscore")
FUSION_METHODS: tuple[str, ...] = ("rrf", "weighted")


def rrf(runs: Sequence[RankedList], k: int = 60, name: str = "rrf") -> RankedList:
    """Reciprocal rank fusion: ``score(c) = sum over runs containing c of 1 / (k + rank)``.

    Ties are broken by the chunk's best rank in any single run, then by chunk id.
    """
    contributions = _rrf_contributions(runs, k)
    return _rank_fused(runs, {chunk_id: sum(parts) for chunk_id, parts in contributions.items()}, name)


def normalize(run: RankedList, method: Normalization) -> dict[int, float]:
    """Map each chunk of ``run`` to its normalised score.

    ``minmax`` rescales to [0, 1]; a run whose scores are all equal maps to 1.0 everywhere
    (every hit is as good as the best). ``zscore`` uses the population standard deviation;
    when it is 0 every hit maps to 0.0 (every hit is exactly average).
    """
    if method not in NORMALIZATIONS:
        raise ValueError(f"unknown normalization {method!r}; use one of {', '.join(NORMALIZATIONS)}")
    scores = _first_scores(run)
    if not scores:
        return {}
    values = list(scores.values())
    if method == "minmax":
        low, high = min(values), max(values)
        if high == low:
            return {chunk_id: 1.0 for chunk_id in scores}
        return {chunk_id: (score - low) / (high - low) for chunk_id, score in scores.items()}
    mean = statistics.fmean(values)
    std = statistics.pstdev(values, mu=mean)
    if std == 0.0:
        return {chunk_id: 0.0 for chunk_id in scores}
    return {chunk_id: (score - mean) / std for chunk_id, score in scores.items()}


def weighted(
    runs: Sequence[RankedList],
    weights: Sequence[float],
    normalization: Normalization = "minmax",
    name: str = "weighted",
) -> RankedList:
    """Weighted sum of normalised scores: ``score(c) = sum_i w_i * norm_i(c)``.

    A chunk that run ``i`` did not return contributes that run's *minimum* normalised value
    (0 for minmax, the lowest z-score for zscore). Missing means the run ranked it below
    everything it returned, so the most it can honestly be credited with is the run's worst
    retrieved score. Using a flat 0 would be wrong for zscore: 0 is the run's *mean*, so a chunk
    the run never found would outscore the run's below-average hits.

    Ties are broken by the chunk's best rank in any single run, then by chunk id.
    """
    contributions, _ = _weighted_contributions(runs, weights, normalization)
    return _rank_fused(runs, {chunk_id: sum(parts) for chunk_id, parts in contributions.items()}, name)


def fuse(runs: Sequence[RankedList], config: FusionConfig) -> RankedList:
    """The fusion stage: fuse ``runs`` with the method and parameters of ``config``."""
    if config.method == "rrf":
        return rrf(runs, k=config.k)
    if config.method == "weighted":
        return weighted(runs, config.weights, normalization=config.normalization)
    raise ValueError(f"unknown fusion.method {config.method!r}; use one of {', '.join(FUSION_METHODS)}")


def fusion_breakdown(
    runs: Sequence[RankedList], fused: RankedList, config: FusionConfig
) -> dict[int, dict[str, dict]]:
    """Explain ``fused`` (the output of ``fuse(runs, config)``): each run's share of each score.

    Returns ``{chunk_id: {run_name: entry}}`` in ``fused`` order. Every entry has ``rank`` and
    ``score`` (the chunk's position and raw score in that run, both ``None`` if the run did not
    return it) and ``contribution`` (the run's term in the fused score; the terms of a chunk sum
    to its fused score). Weighted fusion entries also carry ``weight`` and ``normalized``.
    """
    names = [run.name for run in runs]
    if len(set(names)) != len(names):
        raise ValueError(
            f"fusion_breakdown needs distinct run names to key its entries, got {names}; "
            "rename runs with RankedList.renamed"
        )
    normalized: list[dict[int, float]] = []
    if config.method == "rrf":
        contributions = _rrf_contributions(runs, config.k)
    elif config.method == "weighted":
        contributions, normalized = _weighted_contributions(runs, config.weights, config.normalization)
    else:
        raise ValueError(f"unknown fusion.method {config.method!r}; use one of {', '.join(FUSION_METHODS)}")

    ranks = [_first_ranks(run) for run in runs]
    scores = [_first_scores(run) for run in runs]
    breakdown: dict[int, dict[str, dict]] = {}
    for chunk_id in fused.chunk_ids():
        if chunk_id not in contributions:
            raise ValueError(f"chunk {chunk_id} of {fused.name!r} is in none of the runs being explained")
        per_run: dict[str, dict] = {}
        for i, run in enumerate(runs):
            entry = {
                "rank": ranks[i].get(chunk_id),
                "score": scores[i].get(chunk_id),
                "contribution": contributions[chunk_id][i],
            }
            if config.method == "weighted":
                entry["weight"] = float(config.weights[i])
                entry["normalized"] = normalized[i].get(chunk_id, _floor(normalized[i]))
            per_run[run.name] = entry
        breakdown[chunk_id] = per_run
    return breakdown


def _rrf_contributions(runs: Sequence[RankedList], k: int) -> dict[int, list[float]]:
    """Per chunk, each run's ``1 / (k + rank)`` term (0.0 where the run lacks the chunk)."""
    if k < 0:
        raise ValueError(f"RRF constant k must be >= 0 (fusion.k), got {k}")
    contributions: dict[int, list[float]] = {}
    for i, run in enumerate(runs):
        for chunk_id, rank in _first_ranks(run).items():
            contributions.setdefault(chunk_id, [0.0] * len(runs))[i] = 1.0 / (k + rank)
    return contributions


def _weighted_contributions(
    runs: Sequence[RankedList], weights: Sequence[float], normalization: Normalization
) -> tuple[dict[int, list[float]], list[dict[int, float]]]:
    """Per chunk, each run's ``w_i * norm_i(c)`` term, plus each run's normalised scores."""
    if len(weights) != len(runs):
        raise ValueError(
            f"weighted fusion needs one weight per run: got {len(weights)} weights for {len(runs)} runs "
            f"({', '.join(run.name for run in runs)}); set fusion.weights to {len(runs)} comma-separated values"
        )
    normalized = [normalize(run, normalization) for run in runs]
    floors = [_floor(values) for values in normalized]
    all_chunks = dict.fromkeys(chunk_id for run in runs for chunk_id in run.chunk_ids())
    contributions = {
        chunk_id: [
            float(weight) * values.get(chunk_id, floor)
            for weight, values, floor in zip(weights, normalized, floors)
        ]
        for chunk_id in all_chunks
    }
    return contributions, normalized


def _floor(normalized: dict[int, float]) -> float:
    """The value a chunk missing from a run is credited with: the run's minimum.

    An empty run credits nothing, which shifts no chunk relative to another.
    """
    return min(normalized.values(), default=0.0)


def _rank_fused(runs: Sequence[RankedList], fused_scores: dict[int, float], name: str) -> RankedList:
    best_rank: dict[int, int] = {}
    doc_of: dict[int, int] = {}
    for run in runs:
        for hit in run.hits:
            doc_of.setdefault(hit.chunk_id, hit.doc_id)
            best_rank[hit.chunk_id] = min(hit.rank, best_rank.get(hit.chunk_id, hit.rank))
    ordered = sorted(fused_scores, key=lambda chunk_id: (-fused_scores[chunk_id], best_rank[chunk_id], chunk_id))
    return RankedList.from_ordered(name, ((c, doc_of[c], fused_scores[c]) for c in ordered))


def _first_ranks(run: RankedList) -> dict[int, int]:
    """Chunk id -> rank; a chunk listed twice keeps its better (first) rank."""
    ranks: dict[int, int] = {}
    for hit in run.hits:
        ranks.setdefault(hit.chunk_id, hit.rank)
    return ranks


def _first_scores(run: RankedList) -> dict[int, float]:
    scores: dict[int, float] = {}
    for hit in run.hits:
        scores.setdefault(hit.chunk_id, hit.score)
    return scores
