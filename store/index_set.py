"""Versioned index snapshots beside the catalog.

Layout of one collection's indexes for one layout (chunking + model + index parameters)::

    indexes/<collection>/<layout key>/CURRENT            {"version": "...", "generation": N}
    indexes/<collection>/<layout key>/<version>/         one immutable snapshot:
        manifest.json   what it reflects: catalog generation, layout, counts
        ...             the backend's own parts: for local files dense/ (hnswlib graph and
                        vectors) and sparse/ (bm25s matrices), for Milvus milvus/ (where its
                        collection lives; the rows themselves are in Milvus)
        chunks/         the chunk table (``store.chunk_store``): ids and document ids held in
                        memory, the other columns memory-mapped, texts read per chunk asked for
        documents.parquet

Which backend opens a version's indexes is the layout's (``manifest.json``'s ``layout.backend``);
the opener the caller passes (``workbench.backends``' registry) picks it, so this module knows no
backend by name.

A writer builds a whole new version folder, then replaces CURRENT atomically; a reader follows
CURRENT, so it sees one consistent snapshot and never a half-written one. A reader tells a stale
snapshot by CURRENT's generation and reloads; nothing on the query path opens the catalog.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import uuid
from collections.abc import Callable, Set
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from store.atomic import atomic_write_json
from store.chunk_store import (  # noqa: F401  (ChunkRecord: callers take it from here, beside Snapshot)
    CHUNKS_DIR,
    ChunkRecord,
    ChunkStore,
    DocumentIdView,
    write_chunk_store,
)
from store.id_set import IdSet
from store.retrieval_index import TermIndex, VectorIndex

CURRENT = "CURRENT"
KEEP_OLD_VERSIONS = 1  # readers mid-load of the previous version keep working


@dataclass(frozen=True)
class DocumentInfo:
    doc_id: int
    source: str
    external_id: str | None
    doc_type: str
    title: str


CHUNK_COLUMNS = [
    "chunk_id",
    "doc_id",
    "ordinal",
    "start",
    "end",
    "text",
    "indexed_text",
    "heading_path",
    "page",
    "token_count",
    "over_max_length",
]
DOCUMENT_COLUMNS = ["doc_id", "source", "external_id", "doc_type", "title"]


def write_chunk_table(folder: Path, columns: dict[str, list]) -> int:
    """Write a version's chunk table (columns named as ``CHUNK_COLUMNS``); returns its rows."""
    return write_chunk_store(folder / CHUNKS_DIR, columns)


