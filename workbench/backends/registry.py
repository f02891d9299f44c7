"""The index backends by name: ``index.backend`` picks one, and a snapshot's manifest names its own."""

from __future__ import annotations

import threading
from collections.abc import Set
from pathlib import Path

from store.index_set import SnapshotIndexes
from workbench.backends.base import IndexBackend
from workbench.config import WorkbenchConfig
from workbench.layout import LOCAL

_BACKENDS: dict[str, IndexBackend] = {}
_GUARD = threading.Lock()


def register_backend(backend: IndexBackend) -> None:
    """Make ``backend`` the one ``index.backend = backend.name`` picks."""
    with _GUARD:
        _BACKENDS[backend.name] = backend


def backend_names() -> list[str]:
    with _GUARD:
        return sorted(_BACKENDS)


def backend_named(name: str) -> IndexBackend:
    with _GUARD:
        found = _BACKENDS.get(name)
    if found is None:
        raise ValueError(f"index backend {name!r} is not known; known: {', '.join(backend_names())}")
    return found


def backend_of(config: WorkbenchConfig) -> IndexBackend:
    return backend_named(config.index.backend)


def registered() -> list[IndexBackend]:
    with _GUARD:
        return list(_BACKENDS.values())


def open_snapshot_indexes(folder: Path, manifest: dict, chunk_ids: Set[int]) -> SnapshotIndexes:
    """A snapshot version's routes, opened by the backend its manifest names (a manifest from
    before backends existed names none: its indexes are local files)."""
    name = (manifest.get("layout") or {}).get("backend", LOCAL)
    return backend_named(name).open_indexes(folder, chunk_ids)
