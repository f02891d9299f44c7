"""A set of chunk ids held as one sorted numpy array.

A frozenset of a million ints costs about 60 MB and a second to build; the same ids sorted in an
int64 array cost 8 MB, and membership is a binary search. ``IdSet`` is a read-only
``collections.abc.Set[int]``, so callers that ask ``cid in ids`` or ``len(ids)`` need not know which one
they hold; set algebra on it returns plain frozensets.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Set
from typing import TypeVar

import numpy as np

_T = TypeVar("_T")


class IdSet(Set[int]):
    """Sorted, distinct int64 ids; ``positions`` maps ids to their index in ``array``."""

    __slots__ = ("array",)

    def __init__(self, ids: np.ndarray | Iterable[int] = ()) -> None:
        array = np.unique(np.asarray(ids if isinstance(ids, np.ndarray) else list(ids), dtype=np.int64))
        array.setflags(write=False)
        self.array = array

    @classmethod
    def of_sorted(cls, array: np.ndarray) -> IdSet:
        """Wrap ids already sorted and distinct (a saved part), without sorting them again."""
        found = cls.__new__(cls)
        found.array = np.asarray(array, dtype=np.int64)
        return found

    @classmethod
    def _from_iterable(cls, values: Iterable[_T]) -> frozenset[_T]:
        return frozenset(values)

    def __contains__(self, chunk_id: object) -> bool:
        return self.position(chunk_id) >= 0

    def position(self, chunk_id: object) -> int:
        """The id's index in ``array``; -1 when it is not in the set (or not an integer)."""
        if isinstance(chunk_id, bool) or not isinstance(chunk_id, (int, np.integer)):
            return -1
        at = int(np.searchsorted(self.array, chunk_id))
        return at if at < len(self.array) and int(self.array[at]) == chunk_id else -1

    def __iter__(self) -> Iterator[int]:
        for start in range(0, len(self.array), 65536):
            yield from self.array[start : start + 65536].tolist()

    def __len__(self) -> int:
        return len(self.array)

    def __repr__(self) -> str:
        return f"IdSet({len(self)} ids)"

    def positions(self, ids: np.ndarray | Iterable[int]) -> np.ndarray:
        """Each id's index in ``array``, -1 for an id not in the set."""
        ids = np.asarray(ids if isinstance(ids, np.ndarray) else list(ids), dtype=np.int64)
        at = np.searchsorted(self.array, ids)
        inside = at < len(self.array)
        found = np.zeros(len(ids), dtype=bool)
        found[inside] = self.array[at[inside]] == ids[inside]
        return np.where(found, at, -1)


def ids_array(ids: Iterable[int]) -> np.ndarray:
    """Any set of ids as a sorted int64 array (free for an ``IdSet``)."""
    if isinstance(ids, IdSet):
        return ids.array
    return np.unique(np.fromiter(ids, dtype=np.int64))


class RowLookup:
    """id -> row of an unsorted id array (an index's insertion order), by binary search over a
    sorted copy: 16 bytes a row, where a dict of Python ints costs about 100."""

    __slots__ = ("_order", "_sorted")

    def __init__(self, ids: np.ndarray) -> None:
        ids = np.asarray(ids, dtype=np.int64)
        self._order = np.argsort(ids, kind="stable")
        self._sorted = ids[self._order]

    def rows(self, ids) -> np.ndarray:
        """Each id's row; -1 for an id not there."""
        ids = np.asarray(ids, dtype=np.int64).ravel()
        if not len(self._sorted):
            return np.full(len(ids), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self._sorted, ids), len(self._sorted) - 1)
        return np.where(self._sorted[at] == ids, self._order[at], -1)

    def row(self, chunk_id: int) -> int | None:
        found = int(self.rows([int(chunk_id)])[0])
        return None if found < 0 else found