def write_table(path: Path, rows: list[tuple], columns: list[str]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = {name: [row[i] for row in rows] for i, name in enumerate(columns)}
    pq.write_table(pa.table(data) if rows else _empty_table(columns), path)


def _empty_table(columns: list[str]):
    import pyarrow as pa

    types = {
        "chunk_id": pa.int64(),
        "doc_id": pa.int64(),
        "ordinal": pa.int32(),
        "start": pa.int32(),
        "end": pa.int32(),
        "heading_path": pa.list_(pa.string()),
        "page": pa.int32(),
        "token_count": pa.int32(),
        "over_max_length": pa.bool_(),
    }
    return pa.table({name: pa.array([], type=types.get(name, pa.string())) for name in columns})


def read_table(path: Path) -> dict[str, list]:
    import pyarrow.parquet as pq

    return pq.read_table(path).to_pydict()


@dataclass(frozen=True)
class SnapshotIndexes:
    """A version's two routes as its backend opened them."""

    backend: str
    sparse: TermIndex
    dense: VectorIndex | None  # None until the collection has vectors
    dense_ids: Set[int]  # the chunks the dense route can return (an ``IdSet`` for local files)


#: opens a version folder's indexes: (folder, its manifest, the version's chunk ids) -> its routes
IndexOpener = Callable[[Path, dict, IdSet], SnapshotIndexes]


class Snapshot:
    """One loaded, immutable index version: both indexes plus the chunk and document tables.

    ``chunks`` is a read-only ``Mapping[int, ChunkRecord]`` (a ``ChunkStore``): it holds chunk
    ids and document ids in memory and reads a chunk's texts from disk when that chunk is asked
    for, so iterate over all of it only off the query path. ``chunks.records(ids)`` fetches many
    at once; ``doc_id_of`` (a Mapping) and ``chunks.doc_ids_of(ids)`` (an array) never read a text.
    ``chunks.record_fetches()`` returns a set that collects, from then on, the id of every chunk
    whose text is read: how tests (and benches) hold a query to its hits.
    """

    backend: str
    sparse: TermIndex
    dense: VectorIndex | None
    dense_ids: Set[int]

    def __init__(self, folder: Path, open_indexes: IndexOpener):
        self.folder = folder
        self.manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        self.chunks: ChunkStore = ChunkStore(folder / CHUNKS_DIR)
        # chunk id -> document id: what every ranked list records beside each hit
        self.doc_id_of: DocumentIdView = self.chunks.doc_id_of
        opened = open_indexes(folder, self.manifest, self.chunks.ids)
        self.backend, self.sparse, self.dense, self.dense_ids = (
            opened.backend,
            opened.sparse,
            opened.dense,
            opened.dense_ids,
        )
        docs = read_table(folder / "documents.parquet")
        self.documents: dict[int, DocumentInfo] = {
            values[0]: DocumentInfo(*values) for values in zip(*(docs[name] for name in DOCUMENT_COLUMNS), strict=False)
        }

    @property
    def generation(self) -> int:
        return int(self.manifest["generation"])

    def chunk_ids(self) -> np.ndarray:
        """Every chunk id of the version, sorted (read-only)."""
        return self.chunks.ids.array


def read_current(layout_dir: Path) -> dict | None:
    try:
        return json.loads((layout_dir / CURRENT).read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return None


def new_version_dir(layout_dir: Path, generation: int) -> Path:
    layout_dir.mkdir(parents=True, exist_ok=True)
    folder = layout_dir / f"g{generation:08d}-{uuid.uuid4().hex[:8]}.building"
    folder.mkdir()
    return folder


def publish(layout_dir: Path, building: Path, manifest: dict) -> Path:
    """Seal a finished version folder and point CURRENT at it; then drop old versions."""
    atomic_write_json(building / "manifest.json", manifest)
    final = building.with_name(building.name.removesuffix(".building"))
    os.replace(building, final)
    atomic_write_json(layout_dir / CURRENT, {"version": final.name, "generation": manifest["generation"]})
    _collect_garbage(layout_dir, keep=final.name)
    return final


def _collect_garbage(layout_dir: Path, keep: str) -> None:
    versions = sorted(
        (p for p in layout_dir.iterdir() if p.is_dir() and p.name != keep),
        key=lambda p: p.stat().st_mtime,
    )
    for stale in versions[: max(0, len(versions) - KEEP_OLD_VERSIONS)]:
        shutil.rmtree(stale, ignore_errors=True)
    for unfinished in layout_dir.glob("*.building"):
        # a writer killed mid-build leaves one; anything older than a minute is abandoned
        if time.time() - unfinished.stat().st_mtime > 60:
            shutil.rmtree(unfinished, ignore_errors=True)


def _signature(path: str) -> tuple[int, int, int, int] | None:
    """What changes whenever a file is replaced or rewritten (None: it does not exist)."""
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        return None
    return (stat.st_ino, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size)


class SnapshotCache:
    """Loaded snapshots per layout folder, reloaded when CURRENT moves to a new version."""

    def __init__(self, open_indexes: IndexOpener) -> None:
        self._open_indexes = open_indexes
        self._loaded: dict[Path, tuple[str, Snapshot]] = {}
        self._pointers: dict[Path, tuple[str, tuple, dict | None]] = {}  # CURRENT's path, stat, content
        self._lock = threading.Lock()

    def _current(self, layout_dir: Path) -> dict | None:
        """CURRENT's content, read again only when the file changed: every query asks, and a
        stat costs a fraction of reading and parsing it. ``publish`` replaces the file (a new
        inode), so a new version always shows in the stat."""
        cached = self._pointers.get(layout_dir)
        path = cached[0] if cached is not None else str(layout_dir / CURRENT)
        signature = _signature(path)
        if signature is None:
            return None
        if cached is not None and cached[1] == signature:
            return cached[2]
        # Read after the stat: if CURRENT moves in between, the next stat differs and re-reads.
        pointer = read_current(layout_dir)
        self._pointers[layout_dir] = (path, signature, pointer)
        return pointer

    def peek(self, layout_dir: Path) -> Snapshot | None:
        """The loaded snapshot while CURRENT still points at it (a stat); None where ``get``
        would read CURRENT or load a version first."""
        cached = self._pointers.get(layout_dir)
        if cached is None or cached[2] is None:
            return None
        if _signature(cached[0]) != cached[1]:
            return None
        with self._lock:
            loaded = self._loaded.get(layout_dir)
        return loaded[1] if loaded is not None and loaded[0] == cached[2]["version"] else None

    def get(self, layout_dir: Path) -> Snapshot | None:
        pointer = self._current(layout_dir)
        if pointer is None:
            return None
        version = pointer["version"]
        with self._lock:
            cached = self._loaded.get(layout_dir)
            if cached and cached[0] == version:
                return cached[1]
        try:
            snapshot = Snapshot(layout_dir / version, self._open_indexes)
        except FileNotFoundError:
            # a writer published twice while we loaded and collected our version; follow it
            pointer = read_current(layout_dir)
            if pointer is None:
                return None
            version = pointer["version"]
            snapshot = Snapshot(layout_dir / version, self._open_indexes)
        with self._lock:
            self._loaded[layout_dir] = (version, snapshot)
        return snapshot

    def forget(self, layout_dir: Path | None = None) -> None:
        with self._lock:
            if layout_dir is None:
                self._loaded.clear()
                self._pointers.clear()
            else:
                self._loaded.pop(layout_dir, None)
                self._pointers.pop(layout_dir, None)
