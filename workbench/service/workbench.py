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
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from store import collections as stored_collections
from store import documents as stored_documents
from store import repository as repo
from store import settings as stored_settings
from store.catalog import Catalog
from store.index_set import Snapshot, SnapshotCache
from store.query_log import QUERY_LOG_DIR, QueryLogFile
from store.retrieval_index import IndexBackendError, IndexFormatError, IndexMissing
from store.settings import StoredPreset, StoredSettings
from workbench.backends import BACKENDS, backend_of, open_snapshot_indexes
from workbench.config import (
    DEFAULT_PRESET,
    ConfigError,
    Lifetime,
    WorkbenchConfig,
    embedding_settings,
    flatten,
    index_settings,
    lifetime_of,
    validate_overrides,
)
from workbench.embedding import get_embedder
from workbench.embedding.cache import embed_cached
from workbench.embedding.calibration import choose_runtime
from workbench.embedding.query_cache import QueryVectorCache
from workbench.embedding.registry import check_embedding_model
from workbench.embedding.runtimes import check_collection_runtime, collection_runtime, keep_collection_runtime
from workbench.facade import ReadOnlyError
from workbench.golden.query_log import record_query
from workbench.ingestion.chunksets import ensure_chunkset
from workbench.ingestion.indexing import SyncResult, layout_dir, sync_layout
from workbench.ingestion.ingest import IngestReport, ProgressCallback, Source, ingest
from workbench.ingestion.parsers.image_notes import notes_of
from workbench.ingestion.reparse import OcrRetry, Reparse, ocr_retry_plan, reparse_plan
from workbench.language.coverage import CollectionLanguage, collection_language
from workbench.layout import Layout
from workbench.llm.client import LlmClient
from workbench.llm.endpoint import SettingsLookup, settings_from_env
from workbench.models.availability import card_for, require_available
from workbench.models.catalogue import EMBEDDING, RERANK
from workbench.retrieval.llm_cost import llm_calls_per_query
from workbench.retrieval.pipeline import run_pipeline
from workbench.retrieval.trace import Trace
from workbench.service.collection_info import (
    ChunksOverWindow,
    CollectionInfo,
    Migration,
    chunks_over_window,
    interrupted_reason,
    known_only,
)
from workbench.service.home import resolve_home
from workbench.service.joining import join_check
from workbench.service.reparsing import judged_outdated, reanchor_after
from workbench.service.sharing import SHARE_VAR, read_only_message, refused_when_read_only

log = logging.getLogger(__name__)

NotFoundError = repo.NotFoundError
#: an index backend failed (a Milvus that is down, say); the message names the place and the fix
BackendError = IndexBackendError


def uses_llm(config: WorkbenchConfig) -> bool:
    """Whether a query under ``config`` calls the LLM endpoint (query enhancement, LLM rerank)."""
    return llm_calls_per_query(config).calls > 0


