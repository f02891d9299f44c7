"""The index backends by name: ``index.backend`` picks one, and a snapshot's manifest names its own."""

from __future__ import annotations

from collections.abc import Set
from pathlib import Path
from typing import Any

from store.index_set import SnapshotIndexes
from workbench.backends.base import IndexBackend
from workbench.config import WorkbenchConfig
from workbench.layout import LOCAL
from workbench.plugins import Registry

#: every engine by name; ``index.backend``'s choices are its names
BACKENDS: Registry[IndexBackend] = Registry("index backend")


def backend_of(config: WorkbenchConfig) -> IndexBackend:
    return BACKENDS.get(config.index.backend)


def open_snapshot_indexes(folder: Path, manifest: dict[str, Any], chunk_ids: Set[int]) -> SnapshotIndexes:
    """A snapshot version's routes, opened by the backend its manifest names (a manifest from
    before backends existed names none: its indexes are local files)."""
    name = (manifest.get("layout") or {}).get("backend", LOCAL)
    return BACKENDS.get(name).open_indexes(folder, chunk_ids)
