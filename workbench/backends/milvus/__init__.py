"""Milvus (Lite or a server) as an index backend: both routes over one Milvus collection per layout.

The engine itself is ``store.milvus``; this package keeps a layout's collection in line with the
catalog (``sync``), says where it lives (``place``), and registers the backend.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Set
from pathlib import Path

from store.catalog import Catalog
from store.index_set import SnapshotIndexes
from store.milvus import (
    CONNECTIONS,
    MilvusAccess,
    MilvusBm25Index,
    MilvusDenseIndex,
    MilvusError,
    check_collection_prefix,
    resolve_uri,
)
from workbench.backends.base import IndexBackend
from workbench.backends.milvus.place import MILVUS_DIR, milvus_target
from workbench.backends.milvus.sync import drop_milvus_layout, sync_milvus_layout
from workbench.backends.snapshot_files import SyncResult
from workbench.config import WorkbenchConfig
from workbench.layout import Layout

log = logging.getLogger(__name__)

#: the environment variable a Milvus token comes from when milvus.token is not set
MILVUS_TOKEN_ENV = "MILVUS_TOKEN"


class MilvusBackend(IndexBackend):
    name = "milvus"
    uri_key = "milvus.uri"

    def open_indexes(self, folder: Path, chunk_ids: Set[int]) -> SnapshotIndexes:
        """Both routes over the layout's Milvus collection, answering with this snapshot's chunks
        only (a later push may already have written newer ones)."""
        dense = MilvusDenseIndex.load(folder / MILVUS_DIR, known_ids=chunk_ids)
        # every pushed row carries its vector
        return SnapshotIndexes(self.name, MilvusBm25Index(dense.collection, chunk_ids), dense, chunk_ids)

    def sync(
        self, catalog: Catalog, home: Path, collection: str, layout: Layout, rebuild: bool = False, verify: bool = False
    ) -> SyncResult:
        # the rows live outside the home: a rebuild is a check of every row against the catalog
        return sync_milvus_layout(catalog, home, collection, layout, verify=rebuild or verify)

    def configure(self, config: WorkbenchConfig, home: Path) -> None:
        """Tell the Milvus connections how to reach this configuration's Milvus (token, timeout,
        batch size)."""
        check_collection_prefix(config.milvus.collection_prefix)
        uri = resolve_uri(config.milvus.uri, home)
        access = MilvusAccess(
            token=config.milvus.token or os.environ.get(MILVUS_TOKEN_ENV, ""),
            timeout_s=config.milvus.timeout_s,
            batch_size=config.milvus.batch_size,
        )
        CONNECTIONS.configure(uri, access)

    def drop(self, home: Path, collection: str, layout: Layout) -> list[str]:
        uri, name = milvus_target(home, collection, layout)
        try:
            return [f"Milvus collection {name} at {uri}"] if drop_milvus_layout(home, collection, layout) else []
        except MilvusError as error:
            log.warning("left Milvus collection %s in place: %s", name, error)
            return []

    def release(self) -> None:
        """Close this process's Milvus connections; a Milvus Lite file becomes free for another process."""
        CONNECTIONS.release()

    def describe(self, flat_config: Mapping[str, object]) -> str:
        return f"milvus ({flat_config.get(self.uri_key, WorkbenchConfig().milvus.uri)})"

    def uri_of(self, config: WorkbenchConfig) -> str | None:
        return config.milvus.uri
