"""Index backends as plugins: one object per engine, registered by name.

``IndexBackend`` (``base``) is what an engine implements: sync a layout's indexes with the
catalog, open a snapshot's routes, drop, release, describe and configure its place. The
registry (``registry``) maps ``index.backend`` to it; the service, ingestion and the snapshot
cache ask it and name no engine. A new engine is one package here plus one ``register_backend``
line below, and its routes join ``tests/store/test_index_contract.py``.
"""

from workbench.backends.base import IndexBackend
from workbench.backends.local import LocalBackend
from workbench.backends.milvus import MilvusBackend
from workbench.backends.registry import (
    backend_named,
    backend_names,
    backend_of,
    open_snapshot_indexes,
    register_backend,
    registered,
)
from workbench.backends.snapshot_files import SyncResult, layout_dir

register_backend(LocalBackend())
register_backend(MilvusBackend())

__all__ = [
    "IndexBackend",
    "SyncResult",
    "backend_named",
    "backend_names",
    "backend_of",
    "layout_dir",
    "open_snapshot_indexes",
    "register_backend",
    "registered",
]
