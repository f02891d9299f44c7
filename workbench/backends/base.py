"""What an index backend is: one object per engine that keeps a layout's indexes for the workbench.

The catalog is the source of truth; a backend holds a copy derived from it, per layout. It
syncs that copy with the catalog (writing a snapshot folder whose manifest names it), opens a
snapshot's two routes for the query path, drops a layout's copy, and says how to reach its
place and where a collection lives. Only ``open_indexes`` and ``sync`` are engine work; the
rest defaults to "nothing to do" for a backend that keeps everything in the home's files.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Set
from pathlib import Path
from typing import ClassVar

from store.catalog import Catalog
from store.index_set import SnapshotIndexes
from workbench.backends.snapshot_files import SyncResult
from workbench.config import WorkbenchConfig
from workbench.layout import Layout


class IndexBackend(ABC):
    #: the value of ``index.backend`` that picks it
    name: ClassVar[str]
    #: the flat key that holds its URI, for ``migrate-backend --uri`` (None: it lives in the home)
    uri_key: ClassVar[str | None] = None

    @abstractmethod
    def open_indexes(self, folder: Path, chunk_ids: Set[int]) -> SnapshotIndexes:
        """The routes of the snapshot version in ``folder``, answering with ``chunk_ids`` only."""

    @abstractmethod
    def sync(
        self, catalog: Catalog, home: Path, collection: str, layout: Layout, rebuild: bool = False, verify: bool = False
    ) -> SyncResult:
        """Bring the layout's indexes in line with the catalog and publish a snapshot if they changed.

        ``rebuild`` builds anew even when the snapshot is current (its files are in a format this
        version no longer reads, say); ``verify`` checks a copy kept outside the home against the
        catalog even when the snapshot says it is current, repairing what differs.
        """

    def configure(self, config: WorkbenchConfig, home: Path) -> None:
        """Tell the engine how to reach ``config``'s place (credentials, timeouts); ``ValueError``
        names a setting that cannot work. Called before anything of the layout is touched."""
        return None  # a backend that lives in the home needs no credentials

    def drop(self, home: Path, collection: str, layout: Layout) -> list[str]:
        """Remove the layout's copy kept outside the home's snapshot folders; returns what went.
        A place that cannot be reached is logged and left (its rows are derived data)."""
        return []

    def release(self) -> None:
        """Let go of this process's connections (a file another process wants, say)."""
        return None  # a backend that keeps no connections has nothing to let go of

    def describe(self, flat_config: Mapping[str, object]) -> str:
        """Where a collection with these stored settings keeps its indexes, for listings."""
        return self.name

    def uri_of(self, config: WorkbenchConfig) -> str | None:
        """The URI ``config`` puts the indexes at (None for a backend that lives in the home)."""
        return None