class Workbench:
    def __init__(self, home: str | os.PathLike[str] | None = None, read_only: bool = False):
        self.home = resolve_home(home)
        self.read_only = read_only  # a read-only shared session: writes and LLM calls are refused
        self.home.mkdir(parents=True, exist_ok=True)
        self.catalog = Catalog.in_home(self.home)
        self._snapshots = SnapshotCache(open_snapshot_indexes)
        self._layout_dirs: dict[tuple[str, Layout], Path] = {}
        self._query_vectors = QueryVectorCache(self._embed_queries)
        self._languages: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # snapshot -> CollectionLanguage
        self._llm: tuple[SettingsLookup, LlmClient] | None = None
        self._llm_lock = threading.Lock()
        self.query_log = QueryLogFile(self.home / QUERY_LOG_DIR)

    def require_writable(self, action: str) -> None:
        """Raise ``ReadOnlyError`` naming ``action`` in a read-only shared session."""
        if self.read_only:
            raise ReadOnlyError(read_only_message(action))

    def llm(self) -> LlmClient:
        """The LLM endpoint the environment configures, behind the home's reply cache.

        ``available`` is False (and ``problem`` says why) without one. The client is kept while the
        settings stay the same, so its in-process cache layer lives as long as this object.
        """
        if self.read_only:
            return LlmClient(None, problem=f"refused in a read-only shared session ({SHARE_VAR}=readonly)")
        lookup = settings_from_env()
        with self._llm_lock:
            if self._llm is None or self._llm[0] != lookup:
                self._llm = (lookup, LlmClient.from_settings(lookup, self.catalog))
            return self._llm[1]

    # -- configuration ------------------------------------------------------------------------

    def settings(self) -> StoredSettings:
        """Every collection's stored settings and every preset, read in one catalog transaction."""
        return stored_settings.read_settings(self.catalog)

    def config_for(
        self,
        collection: str | None,
        preset: str | None = None,
        overrides: Iterable[str] | dict = (),
        settings: StoredSettings | None = None,
    ) -> WorkbenchConfig:
        """Defaults, then the collection's index settings, then the preset, then overrides.

        ``settings`` is what ``settings()`` returned, for a caller that has read it already.
        """
        if settings is None:
            settings = self.settings()
        config = WorkbenchConfig()
        preset_name = preset
        stored: dict = {}
        if collection:
            row = settings.collection(collection)
            stored = known_only(row.config, f"collection {collection!r}")
            runtime, precision = collection_runtime(stored)
            stored |= {"embedding.runtime": runtime, "embedding.precision": precision}
            config = WorkbenchConfig.from_dict({**config.flat(), **stored})
            preset_name = preset_name or row.default_preset
        preset_name = preset_name or DEFAULT_PRESET
        preset_overrides = known_only(settings.preset(preset_name), f"preset {preset_name!r}")
        config = WorkbenchConfig.from_dict({**config.flat(), **preset_overrides})
        if isinstance(overrides, dict):
            config = WorkbenchConfig.from_dict({**config.flat(), **flatten(overrides)})
        else:
            config = config.with_overrides(list(overrides))
        return keep_collection_runtime(collection, stored, config) if collection else config

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
            CollectionInfo(
                s.row.name,
                s.documents,
                s.chunks,
                s.row.config.get("embedding.model", default_model),
                s.row.default_preset,
                s.row.config,
                interrupted_reason(s.last_ingest),
            )
            for s in stored_collections.collection_summaries(self.catalog)
        ]

    def collection_names(self) -> list[str]:
        return [info.name for info in self.collections()]

    @refused_when_read_only("Creating a collection")
    def create_collection(self, name: str, config: WorkbenchConfig | None = None) -> repo.CollectionRow:
        """A new collection; one that exists already is refused (``create_or_join_collection`` joins it)."""
        return self._make_collection(name, config, join=False)[0]

    @refused_when_read_only("Creating a collection")
    def create_or_join_collection(
        self, name: str, config: WorkbenchConfig | None = None
    ) -> tuple[repo.CollectionRow, bool]:
        """The collection ``name`` and whether it was made now: made with ``config``, or, when it
        exists (another writer made it first), joined if it has ``config``'s index-time settings,
        else a ``CollectionSettingsConflict`` naming both. ``None`` joins whatever is there."""
        row, _, created = self._make_collection(name, config, join=True)
        return row, created

    def _make_collection(
        self, name: str, config: WorkbenchConfig | None, join: bool
    ) -> tuple[repo.CollectionRow, str, bool]:
        """The collection, on the encoder runtime ``auto`` (or the one asked for) gives here; the note
        saying why it is torch fp32 instead when that runtime cannot run ("" if none, or if joined);
        and whether it was made now."""
        name = (name or "").strip()
        if not name or "/" in name or name.startswith("."):
            raise ValueError(f"collection name {name!r} is not valid; use letters, digits, '-' or '_'")
        requested = config
        config = config or WorkbenchConfig()
        self.check_models(config)
        choice = choose_runtime(self.home, config.embedding)
        asked_runtime = config.embedding.runtime
        config = config.with_overrides(
            [f"embedding.runtime={choice.runtime}", f"embedding.precision={choice.precision}"]
        )
        layout = Layout.of(config)
        settings = index_settings(config)
        if not join:
            row = stored_collections.create_collection(
                self.catalog, name, settings, layout.chunkset_key, layout.chunkset_config()
            )
            created = True
        else:  # the look and the making are one catalog transaction: two writers cannot both make it
            check = join_check(config if requested is not None else None, asked_runtime)
            row, created = stored_collections.create_or_join_collection(
                self.catalog, name, settings, layout.chunkset_key, layout.chunkset_config(), check
            )
        if created and choice.note:
            log.warning("collection %r: %s", name, choice.note)
        return row, choice.note if created else "", created

    def ensure_collection(self, name: str, config: WorkbenchConfig | None = None) -> repo.CollectionRow:
        found = stored_collections.find_collection(self.catalog, name)
        return found or self.create_or_join_collection(name, config)[0]

    @refused_when_read_only("Deleting a collection")
    def delete_collection(self, name: str) -> None:
        config = self.config_for(name)
        layouts = self.layouts_of(name, config)
        stored_collections.delete_collection(self.catalog, name)
        self._forget_layouts(name)
        self._snapshots.forget()
        self._drop(name, config, layouts)
        shutil.rmtree(self.home / "indexes" / name, ignore_errors=True)

    @refused_when_read_only("Changing a collection's settings")
    def store_collection_settings(self, collection: str, settings: dict[str, object]) -> dict[str, object]:
        """Keep query-time ``settings`` (flat keys, e.g. calibrated ``confidence.*`` thresholds)
        with the collection: they apply before any preset. Index-time keys are refused, because
        the collection's chunks and indexes were built with its own."""
        index_keys = sorted(k for k in settings if lifetime_of(k) is Lifetime.INDEX)
        if index_keys:
            raise ValueError(
                f"{', '.join(index_keys)} cannot change on an existing collection; "
                "create a new collection (or a new layout in the Chunking lab) instead"
            )
        WorkbenchConfig.from_dict(settings)  # a bad key or value fails here, naming it
        return stored_collections.update_collection_settings(self.catalog, collection, settings)

    # -- presets ------------------------------------------------------------------------------

    def presets(self) -> list[StoredPreset]:
        """Every preset by name, the built-in ``default`` included."""
        return stored_settings.list_presets(self.catalog)

    def preset_overrides(self, name: str) -> dict[str, object]:
        """The flat keys preset ``name`` sets, or a ``NotFoundError`` listing the known presets."""
        return self.settings().preset(name)

    @refused_when_read_only("Saving a preset")
    def save_preset(
        self,
        name: str,
        overrides: Mapping[str, Any],
        description: str = "",
        provenance: Mapping[str, Any] | None = None,
    ) -> dict[str, object]:
        """Store ``overrides`` (validated, flattened) as preset ``name`` and return them.

        ``provenance`` records what chose them (``tune`` records its study and held-out estimate)."""
        if not name or not name.strip():
            raise ConfigError("a preset needs a name")
        flat = validate_overrides(overrides)
        stored_settings.save_preset(
            self.catalog, name.strip(), flat, description, dict(provenance) if provenance is not None else None
        )
        return flat

    @refused_when_read_only("Changing the default preset")
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
            other = WorkbenchConfig.from_dict(
                {
                    **config.flat(),
                    **flatten({"chunking": chunkset["chunking"]}),
                    **embedding_settings(chunkset["embedding_model"]),
                }
            )
            layouts.append(Layout.of(other))
        return layouts

    @refused_when_read_only("Uploading documents")
    def ingest(
        self,
        collection: str,
        sources: Iterable[Source],
        config: WorkbenchConfig | None = None,
        progress: ProgressCallback | None = None,
        cancel: threading.Event | None = None,
        again: frozenset[str] = frozenset(),
    ) -> IngestReport:
        """Ingest ``sources`` under ``config.ingest``'s limits; setting ``cancel`` stops it cleanly.
        Sources named in ``again`` are parsed even when unchanged."""
        if config is not None:
            self.check_models(config)  # before a new collection is created
        found = stored_collections.find_collection(self.catalog, collection)
        created = False
        if found is not None:
            row, runtime_note = found, ""
        else:  # made here, or joined when another writer made it since with the same settings
            row, runtime_note, created = self._make_collection(collection, config, join=True)
        if config is None:
            config = self.config_for(collection)
            self.check_models(config)  # an existing collection's own models, before any file is parsed
        if found is None:  # made or joined just now: its runtime is the one chosen there (auto, or a fallback)
            config = config.with_overrides(["embedding.runtime=auto"])
        config = keep_collection_runtime(collection, row.config, config)
        self.reach(config)
        sources = list(sources)
        before = [] if created else judged_outdated(self.catalog, self.home, collection, sources)
        report = ingest(
            self.catalog,
            collection,
            sources,
            self.layouts_of(collection, config),
            progress,
            limits=config.ingest,
            cancel=cancel,
            again=again,
        )
        report.notes.extend([runtime_note] if runtime_note else [])
        reanchor_after(self.catalog, self.home, collection, before, report)  # golden spans follow re-parsed text
        return report

    @refused_when_read_only("Parsing documents again")
    def reparse_outdated(
        self, collection: str, config: WorkbenchConfig | None = None, progress: ProgressCallback | None = None
    ) -> Reparse:
        """Parse again, from their kept originals, the documents an older parser wrote (see ``ingestion.reparse``)."""
        plan = reparse_plan(self.catalog, self.home, collection)
        report = self.ingest(collection, plan.sources, config, progress) if plan.sources else None
        return Reparse(report, plan.without_original, list(report.notes) if report else [])

    @refused_when_read_only("Reading skipped pictures")
    def retry_ocr(
        self, collection: str, config: WorkbenchConfig | None = None, progress: ProgressCallback | None = None
    ) -> OcrRetry:
        """Parse again, from their kept originals, only the documents with pictures skipped for time, a
        limit or a missing tesseract (``sync --ocr``), under ``config.ingest``'s limits."""
        plan = ocr_retry_plan(self.catalog, self.home, collection)
        if not plan.sources:
            return OcrRetry(plan)
        report = self.ingest(
            collection, plan.sources, config, progress, again=frozenset(source.name for source in plan.sources)
        )
        after = {}
        for source in plan.skipped:
            found = stored_documents.find_document(self.catalog, source, collection)
            after[source] = notes_of(found.parse_report) if found is not None else []
        return OcrRetry(plan, report, after)

    def ingest_paths(
        self,
        collection: str,
        paths: Iterable[Path],
        config: WorkbenchConfig | None = None,
        progress: ProgressCallback | None = None,
        cancel: threading.Event | None = None,
    ) -> IngestReport:
        return self.ingest(collection, (Source.from_path(Path(p)) for p in paths), config, progress, cancel)

    @refused_when_read_only("Deleting a document")
    def delete_document(self, collection: str, ref: str) -> repo.DocumentRow:
        document = stored_documents.delete_document(self.catalog, collection, ref)
        self.sync(collection, reparse=False)
        return document

    def sync(
        self,
        collection: str,
        config: WorkbenchConfig | None = None,
        verify: bool = False,
        reparse: bool = True,
        progress: ProgressCallback | None = None,
    ) -> list[SyncResult]:
        """Bring every index of the collection in line with the catalog (after a crash, say), the
        chunk set ``config`` asks for made first where the collection lacks it.

        ``reparse`` first parses again the documents an older parser wrote, from their kept
        originals (``reparse_outdated``; skipped on a read-only workbench). ``verify`` checks a
        copy kept outside the home (a Milvus collection's rows) against the catalog even when its
        snapshot says it is current, repairing whatever differs. (A local snapshot is published
        atomically, so its generation tells whether it is current.)
        """
        if reparse and not self.read_only:
            reparsed = self.reparse_outdated(collection, config)
            if reparsed.summary():
                log.info("%s: %s", collection, reparsed.summary())
        config = self.reach(config or self.config_for(collection))
        layouts = self.layouts_of(collection, config)
        if not self.read_only:  # a chunking new to the collection (a new default, say) is made first
            ensure_chunkset(self.catalog, collection, layouts[0], progress)
        return [sync_layout(self.catalog, self.home, collection, layout, verify=verify) for layout in layouts]

    @refused_when_read_only("Moving a collection's indexes")
    def migrate_backend(
        self, collection: str, backend: str, uri: str | None = None, progress: ProgressCallback | None = None
    ) -> Migration:
        """Move a collection's indexes to another backend, re-embedding nothing.

        The new place is built from the catalog (chunks, and vectors from the embedding cache),
        then the collection's stored settings point at it, then the old place is removed: the
        old snapshot folders, and what the old backend kept outside the home (Milvus collections).
        A failure before the switch leaves the collection where it was.
        """
        current = self.config_for(collection)
        target = current.with_overrides([f"index.backend={backend}"])  # an unknown backend fails here
        chosen = backend_of(target)
        if uri is not None:
            if chosen.uri_key is None:
                at_uris = [name for name in BACKENDS.names() if BACKENDS.get(name).uri_key]
                raise ConfigError(
                    f"--uri says where a backend that lives at a URI ({', '.join(at_uris)}) keeps "
                    f"its indexes; {backend} keeps them in the home"
                )
            target = target.with_overrides([f"{chosen.uri_key}={uri}"])
        target = self.reach(target)
        if Layout.of(target) == Layout.of(current):
            where = chosen.uri_of(target)
            raise ConfigError(
                f"collection {collection!r} already lives there ({backend}"
                f"{' at ' + where if where else ''}); nothing to move"
            )
        results = []
        for layout in self.layouts_of(collection, target):
            ensure_chunkset(self.catalog, collection, layout, progress)
            results.append(sync_layout(self.catalog, self.home, collection, layout, rebuild=True))
        stored_collections.update_collection_settings(self.catalog, collection, index_settings(target))
        self._forget_layouts(collection)
        dropped = []
        for layout in self.layouts_of(collection, current):
            folder = layout_dir(self.home, collection, layout)
            dropped.extend(self._drop(collection, current, [layout]))
            if folder.exists():
                self._snapshots.forget(folder)
                shutil.rmtree(folder, ignore_errors=True)
                dropped.append(str(folder))
        return Migration(collection, backend, chosen.uri_of(target), tuple(results), tuple(dropped))

    def reach(self, config: WorkbenchConfig) -> WorkbenchConfig:
        """Tell ``config``'s index backend how to reach its place (a Milvus token, timeout and batch
        size, say); returns the configuration."""
        try:
            backend_of(config).configure(config, self.home)
        except ValueError as error:
            raise ConfigError(str(error)) from None
        return config

    def release_backends(self) -> None:
        """Close this process's backend connections (a Milvus Lite file becomes free for another process)."""
        for backend in BACKENDS:
            backend.release()
        self._snapshots.forget()

    def _forget_layouts(self, collection: str) -> None:
        """Forget where ``collection``'s layouts live: after it is deleted or moved, the next
        snapshot checks its runtime and reaches its backend again."""
        self._layout_dirs = {key: folder for key, folder in self._layout_dirs.items() if key[0] != collection}

    def _drop(self, collection: str, config: WorkbenchConfig, layouts: list[Layout]) -> list[str]:
        """Drop what each layout's backend keeps outside the home; a place that cannot be reached
        is reported and skipped (its rows there are derived data)."""
        self.reach(config)
        return [
            dropped
            for layout in layouts
            for dropped in BACKENDS.get(layout.backend).drop(self.home, collection, layout)
        ]

    # -- retrieval ----------------------------------------------------------------------------

    def snapshot_loaded(self, collection: str, config: WorkbenchConfig) -> bool:
        """Whether ``snapshot`` would return at once: the layout's indexes loaded and current."""
        target = self._layout_dirs.get((collection, Layout.of(config)))
        return target is not None and self._snapshots.peek(target) is not None

    def snapshot(self, collection: str, config: WorkbenchConfig, progress: ProgressCallback | None = None) -> Snapshot:
        """The loaded indexes for this collection and layout, built first if they do not exist."""
        layout = Layout.of(config)
        target = self._layout_dirs.get((collection, layout))
        if target is None:
            check_collection_runtime(collection, self.settings().collection(collection).config, config)
            target = self._layout_dirs[(collection, layout)] = layout_dir(self.home, collection, layout)
            self.reach(config)
        try:
            snapshot = self._snapshots.get(target)
        except (IndexFormatError, IndexMissing) as error:
            # Indexes are derived from the catalog: one written by another version is rebuilt,
            # and one that went missing (a Milvus collection on a new server, say) is pushed again.
            log.warning("rebuilding %s: %s", target, error)
            sync_layout(self.catalog, self.home, collection, layout, rebuild=True)
            snapshot = self._snapshots.get(target)
        if snapshot is None:
            stored_collections.get_collection(self.catalog, collection)  # a clear error for an unknown collection
            check_embedding_model(config.embedding.model)  # building a layout embeds its chunks
            ensure_chunkset(self.catalog, collection, layout, progress)
            sync_layout(self.catalog, self.home, collection, layout)
            snapshot = self._snapshots.get(target)
        if snapshot is None:  # sync_layout publishes what it builds: only a folder removed meanwhile gets here
            raise IndexBackendError(
                f"collection {collection!r}: no index snapshot in {target} after building it; retry"
            )
        return snapshot

    def collection_language(self, collection: str, config: WorkbenchConfig | None = None) -> CollectionLanguage:
        """The language mix of the collection's chunks (for ``config``'s layout), whether its
        embedding model covers it, and a warning naming models that do when it does not."""
        config = config or self.config_for(collection)
        snapshot = self.snapshot(collection, config)
        found = self._languages.get(snapshot)
        if found is None:
            # a lazy sequence: the language sample reads only the texts it picks
            card = card_for(config.embedding.model, EMBEDDING)
            found = collection_language(
                snapshot.chunks.texts_by_position(), card, getattr(snapshot.chunks, "doc_ids", None)
            )
            self._languages[snapshot] = found
        return found

    def embed_query(self, model: str, text: str) -> np.ndarray:
        return self._query_vectors.vector(model, text)

    def query_vector_kept(self, model: str, text: str) -> bool:
        """Whether ``text``'s vector under ``model`` is kept: ``embed_query`` returns it at once."""
        return (model, text) in self._query_vectors

    def embed_query_cost_ms(self, model: str, text: str) -> float:
        """Embed a query (or wait for its embedding ahead); the milliseconds its embedding took
        for this query, 0 for a vector kept from an earlier one."""
        return self._query_vectors.vector_with_cost(model, text)[1] * 1000

    def embed_query_ahead(self, model: str, text: str) -> None:
        """Start embedding ``text`` on a thread of its own; ``embed_query`` then waits for it."""
        self._query_vectors.embed_ahead(model, text)

    def embed_queries(self, model: str, texts: list[str]) -> None:
        """Warm the query-vector cache in one batch (evaluation embeds all its queries at once)."""
        self._query_vectors.warm(model, texts)

    def _embed_queries(self, model: str, texts: list[str]) -> np.ndarray:
        embedder = get_embedder(model)
        if getattr(embedder, "remote", False):
            # an endpoint model costs a request per query: its query vectors are kept in the catalog too
            return embed_cached(self.catalog, embedder, texts)[0]
        return embedder.embed_queries(texts)

    def query(self, text: str, collection: str, config: WorkbenchConfig, source: str | None = None) -> Trace:
        """Run ``text`` through the pipeline. A ``source`` (lab, cli, mcp) records it in the query log
        (unless ``log.queries`` is off): one line appended to this process's file, never the catalog."""
        snapshot = self.snapshot(collection, config)
        llm = self.llm() if uses_llm(config) else None
        trace = run_pipeline(
            text, config, snapshot, lambda q: self.embed_query(config.embedding.key, q), collection, llm
        )
        if source:
            record_query(self.query_log, source, text, collection, config, trace)
        return trace

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
        from workbench.ingestion.parsers.images import IMAGE_DOC_TYPES, IMAGE_TYPES

        suffix = Path(document.source).suffix.lower()
        if document.doc_type not in IMAGE_DOC_TYPES or suffix not in IMAGE_TYPES:
            return None
        data = read_original(self.home, document.sha256, suffix)
        return None if data is None else (data, IMAGE_TYPES[suffix][1])

    def markdown(self, doc_id: int) -> tuple[str, list[int]]:
        return stored_documents.document_markdown(self.catalog, doc_id)

    def chunks_over_window(self, collection: str, config: WorkbenchConfig) -> ChunksOverWindow | None:
        """The chunks of ``config``'s chunking longer than its model's window (None: window unknown)."""
        return chunks_over_window(self.catalog, collection, Layout.of(config))

    def chunks_of(self, doc_id: int, config: WorkbenchConfig | None = None) -> list[tuple]:
        chunkset = Layout.of(config).chunkset_key if config else None
        return stored_documents.chunks_of_document(self.catalog, doc_id, chunkset)
