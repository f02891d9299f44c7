"""Golden queries split, seeded, into the part a study tunes on and the part it is judged on.

- ``holdout_split``: one split; ``fraction`` of the queries (rounded, at least one each side) are
  held out.
- ``fold_splits``: K folds for nested cross-validation: fold k is held out while the other K - 1
  tune, so every query is held out exactly once.

Only queries a ranking metric can score are split (a query with no relevant item is kept out:
it would sit in one part without counting there). The order is a seeded shuffle of the query
ids, so the same golden set and seed give the same split on every machine. A ``Split`` hands its
two parts out as separate golden sets: the study is given ``tuning`` and nothing else.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from workbench.evaluation.golden import GoldenQuery, GoldenSet

DEFAULT_HOLDOUT = 0.3
MIN_FOLDS, MAX_FOLDS = 2, 20


@dataclass(frozen=True)
class Split:
    label: str  # "holdout" or "fold 2 of 5"
    tuning: GoldenSet
    held_out: GoldenSet

    @property
    def tuning_ids(self) -> frozenset[str]:
        return frozenset(q.id for q in self.tuning.queries)

    @property
    def held_out_ids(self) -> frozenset[str]:
        return frozenset(q.id for q in self.held_out.queries)


def scorable(golden: GoldenSet) -> list[GoldenQuery]:
    """The queries a ranking metric scores: at least one item with a grade above 0."""
    return [query for query in golden.queries if query.doc_grades()]


def shuffled_ids(golden: GoldenSet, seed: int) -> list[str]:
    ids = sorted(query.id for query in scorable(golden))
    random.Random(seed).shuffle(ids)
    return ids


def _part(golden: GoldenSet, ids: set[str], suffix: str) -> GoldenSet:
    return GoldenSet(f"{golden.name}[{suffix}]", tuple(q for q in golden.queries if q.id in ids))


def holdout_split(golden: GoldenSet, fraction: float = DEFAULT_HOLDOUT, seed: int = 0) -> Split:
    if not 0 < fraction < 1:
        raise ValueError(f"--holdout must be between 0 and 1 (the share held out), got {fraction:g}; e.g. 0.3")
    ids = shuffled_ids(golden, seed)
    if len(ids) < 2:
        raise ValueError(
            f"golden set {golden.name!r} has {len(ids)} scorable queries; a held-out estimate needs at least 2"
        )
    held = min(max(1, round(fraction * len(ids))), len(ids) - 1)
    held_out = set(ids[:held])
    return Split("holdout", _part(golden, set(ids) - held_out, "tuning"), _part(golden, held_out, "held-out"))


def fold_splits(golden: GoldenSet, folds: int, seed: int = 0) -> list[Split]:
    if not MIN_FOLDS <= folds <= MAX_FOLDS:
        raise ValueError(f"--folds must be {MIN_FOLDS} to {MAX_FOLDS}, got {folds}")
    ids = shuffled_ids(golden, seed)
    if len(ids) < folds:
        raise ValueError(f"golden set {golden.name!r} has {len(ids)} scorable queries, fewer than --folds {folds}")
    splits = []
    for fold in range(folds):
        held_out = set(ids[fold::folds])
        label = f"fold {fold + 1} of {folds}"
        splits.append(
            Split(
                label,
                _part(golden, set(ids) - held_out, f"tuning-{fold + 1}"),
                _part(golden, held_out, f"fold-{fold + 1}"),
            )
        )
    return splits


def all_queries(golden: GoldenSet) -> GoldenSet:
    """Every scorable query: what the final study of nested cross-validation tunes on."""
    return _part(golden, {q.id for q in scorable(golden)}, "all")
