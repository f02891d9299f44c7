"""Fusing several ranked lists of the same query into one.

Two methods, registered in ``FUSION_METHODS`` (whose names are ``fusion.method``'s choices):
reciprocal rank fusion (uses ranks only, so score scales never matter) and a weighted sum of
normalised scores. Both add up per-run *contributions*; ``fuse`` computes them
once and hands back the fused list together with the per-chunk breakdown the UI shows, so the
explanation can never drift from the score it explains.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, NotRequired, TypedDict, cast

import numpy as np

from workbench.config import FusionConfig
from workbench.plugins import Registry
from workbench.retrieval.lazy import LazyMapping
from workbench.retrieval.ranking import RankedList
from workbench.retrieval.stages import FUSION

Normalization = Literal["minmax", "zscore"]
NORMALIZATIONS: tuple[str, ...] = ("minmax", "zscore")


class FusionEntry(TypedDict):
    """One run's part in one chunk's fused score (see ``Fusion``)."""

    rank: int | None
    score: float | None
    contribution: float
    weight: NotRequired[float]  # weighted fusion only
    normalized: NotRequired[float]  # weighted fusion only


@dataclass(frozen=True)
class Fusion:
    """The fused list and each run's share of each fused score.

    ``breakdown`` is ``{chunk_id: {run_name: entry}}`` in fused order. Every entry has ``rank``
    and ``score`` (the chunk's position and raw score in that run, both ``None`` if the run did
    not return it) and ``contribution`` (the run's term in the fused score; the terms of a chunk
    sum to its fused score). Weighted fusion entries also carry ``weight`` and ``normalized``.
    It is formatted on first read from the numbers the fusion itself used.
    """

    ranked: RankedList
    breakdown: Mapping[int, dict[str, FusionEntry]]


def rrf(runs: Sequence[RankedList], k: int = 60, name: str = "rrf") -> RankedList:
    """Reciprocal rank fusion: ``score(c) = sum over runs containing c of 1 / (k + rank)``.

    Ties are broken by the chunk's best rank in any single run, then by chunk id.
    """
    return _rrf(runs, k, name).ranked


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
    mean = math.fsum(values) / len(values)
    # statistics.pstdev is exact through fractions, a hundred times slower, for no digit that ranks
    std = math.sqrt(math.fsum((value - mean) ** 2 for value in values) / len(values))
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
    return _weighted(runs, weights, normalization, name).ranked


def fuse(runs: Sequence[RankedList], config: FusionConfig, name: str = FUSION) -> Fusion:
    """The fusion stage: fuse ``runs`` with the method and parameters of ``config``.

    The runs need distinct names: the breakdown is keyed by them.
    """
    names = [run.name for run in runs]
    if len(set(names)) != len(names):
        raise ValueError(
            f"fusion needs distinct run names to key its breakdown, got {names}; rename runs with RankedList.renamed"
        )
    return FUSION_METHODS.get(config.method)(runs, config, name)


def _rrf(runs: Sequence[RankedList], k: int, name: str) -> Fusion:
    """Per chunk, each run's ``1 / (k + rank)`` term (0.0 where the run lacks the chunk), summed.

    In numpy, as this is the hot path of every hybrid query; the scores are the same floats as
    Python's ``sum`` over each chunk's terms in run order.
    """
    if k < 0:
        raise ValueError(f"RRF constant k must be >= 0 (fusion.k), got {k}")
    if not any(len(run) for run in runs):
        return Fusion(RankedList(name), {})
    run_ids, run_ranks, run_docs = [], [], []
    for run in runs:
        ids = np.fromiter(run.ids, dtype=np.int64, count=len(run.ids))
        positions = np.arange(len(ids))
        if len(set(run.ids)) < len(ids):  # a chunk listed twice keeps its first rank
            positions = np.sort(np.unique(ids, return_index=True)[1])
        run_ids.append(ids[positions])
        run_ranks.append(positions + 1)
        run_docs.append(np.fromiter(run.doc_ids, dtype=np.int64, count=len(run.doc_ids))[positions])
    ranks = np.concatenate(run_ranks)
    terms = 1.0 / (k + ranks)
    # Group the entries of all runs by chunk (a stable sort keeps each chunk's in run order).
    all_ids = np.concatenate(run_ids)
    by_chunk = np.argsort(all_ids, kind="stable")
    grouped_ids = all_ids[by_chunk]
    is_start = np.concatenate(([True], grouped_ids[1:] != grouped_ids[:-1]))
    starts = np.flatnonzero(is_start)
    chunk_ids = grouped_ids[starts]
    inverse = np.empty(len(all_ids), dtype=np.int64)
    inverse[by_chunk] = np.cumsum(is_start) - 1
    # bincount adds in input order, run by run from 0.0: the float Python's sum() of the terms gives.
    scores = np.bincount(inverse, weights=terms, minlength=len(chunk_ids))
    best_rank = np.minimum.reduceat(ranks[by_chunk], starts)
    doc_ids = np.concatenate(run_docs)[by_chunk[starts]]  # from the first run listing the chunk
    # Best fused score first; ties go to the better best single-run rank, then the lower id.
    order = np.lexsort((chunk_ids, best_rank, -scores))
    ranked = RankedList(
        name, tuple(chunk_ids[order].tolist()), tuple(doc_ids[order].tolist()), tuple(scores[order].tolist())
    )

    def contributions() -> dict[int, list[float]]:
        run_of = np.repeat(np.arange(len(runs)), [len(ids) for ids in run_ids])
        matrix = np.zeros((len(chunk_ids), len(runs)))
        matrix[inverse, run_of] = terms
        return dict(zip(chunk_ids[order].tolist(), matrix[order].tolist(), strict=False))

    return Fusion(ranked, LazyMapping(lambda: _breakdown(runs, ranked, contributions())))


def _weighted(runs: Sequence[RankedList], weights: Sequence[float], normalization: Normalization, name: str) -> Fusion:
    """Per chunk, each run's ``w_i * norm_i(c)`` term, summed."""
    if len(weights) != len(runs):
        raise ValueError(
            f"weighted fusion needs one weight per run: got {len(weights)} weights for {len(runs)} runs "
            f"({', '.join(run.name for run in runs)}); set fusion.weights to {len(runs)} comma-separated values"
        )
    normalized = [normalize(run, normalization) for run in runs]
    weighting = [(float(weight), values, _floor(values)) for weight, values in zip(weights, normalized, strict=False)]
    all_chunks = dict.fromkeys(chunk_id for run in runs for chunk_id in run.ids)

    def contributions() -> dict[int, list[float]]:
        return {
            chunk_id: [weight * values.get(chunk_id, floor) for weight, values, floor in weighting]
            for chunk_id in all_chunks
        }

    # summed run by run, in the order the breakdown lists the terms (the same floating-point sum)
    fused = dict.fromkeys(all_chunks, 0.0)
    for weight, values, floor in weighting:
        for chunk_id in all_chunks:
            fused[chunk_id] += weight * values.get(chunk_id, floor)
    ranked = _rank_fused(runs, fused, name)
    return Fusion(ranked, LazyMapping(lambda: _breakdown(runs, ranked, contributions(), weighting)))


