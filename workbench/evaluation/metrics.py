"""Ranking metrics as small pure functions over one query.

``ranked`` is the system's ranking (ids, best first, no duplicates); ``relevant`` maps each
relevant id to its grade (> 0). Averages over queries are the caller's business.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence


def hit_at(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """Hit@k = 1 if any of the first k is relevant, else 0."""
    return 1.0 if any(item in relevant for item in ranked[:k]) else 0.0


def precision_at(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """P@k = |relevant in first k| / k."""
    return sum(1 for item in ranked[:k] if item in relevant) / k


def recall_at(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """R@k = |relevant in first k| / |relevant| (0 when nothing is relevant)."""
    if not relevant:
        return 0.0
    return sum(1 for item in ranked[:k] if item in relevant) / len(relevant)


def mrr_at(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """MRR@k = 1 / rank of the first relevant item within the first k, else 0."""
    for position, item in enumerate(ranked[:k], start=1):
        if item in relevant:
            return 1.0 / position
    return 0.0


def dcg_at(gains: Sequence[float], k: int) -> float:
    """DCG@k = sum over positions i = 1..k of gain_i / log2(i + 1)."""
    return sum(gain / math.log2(position + 1) for position, gain in enumerate(gains[:k], start=1))


def ndcg_at(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """nDCG@k = DCG@k of the ranking / DCG@k of the ideal ranking, with gain = grade (linear)."""
    ideal = dcg_at(sorted(relevant.values(), reverse=True), k)
    if ideal == 0:
        return 0.0
    return dcg_at([float(relevant.get(item, 0)) for item in ranked], k) / ideal


def average_precision(ranked: Sequence[str], relevant: Mapping[str, int], k: int | None = None) -> float:
    """AP(@k) = (1 / |relevant|) * sum over relevant positions i of P@i."""
    if not relevant:
        return 0.0
    hits, total = 0, 0.0
    for position, item in enumerate(ranked[:k] if k else ranked, start=1):
        if item in relevant:
            hits += 1
            total += hits / position
    return total / len(relevant)


METRICS = {
    "hit": hit_at,
    "precision": precision_at,
    "recall": recall_at,
    "mrr": mrr_at,
    "ndcg": ndcg_at,
    "map": average_precision,
}

DEFAULT_METRICS = ("ndcg@10", "recall@10", "recall@100", "mrr@10", "hit@10")


def compute(name: str, ranked: Sequence[str], relevant: Mapping[str, int]) -> float:
    """Evaluate a metric named like ``ndcg@10`` or ``map`` / ``map@100``."""
    base, _, cutoff = name.partition("@")
    function = METRICS.get(base)
    if function is None:
        raise ValueError(f"unknown metric {name!r}; known: {', '.join(m + '@k' for m in METRICS)}")
    if base == "map":
        return function(ranked, relevant, int(cutoff) if cutoff else None)
    if not cutoff.isdigit() or int(cutoff) < 1:
        raise ValueError(f"metric {name!r} needs a cutoff, like {base}@10")
    return function(ranked, relevant, int(cutoff))


def depth_needed(names: Sequence[str]) -> int:
    return max([int(n.partition("@")[2]) for n in names if n.partition("@")[2].isdigit()] + [10])
