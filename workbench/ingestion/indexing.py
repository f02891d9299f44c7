"""Bring a layout's index snapshot in line with the catalog, through the layout's backend.

The catalog is the source of truth; each backend (``workbench.backends``) keeps a copy derived
from it and publishes a snapshot recording the catalog generation it reflects.
"""

from __future__ import annotations

from pathlib import Path

from store.catalog import Catalog
from workbench.backends import BACKENDS, SyncResult, layout_dir
from workbench.layout import Layout

__all__ = ["SyncResult", "layout_dir", "sync_layout"]


def sync_layout(
    catalog: Catalog, home: Path, collection_name: str, layout: Layout, rebuild: bool = False, verify: bool = False
) -> SyncResult:
    """``rebuild`` builds a new snapshot even when the current one is up to date (its files are
    in a format this version no longer reads, say); ``verify`` checks a copy kept outside the
    home (a Milvus collection's rows) against the catalog and repairs it."""
    return BACKENDS.get(layout.backend).sync(catalog, home, collection_name, layout, rebuild=rebuild, verify=verify)
