"""Index backends as plugins: one object per engine, registered by name.

``IndexBackend`` (``base``) is what an engine implements: sync a layout's indexes with the
catalog, open a snapshot's routes, drop, release, describe and configure its place. ``BACKENDS``
(``registry``, a ``workbench.plugins.Registry``) maps ``index.backend`` to it, and its names are
that key's choices; the service, ingestion and the snapshot cache ask it and name no engine. A
new engine is one package here plus one ``BACKENDS.register`` line below (its settings, if any,
a section of the configuration named like it whose index-time keys say where a layout lives),
and its routes join ``tests/store/test_index_contract.py``.
"""

from workbench.backends.base import IndexBackend
from workbench.backends.local import LocalBackend
from workbench.backends.milvus import MilvusBackend
from workbench.backends.registry import BACKENDS, backend_of, open_snapshot_indexes
from workbench.backends.snapshot_files import SyncResult, layout_dir

BACKENDS.register(LocalBackend.name, LocalBackend())
BACKENDS.register(MilvusBackend.name, MilvusBackend())

__all__ = ["BACKENDS", "IndexBackend", "SyncResult", "backend_of", "layout_dir", "open_snapshot_indexes"]
