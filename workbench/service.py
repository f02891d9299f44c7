"""The workbench as one object: what the CLI, the app and the MCP server call.

It owns the home directory, a catalog handle (no open connection: see ``store.catalog``), the
loaded index snapshots and an in-memory cache of query vectors, so changing a query-time
parameter re-runs only the cheap stages. It reaches the catalog only through ``store``'s named
functions, each one transaction.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from store import collections as stored_collections
from store import documents as stored_documents
from store import repository as repo
from store import settings as stored_settings
from store.catalog import Catalog
from store.index_set import Snapshot, SnapshotCache
from store.milvus_index import MilvusCollectionMissing, MilvusError
from store.retrieval_index import IndexFormatError
from store.settings import StoredPreset, StoredSettings
from workbench.plural import count
from workbench.config import (
    DEFAULT_PRESET,
    INDEX_TIME_SECTIONS,
    ConfigError,
    WorkbenchConfig,
    flatten,
    known_keys,
    validate_overrides,
)
from workbench.embedding import get_embedder
from workbench.embedding.registry import check_embedding_model
from workbench.language.coverage import CollectionLanguage, collection_language
from workbench.models.availability import card_for, require_available
from workbench.models.catalogue import EMBEDDING, RERANK
from workbench.ingestion.indexing import SyncResult, layout_dir, sync_layout
from workbench.ingestion.ingest import IngestReport, ProgressCallback, Source, ensure_chunkset, ingest
from workbench.ingestion.layout import MILVUS, Layout
from workbench.embedding.cache import embed_cached
from workbench.llm.client import LlmClient
from workbench.llm.endpoint import SettingsLookup, settings_from_env
from workbench.retrieval.llm_cost import llm_calls_per_query
from workbench.retrieval.pipeline import run_pipeline
from workbench.retrieval.trace import Trace

log = logging.getLogger(__name__)

NotFoundError = repo.NotFoundError
HOME_ENV = "WORKBENCH_HOME"
DEFAULT_HOME = Path("data")
#: keys a collection fixes when it is created: how its chunks and indexes are built
INDEX_KEYS_PREFIXES = tuple(f"{s}." for s in INDEX_TIME_SECTIONS) + (
    "bm25.", "dense.m", "dense.ef_construction", "index.",
    # where a Milvus layout lives; never the token, and not the per-process batch size or timeout
    "milvus.uri", "milvus.collection_prefix", "milvus.analysis", "milvus.analyzer",
)
#: the environment variable a Milvus token comes from when milvus.token is not set
MILVUS_TOKEN_ENV = "MILVUS_TOKEN"


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


def uses_llm(config: WorkbenchConfig) -> bool:
    """Whether a query under ``config`` calls the LLM endpoint (query enhancement, LLM rerank)."""
    return llm_calls_per_query(config).calls > 0


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
    #: why the collection may be missing files: its last ingest did not finish ("" when it did)
    interrupted: str = ""

    @property
    def backend(self) -> str:
        """Where the collection's indexes live: local, or milvus (with its URI)."""
        if self.config.get("index.backend", "local") != "milvus":
            return "local"
        return f"milvus ({self.config.get('milvus.uri', WorkbenchConfig().milvus.uri)})"


def _interrupted(last_ingest) -> str:
    if last_ingest is None or last_ingest.status == "finished":
        return ""
    how = "was cancelled" if last_ingest.status == "cancelled" else "was interrupted (or is still running)"
    return (f"the last ingest {how} after {last_ingest.files_recorded} of its {count(last_ingest.files_total, 'file')}; "
            "run it again to finish (unchanged files are skipped, cached texts are not embedded again)")


@dataclass(frozen=True)
class Migration:
    collection: str
    backend: str
    uri: str | None
    results: tuple  # SyncResult of every layout built at the new place
    dropped: tuple[str, ...]  # what was removed from the old place


