"""Fixtures shared by the core's tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from workbench.embedding.runtimes import RUNTIMES, Runtime


@pytest.fixture
def register_runtime() -> Iterator[Callable[[Runtime], None]]:
    """Register an encoder runtime for one test; the registry is as it was afterwards."""
    replaced: list[tuple[str, Runtime | None]] = []

    def register(runtime: Runtime) -> None:
        replaced.append((runtime.name, RUNTIMES.get(runtime.name) if runtime.name in RUNTIMES else None))
        RUNTIMES.register(runtime.name, runtime)

    yield register
    for name, previous in reversed(replaced):
        if previous is None:
            RUNTIMES.unregister(name)
        else:
            RUNTIMES.register(name, previous)