def _breakdown(
    runs: Sequence[RankedList],
    fused: RankedList,
    contributions: dict[int, list[float]],
    weighting: list[tuple[float, dict[int, float], float]] | None = None,
) -> dict[int, dict[str, FusionEntry]]:
    """The fusion's own numbers, per chunk and run, in the shape ``Fusion.breakdown`` documents."""
    ranks = [_first_ranks(run) for run in runs]
    scores = [_first_scores(run) for run in runs]
    breakdown: dict[int, dict[str, FusionEntry]] = {}
    for chunk_id in fused.ids:
        per_run: dict[str, FusionEntry] = {}
        for i, run in enumerate(runs):
            entry: FusionEntry = {
                "rank": ranks[i].get(chunk_id),
                "score": scores[i].get(chunk_id),
                "contribution": contributions[chunk_id][i],
            }
            if weighting is not None:
                weight, normalized, floor = weighting[i]
                entry["weight"] = weight
                entry["normalized"] = normalized.get(chunk_id, floor)
            per_run[run.name] = entry
        breakdown[chunk_id] = per_run
    return breakdown


def _floor(normalized: dict[int, float]) -> float:
    """The value a chunk missing from a run is credited with: the run's minimum.

    An empty run credits nothing, which shifts no chunk relative to another.
    """
    return min(normalized.values(), default=0.0)


def _rank_fused(runs: Sequence[RankedList], fused_scores: dict[int, float], name: str) -> RankedList:
    """Best fused score first; ties go to the better best single-run rank, then the lower id."""
    best_rank: dict[int, int] = {}
    for run in runs:
        for chunk_id, rank in _first_ranks(run).items():
            if rank < best_rank.get(chunk_id, rank + 1):
                best_rank[chunk_id] = rank
    doc_of: dict[int, int] = {}
    for run in reversed(runs):
        # reversed, so the first run listing a chunk (at its first position) sets its document
        doc_of.update(zip(reversed(run.ids), reversed(run.doc_ids), strict=False))
    ordered = sorted(fused_scores, key=lambda chunk_id: (-fused_scores[chunk_id], best_rank[chunk_id], chunk_id))
    return RankedList(
        name, tuple(ordered), tuple(map(doc_of.__getitem__, ordered)), tuple(map(fused_scores.__getitem__, ordered))
    )


def _first_ranks(run: RankedList) -> dict[int, int]:
    """Chunk id -> rank; a chunk listed twice keeps its better (first) rank."""
    # Built back to front, so the first position of a repeated chunk is written last and wins.
    return dict(zip(reversed(run.ids), range(len(run.ids), 0, -1), strict=False))


def _first_scores(run: RankedList) -> dict[int, float]:
    scores: dict[int, float] = {}
    for chunk_id, score in zip(run.ids, run.scores, strict=False):
        scores.setdefault(chunk_id, score)
    return scores


#: a fusion method: the runs, the fusion section, and the fused list's name, to the fused list
FusionMethod = Callable[[Sequence[RankedList], FusionConfig, str], Fusion]

#: every fusion method by name: ``fusion.method``'s choices
FUSION_METHODS: Registry[FusionMethod] = Registry("fusion method")
FUSION_METHODS.register("rrf", lambda runs, config, name: _rrf(runs, config.k, name))
FUSION_METHODS.register(
    "weighted",
    # a configuration holds only fusion.normalization's choices, which are the Normalization names
    lambda runs, config, name: _weighted(runs, config.weights, cast(Normalization, config.normalization), name),
)