class Workbench:
    def __init__(self, home: str | Path | None = None):
        self.home = resolve_home(home)
        self.home.mkdir(parents=True, exist_ok=True)
        self.catalog = Catalog.in_home(self.home)
        self._snapshots = SnapshotCache()
        self._layout_dirs: dict[tuple[str, Layout], Path] = {}
        self._query_vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._query_vectors_lock = threading.Lock()
        self._languages: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # snapshot -> CollectionLanguage
        self._llm: tuple[SettingsLookup, LlmClient] | None = None
        self._llm_lock = threading.Lock()

    def llm(self) -> LlmClient:
        """The LLM endpoint the environment configures, behind the home's reply cache.

        ``available`` is False (and ``problem`` says why) without one. The client is kept while the
        settings stay the same, so its in-process cache layer lives as long as this object.
        """
        lookup = settings_from_env()
        with self._llm_lock:
            if self._llm is None or self._llm[0] != lookup:
                self._llm = (lookup, LlmClient.from_settings(lookup, self.catalog))
            return self._llm[1]

    # -- configuration ------------------------------------------------------------------------

    def settings(self) -> StoredSettings:
        """Every collection's stored settings and every preset, read in one catalog transaction."""
        return stored_settings.read_settings(self.catalog)

    def config_for(self, collection: str | None, preset: str | None = None,
                   overrides: Iterable[str] | dict = (), settings: StoredSettings | None = None) -> WorkbenchConfig:
        """Defaults, then the collection's index settings, then the preset, then overrides.

        ``settings`` is what ``settings()`` returned, for a caller that has read it already.
        """
        if settings is None:
            settings = self.settings()
        config = WorkbenchConfig()
        preset_name = preset
        if collection:
            row = settings.collection(collection)
            config = WorkbenchConfig.from_dict({**config.flat(), **_known_only(row.config, f"collection {collection!r}")})
            preset_name = preset_name or row.default_preset
        preset_name = preset_name or DEFAULT_PRESET
        preset_overrides = _known_only(settings.preset(preset_name), f"preset {preset_name!r}")
        config = WorkbenchConfig.from_dict({**config.flat(), **preset_overrides})
        if isinstance(overrides, dict):
            return WorkbenchConfig.from_dict({**config.flat(), **flatten(overrides)})
        return config.with_overrides(list(overrides))

    @staticmethod
    def check_models(config: WorkbenchConfig) -> None:
        """Raise ``ModelNotAvailableError`` (naming the model and the command that downloads it)
        when the embedding or rerank model of ``config`` is not on this machine. Callers check
        before they write anything, so a missing model leaves the home as it was."""
        check_embedding_model(config.embedding.model)
        if config.rerank.model.strip():
            require_available(config.rerank.model.strip(), RERANK)

    # -- collections --------------------------------------------------------------------------

    def collections(self) -> list[CollectionInfo]:
        default_model = WorkbenchConfig().embedding.model
        return [
            CollectionInfo(s.row.name, s.documents, s.chunks, s.row.config.get("embedding.model", default_model),
                           s.row.default_preset, s.row.config, _interrupted(s.last_ingest))
            for s in stored_collections.collection_summaries(self.catalog)
        ]

    def collection_names(self) -> list[str]:
        return [info.name for info in self.collections()]

    def create_collection(self, name: str, config: WorkbenchConfig | None = None) -> repo.CollectionRow:
        name = (name or "").strip()
        if not name or "/" in name or name.startswith("."):
            raise ValueError(f"collection name {name!r} is not valid; use letters, digits, '-' or '_'")
        config = config or WorkbenchConfig()
        self.check_models(config)
        layout = Layout.of(config)
        return stored_collections.create_collection(
            self.catalog, name, index_overrides(config), layout.chunkset_key, layout.chunkset_config()
        )

    def ensure_collection(self, name: str, config: WorkbenchConfig | None = None) -> repo.CollectionRow:
        found = stored_collections.find_collection(self.catalog, name)
        return found or self.create_collection(name, config)

    def delete_collection(self, name: str) -> None:
        config = self.config_for(name)
        milvus_layouts = [layout for layout in self.layouts_of(name, config) if layout.backend == MILVUS]
        stored_collections.delete_collection(self.catalog, name)
        self._snapshots.forget()
        self._drop_milvus(name, config, milvus_layouts)
        shutil.rmtree(self.home / "indexes" / name, ignore_errors=True)

    def store_collection_settings(self, collection: str, settings: dict[str, object]) -> dict[str, object]:
        """Keep query-time ``settings`` (flat keys, e.g. calibrated ``confidence.*`` thresholds)
        with the collection: they apply before any preset. Index-time keys are refused, because
        the collection's chunks and indexes were built with its own."""
        index_keys = sorted(k for k in settings if k.startswith(INDEX_KEYS_PREFIXES))
        if index_keys:
            raise ValueError(f"{', '.join(index_keys)} cannot change on an existing collection; "
                             "create a new collection (or a new layout in the Chunking lab) instead")
        WorkbenchConfig.from_dict(settings)  # a bad key or value fails here, naming it
        return stored_collections.update_collection_settings(self.catalog, collection, settings)

    # -- presets ------------------------------------------------------------------------------

    def presets(self) -> list[StoredPreset]:
        """Every preset by name, the built-in ``default`` included."""
        return stored_settings.list_presets(self.catalog)

    def preset_overrides(self, name: str) -> dict[str, object]:
        """The flat keys preset ``name`` sets, or a ``NotFoundError`` listing the known presets."""
        return self.settings().preset(name)

    def save_preset(self, name: str, overrides: dict, description: str = "") -> dict[str, object]:
        """Store ``overrides`` (validated, flattened) as preset ``name`` and return them."""
        if not name or not name.strip():
            raise ConfigError("a preset needs a name")
        flat = validate_overrides(overrides)
        stored_settings.save_preset(self.catalog, name.strip(), flat, description)
        return flat

    def set_default_preset(self, collection: str, preset: str) -> None:
        stored_settings.set_default_preset(self.catalog, collection, preset)

    # -- ingestion ----------------------------------------------------------------------------

    def layouts_of(self, collection: str, config: WorkbenchConfig) -> list[Layout]:
        """The layout ``config`` asks for first, then every other chunk set the collection keeps."""
        wanted = Layout.of(config)
        layouts = [wanted]
        stored = stored_collections.chunksets_of(self.catalog, collection)
        for key, chunkset in stored.items():
            if key == wanted.chunkset_key:
                continue
            other = WorkbenchConfig.from_dict({**config.flat(), **flatten({"chunking": chunkset["chunking"]}),
                                               "embedding.model": chunkset["embedding_model"]})
            layouts.append(Layout.of(other))
        return layouts

    def ingest(self, collection: str, sources: Iterable[Source], config: WorkbenchConfig | None = None,
               progress: ProgressCallback | None = None, cancel: threading.Event | None = None) -> IngestReport:
        """Ingest ``sources`` under ``config.ingest``'s limits; setting ``cancel`` stops it cleanly."""
        if config is not None:
            self.check_models(config)  # before a new collection is created
        self.ensure_collection(collection, config)
        if config is None:
            config = self.config_for(collection)
            self.check_models(config)  # an existing collection's own models, before any file is parsed
        self.reach(config)
        return ingest(self.catalog, collection, sources, self.layouts_of(collection, config), progress,
                      limits=config.ingest, cancel=cancel)

    def ingest_paths(self, collection: str, paths: Iterable[Path], config: WorkbenchConfig | None = None,
                     progress: ProgressCallback | None = None, cancel: threading.Event | None = None) -> IngestReport:
        return self.ingest(collection, (Source.from_path(Path(p)) for p in paths), config, progress, cancel)

    def delete_document(self, collection: str, ref: str) -> repo.DocumentRow:
        document = stored_documents.delete_document(self.catalog, collection, ref)
        self.sync(collection)
        return document

    def sync(self, collection: str, config: WorkbenchConfig | None = None, verify: bool = False) -> list[SyncResult]:
        """Bring every index of the collection in line with the catalog (after a crash, say).

        ``verify`` checks a Milvus layout's rows against the catalog even when its snapshot says
        it is current, repairing whatever differs. (A local snapshot is published atomically, so
        its generation tells whether it is current.)
        """
        config = self.reach(config or self.config_for(collection))
        return [sync_layout(self.catalog, self.home, collection, layout, rebuild=verify and layout.backend == MILVUS)
                for layout in self.layouts_of(collection, config)]

    def migrate_backend(self, collection: str, backend: str, uri: str | None = None,
                        progress: ProgressCallback | None = None) -> Migration:
        """Move a collection's indexes to another backend, re-embedding nothing.

        The new place is built from the catalog (chunks, and vectors from the embedding cache),
        then the collection's stored settings point at it, then the old place is removed: the
        old local index folders, or the old Milvus collections. A failure before the switch
        leaves the collection where it was.
        """
        current = self.config_for(collection)
        changes: dict[str, object] = {"index.backend": backend}
        if uri is not None:
            if backend != MILVUS:
                raise ConfigError("--uri names a Milvus; it goes with --to milvus")
            changes["milvus.uri"] = uri
        target = self.reach(current.with_overrides([f"{key}={value}" for key, value in changes.items()]))
        if Layout.of(target) == Layout.of(current):
            raise ConfigError(f"collection {collection!r} already lives there ({backend}"
                              f"{' at ' + target.milvus.uri if backend == MILVUS else ''}); nothing to move")
        results = []
        for layout in self.layouts_of(collection, target):
            ensure_chunkset(self.catalog, collection, layout, progress)
            results.append(sync_layout(self.catalog, self.home, collection, layout, rebuild=True))
        stored_collections.update_collection_settings(self.catalog, collection, index_overrides(target))
        dropped = []
        for layout in self.layouts_of(collection, current):
            folder = layout_dir(self.home, collection, layout)
            if layout.backend == MILVUS:
                dropped.extend(self._drop_milvus(collection, current, [layout]))
            if folder.exists():
                self._snapshots.forget(folder)
                shutil.rmtree(folder, ignore_errors=True)
                dropped.append(str(folder))
        return Migration(collection, backend, target.milvus.uri if backend == MILVUS else None, tuple(results),
                         tuple(dropped))

    def reach(self, config: WorkbenchConfig) -> WorkbenchConfig:
        """Tell the Milvus connections how to reach this configuration's Milvus (token, timeout,
        batch size); returns the configuration. Local configurations pass through."""
        if config.index.backend == MILVUS:
            from store.milvus_index import CONNECTIONS, MilvusAccess, check_collection_prefix, resolve_uri

            try:
                check_collection_prefix(config.milvus.collection_prefix)
                uri = resolve_uri(config.milvus.uri, self.home)
                access = MilvusAccess(token=config.milvus.token or os.environ.get(MILVUS_TOKEN_ENV, ""),
                                      timeout_s=config.milvus.timeout_s, batch_size=config.milvus.batch_size)
            except ValueError as error:
                raise ConfigError(str(error)) from None
            CONNECTIONS.configure(uri, access)
        return config

    def release_milvus(self) -> None:
        """Close this process's Milvus connections; a Milvus Lite file becomes free for another process."""
        from store.milvus_index import CONNECTIONS

        CONNECTIONS.release()
        self._snapshots.forget()

    def _drop_milvus(self, collection: str, config: WorkbenchConfig, layouts: list[Layout]) -> list[str]:
        """Drop the Milvus collections of these layouts; a Milvus that cannot be reached is
        reported and skipped (the collection's rows there are derived data)."""
        from workbench.ingestion.milvus_sync import drop_milvus_layout, milvus_target

        if not layouts:
            return []
        self.reach(config)
        dropped = []
        for layout in layouts:
            uri, name = milvus_target(self.home, collection, layout)
            try:
                if drop_milvus_layout(self.home, collection, layout):
                    dropped.append(f"Milvus collection {name} at {uri}")
            except MilvusError as error:
                log.warning("left Milvus collection %s in place: %s", name, error)
        return dropped

    # -- retrieval ----------------------------------------------------------------------------

    def snapshot(self, collection: str, config: WorkbenchConfig, progress: ProgressCallback | None = None) -> Snapshot:
        """The loaded indexes for this collection and layout, built first if they do not exist."""
        layout = Layout.of(config)
        target = self._layout_dirs.get((collection, layout))
        if target is None:
            target = self._layout_dirs[(collection, layout)] = layout_dir(self.home, collection, layout)
            self.reach(config)
        try:
            snapshot = self._snapshots.get(target)
        except (IndexFormatError, MilvusCollectionMissing) as error:
            # Indexes are derived from the catalog: one written by another version is rebuilt,
            # and a Milvus collection that went missing (a new server, say) is pushed again.
            log.warning("rebuilding %s: %s", target, error)
            sync_layout(self.catalog, self.home, collection, layout, rebuild=True)
            snapshot = self._snapshots.get(target)
        if snapshot is None:
            stored_collections.get_collection(self.catalog, collection)  # a clear error for an unknown collection
            check_embedding_model(config.embedding.model)  # building a layout embeds its chunks
            ensure_chunkset(self.catalog, collection, layout, progress)
            sync_layout(self.catalog, self.home, collection, layout)
            snapshot = self._snapshots.get(target)
        return snapshot

    def collection_language(self, collection: str, config: WorkbenchConfig | None = None) -> CollectionLanguage:
        """The language mix of the collection's chunks (for ``config``'s layout), whether its
        embedding model covers it, and a warning naming models that do when it does not."""
        config = config or self.config_for(collection)
        snapshot = self.snapshot(collection, config)
        found = self._languages.get(snapshot)
        if found is None:
            texts = [chunk.text for chunk in snapshot.chunks.values()]
            found = collection_language(texts, card_for(config.embedding.model, EMBEDDING))
            self._languages[snapshot] = found
        return found

    def embed_query(self, model: str, text: str) -> np.ndarray:
        key = (model, text)
        with self._query_vectors_lock:
            if key in self._query_vectors:
                self._query_vectors.move_to_end(key)
                return self._query_vectors[key]
        vector = self._embed_queries(model, [text])[0]
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
        vectors = self._embed_queries(model, missing)
        with self._query_vectors_lock:
            for text, vector in zip(missing, vectors):
                self._query_vectors[(model, text)] = vector

    def _embed_queries(self, model: str, texts: list[str]) -> np.ndarray:
        embedder = get_embedder(model)
        if getattr(embedder, "remote", False):
            # an endpoint model costs a request per query: its query vectors are kept in the catalog too
            return embed_cached(self.catalog, embedder, texts)[0]
        return embedder.embed_queries(texts)

    def query(self, text: str, collection: str, config: WorkbenchConfig) -> Trace:
        snapshot = self.snapshot(collection, config)
        llm = self.llm() if uses_llm(config) else None
        return run_pipeline(text, config, snapshot, lambda q: self.embed_query(config.embedding.model, q), collection,
                            llm)

    # -- documents and chunks -----------------------------------------------------------------

    def documents(self, collection: str) -> list[repo.DocumentRow]:
        return stored_documents.documents_of(self.catalog, collection)

    def document(self, ref: str, collection: str | None = None) -> repo.DocumentRow:
        found = stored_documents.find_document(self.catalog, str(ref), collection)
        if found is None:
            scope = f" in collection {collection!r}" if collection else ""
            raise NotFoundError(
                f"document {ref!r} not found{scope}; pass a document id, external id or file name "
                "(list_collections / documents show them)"
            )
        return found

    def chunk_metadata(self, chunk_id: int) -> dict:
        found = stored_documents.chunk_metadata(self.catalog, int(chunk_id))
        if found is None:
            raise NotFoundError(f"chunk {chunk_id} not found; chunk ids come from query results or chunks_of")
        return found

    def original_image(self, document: repo.DocumentRow) -> tuple[bytes, str] | None:
        """An image document's picture and MIME type (None for other documents, or when it is gone)."""
        from store.originals import read_original
        from workbench.ingestion.images import IMAGE_DOC_TYPES, IMAGE_TYPES

        suffix = Path(document.source).suffix.lower()
        if document.doc_type not in IMAGE_DOC_TYPES or suffix not in IMAGE_TYPES:
            return None
        data = read_original(self.home, document.sha256, suffix)
        return None if data is None else (data, IMAGE_TYPES[suffix][1])

    def markdown(self, doc_id: int) -> tuple[str, list[int]]:
        return stored_documents.document_markdown(self.catalog, doc_id)

    def chunks_of(self, doc_id: int, config: WorkbenchConfig | None = None) -> list[tuple]:
        chunkset = Layout.of(config).chunkset_key if config else None
        return stored_documents.chunks_of_document(self.catalog, doc_id, chunkset)
