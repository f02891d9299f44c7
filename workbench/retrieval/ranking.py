"""Named ranked lists: the value every retrieval stage produces and consumes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True, slots=True)
class Hit:
    """One chunk at one position of a ranked list. ``rank`` is 1-based."""

    chunk_id: int
    doc_id: int
    score: float
    rank: int


@dataclass(frozen=True)
class RankedList:
    """An ordered, named list of hits (best first), like a ranx ``Run`` for one query."""

    name: str
    hits: tuple[Hit, ...] = ()

    @classmethod
    def from_scores(cls, name: str, scored: Iterable[tuple[int, int, float]]) -> "RankedList":
        """Rank ``(chunk_id, doc_id, score)`` triples by score, descending.

        Ties keep their input order, so callers control tie-breaking deterministically.
        """
        ordered = sorted(scored, key=lambda item: -item[2])
        return cls(name, tuple(Hit(c, d, float(s), i + 1) for i, (c, d, s) in enumerate(ordered)))

    @classmethod
    def from_ordered(cls, name: str, ordered: Iterable[tuple[int, int, float]]) -> "RankedList":
        """Keep the given order (for stages whose order is not a plain score sort, like MMR)."""
        return cls(name, tuple(Hit(c, d, float(s), i + 1) for i, (c, d, s) in enumerate(ordered)))

    def top(self, k: int) -> "RankedList":
        return RankedList(self.name, self.hits[:k])

    def renamed(self, name: str) -> "RankedList":
        return RankedList(name, self.hits)

    def chunk_ids(self) -> list[int]:
        return [h.chunk_id for h in self.hits]

    def rank_of(self, chunk_id: int) -> int | None:
        for hit in self.hits:
            if hit.chunk_id == chunk_id:
                return hit.rank
        return None

    def score_map(self) -> dict[int, float]:
        return {h.chunk_id: h.score for h in self.hits}

    def doc_of(self) -> dict[int, int]:
        return {h.chunk_id: h.doc_id for h in self.hits}

    def __len__(self) -> int:
        return len(self.hits)

    def __iter__(self):
        return iter(self.hits)

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "hits": [
                {"chunk_id": h.chunk_id, "doc_id": h.doc_id, "score": h.score, "rank": h.rank}
                for h in self.hits
            ],
        }

    @classmethod
    def from_dict(cls, data: dict) -> "RankedList":
        return cls(
            data["name"],
            tuple(Hit(int(h["chunk_id"]), int(h["doc_id"]), float(h["score"]), int(h["rank"])) for h in data["hits"]),
        )
