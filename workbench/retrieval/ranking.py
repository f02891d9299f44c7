"""Named ranked lists: the value every retrieval stage produces and consumes."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any


@dataclass(frozen=True, slots=True)
class Hit:
    """One chunk at one position of a ranked list. ``rank`` is 1-based."""

    chunk_id: int
    doc_id: int
    score: float
    rank: int


@dataclass(frozen=True)
class RankedList:
    """An ordered, named list of hits (best first), like a ranx ``Run`` for one query.

    Stored as three aligned columns; ``hits`` builds the ``Hit`` values on first use, so stages
    and evaluation that only read ids and scores never pay for them. A hit's rank is its
    position, 1-based.
    """

    name: str
    ids: tuple[int, ...] = ()
    doc_ids: tuple[int, ...] = ()
    scores: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if not len(self.ids) == len(self.doc_ids) == len(self.scores):
            raise ValueError(
                f"RankedList {self.name!r}: {len(self.ids)} ids, {len(self.doc_ids)} doc ids and "
                f"{len(self.scores)} scores; the columns must align"
            )

    @classmethod
    def from_scores(cls, name: str, scored: Iterable[tuple[int, int, float]]) -> RankedList:
        """Rank ``(chunk_id, doc_id, score)`` triples by score, descending.

        Ties keep their input order, so callers control tie-breaking deterministically.
        """
        return cls.from_ordered(name, sorted(scored, key=lambda item: -item[2]))

    @classmethod
    def from_ordered(cls, name: str, ordered: Iterable[tuple[int, int, float]]) -> RankedList:
        """Keep the given order (for stages whose order is not a plain score sort, like MMR)."""
        triples = list(ordered)
        if not triples:
            return cls(name)
        ids, doc_ids, scores = zip(*triples, strict=False)
        return cls(name, ids, doc_ids, tuple(float(score) for score in scores))

    @classmethod
    def from_hits(cls, name: str, hits: Iterable[Hit]) -> RankedList:
        """From hits in rank order (their ``rank`` fields are recomputed from position)."""
        return cls.from_ordered(name, ((hit.chunk_id, hit.doc_id, hit.score) for hit in hits))

    @cached_property
    def hits(self) -> tuple[Hit, ...]:
        return tuple(
            Hit(c, d, s, i) for i, (c, d, s) in enumerate(zip(self.ids, self.doc_ids, self.scores, strict=False), 1)
        )

    def top(self, k: int) -> RankedList:
        return RankedList(self.name, self.ids[:k], self.doc_ids[:k], self.scores[:k])

    def renamed(self, name: str) -> RankedList:
        return RankedList(name, self.ids, self.doc_ids, self.scores)

    def chunk_ids(self) -> list[int]:
        return list(self.ids)

    def rank_of(self, chunk_id: int) -> int | None:
        try:
            return self.ids.index(chunk_id) + 1
        except ValueError:
            return None

    def score_map(self) -> dict[int, float]:
        return dict(zip(self.ids, self.scores, strict=False))

    def doc_of(self) -> dict[int, int]:
        return dict(zip(self.ids, self.doc_ids, strict=False))

    def __len__(self) -> int:
        return len(self.ids)

    def __iter__(self) -> Iterator[Hit]:
        return iter(self.hits)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "hits": [
                {"chunk_id": c, "doc_id": d, "score": s, "rank": i}
                for i, (c, d, s) in enumerate(zip(self.ids, self.doc_ids, self.scores, strict=False), 1)
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RankedList:
        return cls.from_ordered(
            data["name"], ((int(h["chunk_id"]), int(h["doc_id"]), float(h["score"])) for h in data["hits"])
        )
