"""A read-only mapping built on first read.

Traces carry details that only a front end shows (the fusion breakdown, chunk views).
Evaluation and sweeps never read them, so they are built when first read, from numbers the
stage already computed, and never for a query nobody looks at.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LazyMapping(Mapping[K, V]):
    """``build()`` runs once, on the first read; copies and pickles are plain dicts."""

    # One attribute holds the builder until the first read, then the built dict: a thread that
    # reads it sees one or the other, never a dropped builder beside an unset result.
    __slots__ = ("_state",)

    def __init__(self, build: Callable[[], Mapping[K, V]]) -> None:
        self._state: Callable[[], Mapping[K, V]] | dict[K, V] = build

    @property
    def built(self) -> bool:
        """Whether anything has read it yet."""
        return isinstance(self._state, dict)

    def _materialized(self) -> dict[K, V]:
        state = self._state
        if isinstance(state, dict):
            return state
        # Two threads may both build: the result is the same, so the race is harmless.
        data = self._state = dict(state())
        return data

    def __getitem__(self, key: K) -> V:
        return self._materialized()[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._materialized())

    def __len__(self) -> int:
        return len(self._materialized())

    def __contains__(self, key: object) -> bool:
        return key in self._materialized()

    def __repr__(self) -> str:
        return f"LazyMapping({self._materialized()!r})"

    def __reduce__(self) -> tuple[type[dict[K, V]], tuple[dict[K, V]]]:
        return dict, (self._materialized(),)
