"""Comparing two final lists (side A and side B of the Retrieval lab)."""

from __future__ import annotations

from dataclasses import dataclass

from workbench.retrieval.ranking import RankedList

ENTERED = "entered"
LEFT = "left"
MOVED = "moved"
SAME = "same"


@dataclass(frozen=True)
class RankChange:
    """One chunk's place in A and in B (None = not in that list)."""

    chunk_id: int
    doc_id: int
    rank_a: int | None
    rank_b: int | None

    @property
    def status(self) -> str:
        if self.rank_a is None:
            return ENTERED
        if self.rank_b is None:
            return LEFT
        return SAME if self.rank_a == self.rank_b else MOVED

    @property
    def places_gained(self) -> int | None:
        """How many places higher B ranks the chunk than A (negative = lower); None unless in both."""
        if self.rank_a is None or self.rank_b is None:
            return None
        return self.rank_a - self.rank_b


@dataclass(frozen=True)
class FinalsDiff:
    changes: tuple[RankChange, ...]  # B's order first, then what left in A's order

    def _with(self, status: str) -> tuple[RankChange, ...]:
        return tuple(change for change in self.changes if change.status == status)

    @property
    def entered(self) -> tuple[RankChange, ...]:
        """In B's final list but not A's."""
        return self._with(ENTERED)

    @property
    def left(self) -> tuple[RankChange, ...]:
        """In A's final list but not B's."""
        return self._with(LEFT)

    @property
    def moved(self) -> tuple[RankChange, ...]:
        """In both at different ranks."""
        return self._with(MOVED)

    @property
    def unchanged(self) -> tuple[RankChange, ...]:
        return self._with(SAME)

    @property
    def overlap(self) -> int:
        return sum(1 for change in self.changes if change.rank_a is not None and change.rank_b is not None)

    @property
    def identical(self) -> bool:
        return all(change.status == SAME for change in self.changes)


def diff_finals(a: RankedList, b: RankedList) -> FinalsDiff:
    ranks_a = _first_ranks(a)
    ranks_b = _first_ranks(b)
    docs = {hit.chunk_id: hit.doc_id for hit in (*a.hits, *b.hits)}
    changes = [RankChange(cid, docs[cid], ranks_a.get(cid), rank) for cid, rank in ranks_b.items()]
    changes += [RankChange(cid, docs[cid], rank, None) for cid, rank in ranks_a.items() if cid not in ranks_b]
    return FinalsDiff(tuple(changes))


def _first_ranks(ranked: RankedList) -> dict[int, int]:
    ranks: dict[int, int] = {}
    for hit in ranked.hits:
        ranks.setdefault(hit.chunk_id, hit.rank)
    return ranks
