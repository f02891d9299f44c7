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

    __slots__ = ("_build", "_data")

    def __init__(self, build: Callable[[], Mapping[K, V]]) -> None:
        self._build: Callable[[], Mapping[K, V]] | None = build
        self._data: dict[K, V] | None = None

    @property
    def built(self) -> bool:
        """Whether anything has read it yet."""
        return self._data is not None

    def _materialized(self) -> dict[K, V]:
        if self._data is None:
            # Two threads may both build: the result is the same, so the race is harmless.
            self._data = dict(self._build())
            self._build = None
        return self._data

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

    def __reduce__(self):
        return dict, (self._materialized(),)
