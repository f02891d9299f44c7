"""The workbench as one object: what the CLI, the app and the MCP server call.

It owns the home directory, a catalog handle (no open connection: see ``store.catalog``), the
loaded index snapshots and an in-memory cache of query vectors, so changing a query-time
parameter re-runs only the cheap stages.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from store import repository as repo
from store.catalog import Catalog
from store.index_set import Snapshot, SnapshotCache
from workbench import presets
from workbench.config import INDEX_TIME_SECTIONS, WorkbenchConfig, flatten, known_keys
from workbench.embedding import get_embedder
from workbench.ingestion.indexing import layout_dir, sync_layout
from workbench.ingestion.ingest import IngestReport, ProgressCallback, Source, ensure_chunkset, ingest
from workbench.ingestion.layout import Layout
from workbench.retrieval.pipeline import run_pipeline
from workbench.retrieval.trace import Trace

log = logging.getLogger(__name__)

NotFoundError = repo.NotFoundError
HOME_ENV = "WORKBENCH_HOME"
DEFAULT_HOME = Path("data")
#: keys a collection fixes when it is created: how its chunks and indexes are built
INDEX_KEYS_PREFIXES = tuple(f"{s}." for s in INDEX_TIME_SECTIONS) + ("bm25.", "dense.m", "dense.ef_construction")


def _known_only(stored: dict, owner: str) -> dict:
    """Stored settings minus keys this version no longer has (a newer or older home stays usable)."""
    known = set(known_keys())
    dropped = sorted(set(stored) - known)
    if dropped:
        log.warning("%s: ignoring settings this version does not know: %s", owner, ", ".join(dropped))
    return {k: v for k, v in stored.items() if k in known}


def resolve_home(explicit: str | os.PathLike | None = None) -> Path:
    """Where all state lives: ``--home`` wins, then ``$WORKBENCH_HOME``, then ``./data``."""
    chosen = explicit or os.environ.get(HOME_ENV) or DEFAULT_HOME
    return Path(chosen).expanduser().resolve()


def index_overrides(config: WorkbenchConfig) -> dict[str, object]:
    return {k: v for k, v in config.flat().items() if k.startswith(INDEX_KEYS_PREFIXES)}


@dataclass(frozen=True)
class CollectionInfo:
    name: str
    documents: int
    chunks: int
    embedding_model: str
    default_preset: str
    config: dict


class Workbench:
    def __init__(self, home: str | Path | None = None):
        self.home = resolve_home(home)
        self.home.mkdir(parents=True, exist_ok=True)
        self.catalog = Catalog(self.home / "catalog.duckdb")
        self._snapshots = SnapshotCache()
        self._query_vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._query_vectors_lock = threading.Lock()

    # -- configuration ------------------------------------------------------------------------

    def config_for(self, collection: str | None, preset: str | None = None,
                   overrides: Iterable[str] | dict = ()) -> WorkbenchConfig:
        """Defaults, then the collection's index settings, then the preset, then overrides."""
        config = WorkbenchConfig()
        preset_name = preset
        with self.catalog.connect() as con:  # one connection for both reads (the preset read joins it)
            return self._config_for(con, config, collection, preset_name, overrides)

    def _config_for(self, con, config, collection, preset_name, overrides) -> WorkbenchConfig:
        if collection:
            row = repo.get_collection(con, collection)
            config = WorkbenchConfig.from_dict({**config.flat(), **_known_only(row.config, f"collection {collection!r}")})
            preset_name = preset_name or row.default_preset
        preset_name = preset_name or presets.DEFAULT_PRESET
        preset_overrides = _known_only(presets.load_overrides(self.catalog, preset_name), f"preset {preset_name!r}")
        config = WorkbenchConfig.from_dict({**config.flat(), **preset_overrides})
        if isinstance(overrides, dict):
            return WorkbenchConfig.from_dict({**config.flat(), **flatten(overrides)})
        return config.with_overrides(list(overrides))

    # -- collections --------------------------------------------------------------------------

    def collections(self) -> list[CollectionInfo]:
        with self.catalog.connect() as con:
            rows = repo.list_collections(con)
            counts = repo.collection_counts(con)
        infos = []
        for row in rows:
            docs, chunks = counts.get(row.id, (0, 0))
            model = row.config.get("embedding.model", WorkbenchConfig().embedding.model)
            infos.append(CollectionInfo(row.name, docs, chunks, model, row.default_preset, row.config))
        return infos

    def collection_names(self) -> list[str]:
        return [info.name for info in self.collections()]

    def create_collection(self, name: str, config: WorkbenchConfig | None = None) -> repo.CollectionRow:
        name = (name or "").strip()
        if not name or "/" in name or name.startswith("."):
            raise ValueError(f"collection name {name!r} is not valid; use letters, digits, '-' or '_'")
        config = config or WorkbenchConfig()
        with self.catalog.connect() as con:
            if repo.find_collection(con, name) is not None:
                raise ValueError(f"collection {name!r} already exists; pick another name or delete it first")
            row = repo.create_collection(con, name, index_overrides(config))
            repo.add_chunkset(con, row.id, Layout.of(config).chunkset_key, Layout.of(config).chunkset_config())
        return row

    def ensure_collection(self, name: str, config: WorkbenchConfig | None = None) -> repo.CollectionRow:
        with self.catalog.connect() as con:
            found = repo.find_collection(con, name)
        return found or self.create_collection(name, config)

    def delete_collection(self, name: str) -> None:
        import shutil

        with self.catalog.connect() as con:
            row = repo.get_collection(con, name)
            repo.delete_collection(con, row.id)
        self._snapshots.forget()
        shutil.rmtree(self.home / "indexes" / name, ignore_errors=True)

    def set_default_preset(self, collection: str, preset: str) -> None:
        presets.load_overrides(self.catalog, preset)
        with self.catalog.connect() as con:
            repo.set_default_preset(con, repo.get_collection(con, collection).id, preset)

    # -- ingestion ----------------------------------------------------------------------------

    def layouts_of(self, collection: str, config: WorkbenchConfig) -> list[Layout]:
        """The layout ``config`` asks for first, then every other chunk set the collection keeps."""
        wanted = Layout.of(config)
        layouts = [wanted]
        with self.catalog.connect() as con:
            row = repo.get_collection(con, collection)
            stored = repo.chunksets(con, row.id)
        for key, chunkset in stored.items():
            if key == wanted.chunkset_key:
                continue
            other = WorkbenchConfig.from_dict({**config.flat(), **flatten({"chunking": chunkset["chunking"]}),
                                               "embedding.model": chunkset["embedding_model"]})
            layouts.append(Layout.of(other))
        return layouts

    def ingest(self, collection: str, sources: Iterable[Source], config: WorkbenchConfig | None = None,
               progress: ProgressCallback | None = None) -> IngestReport:
        self.ensure_collection(collection, config)
        config = config or self.config_for(collection)
        return ingest(self.catalog, collection, sources, self.layouts_of(collection, config), progress)

    def ingest_paths(self, collection: str, paths: Iterable[Path], config: WorkbenchConfig | None = None,
                     progress: ProgressCallback | None = None) -> IngestReport:
        return self.ingest(collection, (Source.from_path(Path(p)) for p in paths), config, progress)

    def delete_document(self, collection: str, ref: str) -> repo.DocumentRow:
        from workbench.ingestion.ingest import delete_document

        document = delete_document(self.catalog, collection, ref)
        self.sync(collection)
        return document

    def sync(self, collection: str, config: WorkbenchConfig | None = None) -> None:
        """Bring every index of the collection in line with the catalog (after a crash, say)."""
        config = config or self.config_for(collection)
        for layout in self.layouts_of(collection, config):
            sync_layout(self.catalog, self.home, collection, layout)

    # -- retrieval ----------------------------------------------------------------------------

    def snapshot(self, collection: str, config: WorkbenchConfig, progress: ProgressCallback | None = None) -> Snapshot:
        """The loaded indexes for this collection and layout, built first if they do not exist."""
        layout = Layout.of(config)
        target = layout_dir(self.home, collection, layout)
        snapshot = self._snapshots.get(target)
        if snapshot is None:
            with self.catalog.connect() as con:
                repo.get_collection(con, collection)  # a clear error for an unknown collection
            ensure_chunkset(self.catalog, collection, layout, progress)
            sync_layout(self.catalog, self.home, collection, layout)
            snapshot = self._snapshots.get(target)
        return snapshot

    def embed_query(self, model: str, text: str) -> np.ndarray:
        key = (model, text)
        with self._query_vectors_lock:
            if key in self._query_vectors:
                self._query_vectors.move_to_end(key)
                return self._query_vectors[key]
        vector = get_embedder(model).embed([text])[0]
        with self._query_vectors_lock:
            self._query_vectors[key] = vector
            while len(self._query_vectors) > 20_000:
                self._query_vectors.popitem(last=False)
        return vector

    def embed_queries(self, model: str, texts: list[str]) -> None:
        """Warm the query-vector cache in one batch (evaluation embeds all its queries at once)."""
        missing = [t for t in dict.fromkeys(texts) if (model, t) not in self._query_vectors]
        if not missing:
            return
        vectors = get_embedder(model).embed(missing)
        with self._query_vectors_lock:
            for text, vector in zip(missing, vectors):
                self._query_vectors[(model, text)] = vector

    def query(self, text: str, collection: str, config: WorkbenchConfig) -> Trace:
        snapshot = self.snapshot(collection, config)
        return run_pipeline(text, config, snapshot, lambda q: self.embed_query(config.embedding.model, q), collection)

    # -- documents and chunks -----------------------------------------------------------------

    def documents(self, collection: str) -> list[repo.DocumentRow]:
        with self.catalog.connect() as con:
            row = repo.get_collection(con, collection)
            default_chunkset = next(iter(repo.chunksets(con, row.id)), None)
            return repo.documents(con, row.id, default_chunkset)

    def document(self, ref: str, collection: str | None = None) -> repo.DocumentRow:
        with self.catalog.connect() as con:
            collection_id = repo.get_collection(con, collection).id if collection else None
            found = repo.find_document(con, collection_id, str(ref))
        if found is None:
            scope = f" in collection {collection!r}" if collection else ""
            raise NotFoundError(
                f"document {ref!r} not found{scope}; pass a document id, external id or file name "
                "(list_collections / documents show them)"
            )
        return found

    def markdown(self, doc_id: int) -> tuple[str, list[int]]:
        with self.catalog.connect() as con:
            return repo.document_markdown(con, doc_id)

    def chunks_of(self, doc_id: int, config: WorkbenchConfig | None = None) -> list[tuple]:
        chunkset = Layout.of(config).chunkset_key if config else None
        with self.catalog.connect() as con:
            return repo.chunks_of_document(con, doc_id, chunkset)
