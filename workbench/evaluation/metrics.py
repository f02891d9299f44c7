"""Ranking metrics as small pure functions over one query.

``ranked`` is the system's ranking (ids, best first, no duplicates); ``relevant`` maps each
relevant id to its grade (> 0; ids with grade 0 are treated as not relevant). The ids are
whatever the evaluation level ranks: document names at document level, chunk ids at span level.
Averages over queries are the caller's business (see ``mean``).

Conventions (the same as ranx and trec_eval, so numbers are comparable):

- gains are linear: a grade-2 item is worth twice a grade-1 item in DCG;
- Recall and AP divide by the number of relevant ids, even when that exceeds k;
- a query with nothing relevant scores 0 on every metric.

A folded hit (``workbench.retrieval.fold``: one passage repeated in several places, shown once
with its other places) is one position of the ranking holding a ``Places``, the set of ids it
stands for. It is credited once where it stands and for every place it names:

- its grade is the highest grade among its places (hit, precision, MRR, DCG's gain, AP's hits);
- recall counts every relevant id among the places of the first k positions as retrieved;
- nDCG's ideal ranking and AP's number of relevant ids count the relevant ids that one
  ``Places`` of the ranking stands for as one (at their highest grade): the list can show them
  only once, so a ranking that folds them into its first position still scores 1.

A ranking without ``Places`` scores exactly as ranx does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence

Ranking = Sequence[Hashable]
Judgements = Mapping[Hashable, int]


class Places(frozenset[Hashable]):
    """One position of a ranking that stands for several ids: a folded hit's places."""


def _relevant_only(relevant: Judgements) -> dict[Hashable, int]:
    return {item: grade for item, grade in relevant.items() if grade > 0}


def _grade(item: Hashable, judged: Mapping[Hashable, int]) -> int:
    """An id's grade; a ``Places``'s is the best of its places'."""
    if isinstance(item, Places):
        return max((judged.get(place, 0) for place in item), default=0)
    return judged.get(item, 0)


def _ids(item: Hashable) -> frozenset[Hashable]:
    return item if isinstance(item, Places) else frozenset((item,))


def _ideal_grades(ranked: Ranking, judged: Mapping[Hashable, int]) -> list[int]:
    """The relevant grades, those one ``Places`` of the ranking stands for merged into their best."""
    merged = dict(judged)
    for item in ranked:
        if isinstance(item, Places):
            found = [place for place in item if place in merged]
            if len(found) > 1:
                best = max(merged.pop(place) for place in found)
                merged[item] = best
    return list(merged.values())


def hit_at(ranked: Ranking, relevant: Judgements, k: int) -> float:
    """Hit@k = 1 if at least one of the first k ids is relevant, else 0."""
    judged = _relevant_only(relevant)
    return 1.0 if any(_grade(item, judged) for item in ranked[:k]) else 0.0


def precision_at(ranked: Ranking, relevant: Judgements, k: int) -> float:
    """P@k = |relevant ids among the first k| / k  (k, not the list length: short lists are penalised)."""
    judged = _relevant_only(relevant)
    return sum(1 for item in ranked[:k] if _grade(item, judged)) / k


def recall_at(ranked: Ranking, relevant: Judgements, k: int) -> float:
    """R@k = |relevant ids among the first k| / |relevant ids|  (0 when nothing is relevant).

    A ``Places`` among the first k retrieves every relevant id it stands for."""
    judged = _relevant_only(relevant)
    if not judged:
        return 0.0
    found = {place for item in ranked[:k] for place in _ids(item) if place in judged}
    return len(found) / len(judged)


def mrr_at(ranked: Ranking, relevant: Judgements, k: int) -> float:
    """RR@k = 1 / (rank of the first relevant id) if it is within the first k, else 0.

    Its mean over queries is MRR@k.
    """
    judged = _relevant_only(relevant)
    for position, item in enumerate(ranked[:k], start=1):
        if _grade(item, judged):
            return 1.0 / position
    return 0.0


