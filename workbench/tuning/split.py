"""Golden queries split, seeded, into the part a study tunes on and the part it is judged on.

- ``holdout_split``: one split; ``fraction`` of the queries (rounded, at least one each side) are
  held out.
- ``fold_splits``: K folds for nested cross-validation: fold k is held out while the other K - 1
  tune, so every query is held out exactly once.

Only queries a ranking metric can score are split (a query with no relevant item is kept out:
it would sit in one part without counting there). The order is a seeded shuffle of the query
ids, so the same golden set and seed give the same split on every machine. Questions written from
one passage (``golden synth``'s ``meta.source``) move together (``passage_groups``). A ``Split`` hands its
two parts out as separate golden sets: the study is given ``tuning`` and nothing else.

``choose_split`` decides the split when none is given (``tune``, MCP ``tune`` and the app ask it):
under ``tuning.folds_below`` scorable queries, one holdout's verdict hangs on its seed (issue 47:
on 223 questions seed 0 said better, seed 1 worse), so nested cross-validation with
``tuning.folds`` folds holds every query out once; from there, one holdout of 30%.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from workbench.evaluation.golden import GoldenQuery, GoldenSet

DEFAULT_HOLDOUT = 0.3
MIN_FOLDS, MAX_FOLDS = 2, 20


@dataclass(frozen=True)
class SplitChoice:
    """How a study's queries are split, and why."""

    folds: int | None  # nested cross-validation with this many folds; None: one holdout
    holdout: float  # the share held out (used when folds is None)
    reason: str
    given: bool  # the user named it (--folds or --holdout)

    def held_out_queries(self, scorable_queries: int) -> int:
        """How many queries the gain is measured on: all of them under K-fold, else the held-out share."""
        if self.folds:
            return scorable_queries
        return min(max(1, round(self.holdout * scorable_queries)), max(1, scorable_queries - 1))

    def describe(self) -> str:
        if self.folds:
            return f"{self.folds}-fold nested cross-validation"
        held = round(self.holdout * 100)
        return f"tuned on {100 - held}%, held out {held}%"

    def to_dict(self) -> dict[str, object]:
        return {"folds": self.folds, "holdout": self.holdout, "reason": self.reason, "given": self.given}


def choose_split(
    scorable_queries: int,
    *,
    folds: int | None = None,
    holdout: float | None = None,
    folds_below: int = 300,
    default_folds: int = 5,
) -> SplitChoice:
    """The split named (``folds`` or ``holdout``), else the default for ``scorable_queries``
    (see the module doc); ``folds_below`` and ``default_folds`` are ``tuning.folds_below`` and
    ``tuning.folds``."""
    if folds is not None and holdout is not None:
        raise ValueError("give --folds or --holdout, not both")
    if folds is not None:
        return SplitChoice(folds, DEFAULT_HOLDOUT, f"{folds}-fold nested cross-validation as asked", True)
    if holdout is not None:
        return SplitChoice(None, holdout, f"one holdout of {holdout:g} as asked", True)
    if scorable_queries < folds_below:
        # never more folds than queries (fold_splits refuses that); 2 is the least K-fold there is
        k = max(MIN_FOLDS, min(default_folds, scorable_queries))
        return SplitChoice(
            k,
            DEFAULT_HOLDOUT,
            f"{k}-fold nested cross-validation: {scorable_queries} scorable queries are fewer than "
            f"tuning.folds_below {folds_below}, and one holdout's verdict would hang on its seed; every query "
            "is held out once (--holdout 0.3 for one split)",
            False,
        )
    return SplitChoice(
        None,
        DEFAULT_HOLDOUT,
        f"one holdout of {DEFAULT_HOLDOUT:g}: {scorable_queries} scorable queries reach tuning.folds_below "
        f"{folds_below} (--folds K for nested cross-validation)",
        False,
    )


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


def passage_group(query: GoldenQuery) -> str:
    """The passage a question was written from (``meta.source`` of ``golden synth``: documents and
    offsets, which survive re-chunking), or the query's own id for one written by hand."""
    sources = (query.meta or {}).get("source")
    if isinstance(sources, list) and sources and all(isinstance(s, dict) for s in sources):
        return "source:" + "|".join(f"{s.get('doc')}:{s.get('start')}-{s.get('end')}" for s in sources)
    return f"id:{query.id}"


def passage_groups(golden: GoldenSet, ids: list[str]) -> list[list[str]]:
    """``ids`` gathered by passage, each group where its first member falls in ``ids``: questions
    written from one passage then land on one side of a split (a study tuned on one of them would
    otherwise be judged on its near twin). Without shared passages every group is one query, in
    ``ids``'s order, so the split is what it was before groups existed."""
    queries = golden.by_id()
    groups: dict[str, list[str]] = {}
    for qid in ids:
        groups.setdefault(passage_group(queries[qid]), []).append(qid)
    return list(groups.values())


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
    held_out: set[str] = set()
    groups = passage_groups(golden, ids)
    for group in groups[:-1]:  # the last group always tunes: neither part may be empty
        if len(held_out) >= held:
            break
        held_out.update(group)
    if not held_out:
        raise ValueError(
            f"golden set {golden.name!r}: its {len(ids)} scorable queries were all written from one passage, "
            "so no split keeps them apart; write questions from other passages"
        )
    return Split("holdout", _part(golden, set(ids) - held_out, "tuning"), _part(golden, held_out, "held-out"))


def fold_splits(golden: GoldenSet, folds: int, seed: int = 0) -> list[Split]:
    if not MIN_FOLDS <= folds <= MAX_FOLDS:
        raise ValueError(f"--folds must be {MIN_FOLDS} to {MAX_FOLDS}, got {folds}")
    ids = shuffled_ids(golden, seed)
    if len(ids) < folds:
        raise ValueError(f"golden set {golden.name!r} has {len(ids)} scorable queries, fewer than --folds {folds}")
    groups = passage_groups(golden, ids)
    if len(groups) < folds:
        raise ValueError(
            f"golden set {golden.name!r} has {len(ids)} scorable queries written from {len(groups)} passages, "
            f"fewer than --folds {folds} (questions from one passage stay in one fold)"
        )
    splits = []
    for fold in range(folds):
        held_out = {qid for group in groups[fold::folds] for qid in group}
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