def dcg_at(gains: Sequence[float], k: int) -> float:
    """DCG@k = sum over positions i = 1..k of gain_i / log2(i + 1)."""
    return sum(gain / math.log2(position + 1) for position, gain in enumerate(gains[:k], start=1))


def ndcg_at(ranked: Ranking, relevant: Judgements, k: int) -> float:
    """nDCG@k = DCG@k(gains of the ranking) / DCG@k(gains sorted best first), gain = grade.

    The ideal ranking puts every relevant id in grade order, so it is 1 only when the first
    k positions hold the best k judgements.
    """
    judged = _relevant_only(relevant)
    ideal = dcg_at(sorted(_ideal_grades(ranked, judged), reverse=True), k)
    if ideal == 0:
        return 0.0
    return dcg_at([float(_grade(item, judged)) for item in ranked], k) / ideal


def average_precision(ranked: Ranking, relevant: Judgements, k: int | None = None) -> float:
    """AP@k = (1 / |relevant ids|) * sum, over positions i <= k holding a relevant id, of P@i.

    Without k the whole ranking counts. Its mean over queries is MAP.
    """
    judged = _relevant_only(relevant)
    if not judged:
        return 0.0
    hits, total = 0, 0.0
    for position, item in enumerate(ranked[:k] if k else ranked, start=1):
        if _grade(item, judged):
            hits += 1
            total += hits / position
    return total / len(_ideal_grades(ranked, judged))


METRICS: dict[str, Callable[..., float]] = {
    "hit": hit_at,
    "precision": precision_at,
    "recall": recall_at,
    "mrr": mrr_at,
    "ndcg": ndcg_at,
    "map": average_precision,
}

DEFAULT_METRICS = ("ndcg@10", "map@100", "mrr@10", "recall@10", "recall@100", "precision@10", "hit@10")


def parse_name(name: str) -> tuple[str, int | None]:
    """``"ndcg@10"`` -> ``("ndcg", 10)``; ``"map"`` -> ``("map", None)``. Raises ValueError with the fix."""
    base, _, cutoff = name.strip().lower().partition("@")
    if base not in METRICS:
        raise ValueError(
            f"unknown metric {name!r}; known: {', '.join(m + '@k' for m in METRICS)} (e.g. ndcg@10, map@100)"
        )
    if not cutoff:
        if base == "map":
            return base, None
        raise ValueError(f"metric {name!r} needs a cutoff, like {base}@10")
    if not cutoff.isdigit() or int(cutoff) < 1:
        raise ValueError(f"metric {name!r}: the cutoff must be a positive integer, like {base}@10")
    return base, int(cutoff)


def validate(names: Sequence[str]) -> tuple[str, ...]:
    """Normalised metric names (lower case, stripped), each checked; at least one."""
    cleaned = tuple(dict.fromkeys(n.strip().lower() for n in names if n.strip()))
    if not cleaned:
        raise ValueError("no metrics given; pass e.g. ndcg@10,recall@100,mrr@10")
    for name in cleaned:
        parse_name(name)
    return cleaned


def parse_list(text: str | None) -> tuple[str, ...]:
    """A comma-separated metric list as typed on the command line; empty means the defaults."""
    if not text or not text.strip():
        return DEFAULT_METRICS
    return validate(text.split(","))


def compute(name: str, ranked: Ranking, relevant: Judgements) -> float:
    """Evaluate a metric named like ``ndcg@10``, ``map@100`` or ``map``."""
    base, cutoff = parse_name(name)
    return METRICS[base](ranked, relevant, cutoff)


def compute_all(names: Sequence[str], ranked: Ranking, relevant: Judgements) -> dict[str, float]:
    return {name: compute(name, ranked, relevant) for name in names}


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean, 0 for no values (a run with no evaluable query)."""
    return sum(values) / len(values) if values else 0.0


def depth_needed(names: Sequence[str]) -> int:
    """How deep a ranking must be for every metric to see all it reads (at least 10)."""
    cutoffs = [parse_name(name)[1] for name in names]
    return max([c for c in cutoffs if c is not None] + [10])
