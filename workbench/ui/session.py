"""Cached resources and the sidebar's current selection, shared by every page.

Resources (one per server process): the ``Workbench`` per home (it holds the loaded index
snapshots and the query-vector cache) and the embedding models.

Catalog reads (collections, presets, documents, effective configs) are cached by the catalog
file's version: opening DuckDB costs tens of milliseconds, and a page re-renders on every
widget change, so reads are served from memory until any process writes the catalog (every
write rewrites the file, which changes its modification time and size).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import streamlit as st

from workbench.config import WorkbenchConfig
from workbench.service import CollectionInfo, Workbench
from workbench.text import preset_label as labelled

COLLECTION_KEY = "collection"
PRESET_KEY = "preset"
#: selections asked for during a run, applied before the sidebar widgets exist on the next run
_REQUESTED_COLLECTION = "_requested_collection"
_REQUESTED_PRESET = "_requested_preset"
_FLASH_KEY = "_flash_messages"


@st.cache_resource(show_spinner=False)
def _workbench_for(home: str) -> Workbench:
    # one Workbench per home and server process: it caches loaded index snapshots and query
    # vectors, and holds no database connection between bursts of work (see store.catalog), so
    # sharing it is safe; the one the background warm-up loaded the indexes into, when there is one
    from workbench.ui import warmup
    from workbench.ui.access import current_access

    read_only = current_access().read_only
    bench = warmup.adopt(Path(home), read_only) or Workbench(home, read_only=read_only)
    # a page or a judging key is a burst of small transactions: open the file once for it
    bench.catalog.hold_between()
    return bench


def workbench() -> Workbench:
    return _workbench_for(str(home_path()))


def chunk_rate(key: str) -> tuple[float, str] | None:
    """(chunk texts per second, the embedder they were measured with) this home measured for the
    embedder ``key`` or its model on another runtime; None before its first real ingest."""
    from workbench.ingestion.estimates import measured_rate

    return measured_rate(home_path(), key)


def warm_up(collection: str, query: str, configs: list):
    """Do a query's one-off work (indexes, models, query vector) before either lab side is timed."""
    from workbench.service.first_use import warm_up as warm

    with st.spinner("Loading the indexes and models (first use only)…"):
        return warm(workbench(), collection, query, configs)


def home_path() -> Path:
    return _resolved_home(os.environ.get("WORKBENCH_HOME"), os.getcwd())


@functools.lru_cache(maxsize=16)
def _resolved_home(configured: str | None, cwd: str) -> Path:
    # resolving costs a system call per path component, and pages ask for the home many times a run
    from workbench.service.home import resolve_home

    return resolve_home(configured)


@st.cache_resource(show_spinner="Loading the embedding model (first time only)…")
def embedder(model: str):
    """The embedding model, loaded once per server process."""
    from workbench.embedding import get_embedder

    loaded = get_embedder(model)
    loaded.dimension  # noqa: B018 -- touching it loads the weights now, under the spinner
    return loaded


# -- catalog reads, cached by catalog version ---------------------------------------------------


def catalog_version() -> tuple:
    """Changes whenever any process writes the catalog (file and write-ahead log stats)."""
    path = workbench().catalog.path
    stats: list[tuple[int, int] | None] = []
    for candidate in (path, path.with_name(path.name + ".wal")):
        try:
            stat = candidate.stat()
            stats.append((stat.st_mtime_ns, stat.st_size))
        except FileNotFoundError:
            stats.append(None)
    return tuple(stats)


@st.cache_data(show_spinner=False, max_entries=32)
def _collections(home: str, version: tuple) -> list[CollectionInfo]:
    return _workbench_for(home).collections()


@st.cache_data(show_spinner=False, max_entries=32)
def _presets(home: str, version: tuple) -> list[tuple[str, dict, str]]:
    return [(preset.name, preset.overrides, preset.description) for preset in _preset_records(home, version)]


@st.cache_data(show_spinner=False, max_entries=32)
def _preset_records(home: str, version: tuple) -> list:
    return _workbench_for(home).presets()


@st.cache_data(show_spinner=False, max_entries=128)
def _config(home: str, version: tuple, collection: str | None, preset: str | None) -> WorkbenchConfig:
    return _workbench_for(home).config_for(collection, preset)


@st.cache_data(show_spinner=False, max_entries=64)
def _documents(home: str, version: tuple, collection: str) -> list:
    return _workbench_for(home).documents(collection)


@st.cache_data(show_spinner=False, max_entries=64)
def _markdown(home: str, version: tuple, doc_id: int) -> tuple[str, list[int]]:
    return _workbench_for(home).markdown(doc_id)


@st.cache_data(show_spinner=False, max_entries=64)
def _chunks(home: str, version: tuple, doc_id: int, config: WorkbenchConfig) -> list[tuple]:
    return _workbench_for(home).chunks_of(doc_id, config)


@st.cache_data(show_spinner="Reading the collection's languages…", max_entries=32)
def _collection_language(home: str, version: tuple, collection: str, config: WorkbenchConfig):
    return _workbench_for(home).collection_language(collection, config)


def collection_language(collection: str):
    """The collection's language mix and whether its embedding model covers it
    (``workbench.language.coverage.CollectionLanguage``)."""
    return _collection_language(str(home_path()), catalog_version(), collection, current_config(collection))


@st.cache_data(show_spinner=False, max_entries=16)
def _demo_status(home: str, version: tuple, demo_dir: str):
    from workbench.demo import demo_status as status_of

    return status_of(_workbench_for(home), Path(demo_dir))


def demo_status():
    """How much of the bundled demo this home holds (``workbench.demo.DemoStatus``)."""
    from workbench import demo

    return _demo_status(str(home_path()), catalog_version(), str(demo.DEMO_DIR))


def document_markdown(doc_id: int) -> tuple[str, list[int]]:
    """A document's canonical Markdown and the offsets where its pages start."""
    return _markdown(str(home_path()), catalog_version(), doc_id)


def document_chunks(doc_id: int, config: WorkbenchConfig) -> list[tuple]:
    """The document's chunks in ``config``'s chunk set, as ``Workbench.chunks_of`` rows."""
    return _chunks(str(home_path()), catalog_version(), doc_id, config)


def collections() -> list[CollectionInfo]:
    return _collections(str(home_path()), catalog_version())


def collection_names() -> list[str]:
    return [info.name for info in collections()]


def collection_info(name: str) -> CollectionInfo | None:
    return next((info for info in collections() if info.name == name), None)


def preset_list() -> list[tuple[str, dict, str]]:
    """Every preset as (name, overrides, description); ``default`` is always there."""
    return _presets(str(home_path()), catalog_version())


def preset_records() -> list:
    """Every preset whole: its provenance too (what chose it, whether it was forced)."""
    return _preset_records(str(home_path()), catalog_version())


def preset_label(name: str) -> str:
    """``name`` as every list of presets shows it: ``tuned (forced)`` for a forced one."""
    return labelled(name, any(preset.forced for preset in preset_records() if preset.name == name))


def documents(collection: str) -> list:
    """The collection's documents (``store.repository.DocumentRow``), failures included."""
    return _documents(str(home_path()), catalog_version(), collection)


def golden_files_signature(home: Path) -> tuple:
    """Changes whenever a golden set file is added, removed or rewritten."""
    from workbench.evaluation import golden

    entries = []
    for folder in golden.search_paths(home):
        if folder.is_dir():
            for path in sorted(folder.glob("*.jsonl")):
                stat = path.stat()
                entries.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(entries)


@st.cache_data(show_spinner=False, max_entries=32)
def _golden_sets_for(home: str, version: tuple, signature: tuple, collection: str) -> list[str]:
    from workbench.evaluation.golden_fit import collection_names, sets_that_fit

    names = collection_names((doc.source, doc.external_id) for doc in _documents(home, version, collection))
    return sets_that_fit(Path(home), collection, names)


def golden_sets_for(collection: str) -> list[str]:
    """The golden sets that judge ``collection``'s documents (``workbench.evaluation.golden_fit``)."""
    home = home_path()
    return _golden_sets_for(str(home), catalog_version(), golden_files_signature(home), collection)


@st.cache_data(show_spinner=False, max_entries=32)
def _preferred_golden_set(home: str, version: tuple, signature: tuple, collection: str) -> str | None:
    from workbench.evaluation.golden_fit import collection_names, preferred_set

    names = collection_names((doc.source, doc.external_id) for doc in _documents(home, version, collection))
    return preferred_set(Path(home), collection, names, _golden_sets_for(home, version, signature, collection))


def preferred_golden_set(collection: str) -> str | None:
    """Of ``golden_sets_for(collection)``, the one a picker starts on: the set whose judged documents
    the collection holds most of (``workbench.evaluation.golden_fit.preferred_set``)."""
    home = home_path()
    return _preferred_golden_set(str(home), catalog_version(), golden_files_signature(home), collection)


# -- the sidebar selection ----------------------------------------------------------------------


def current_collection() -> str | None:
    """The collection picked in the sidebar, or None when the home has none yet; before the
    session has picked one, the home's last used collection, else the first by name."""
    name = st.session_state.get(COLLECTION_KEY)
    names = collection_names()
    if name in names:
        _remember_use(name)
        return name
    last = last_collection()
    if last in names:
        return last
    return names[0] if names else None


#: the collection this session last recorded as the home's last used (one write per change)
_RECORDED_COLLECTION = "_recorded_last_collection"


def last_collection() -> str | None:
    """The collection this home last used, from any session (``workbench.ui.last_collection``)."""
    from workbench.ui.last_collection import read_last_collection

    return read_last_collection(home_path())


def _remember_use(name: str) -> None:
    if st.session_state.get(_RECORDED_COLLECTION) == name:
        return
    st.session_state[_RECORDED_COLLECTION] = name
    from workbench.ui.access import current_access

    if current_access().read_only:  # a shared read-only app leaves the home as it found it
        return
    from workbench.ui.last_collection import remember_last_collection

    remember_last_collection(home_path(), name)


def current_preset() -> str | None:
    """The preset picked in the sidebar; else the collection's default preset (None: no collection)."""
    chosen = st.session_state.get(PRESET_KEY)
    if chosen in {name for name, _, _ in preset_list()}:
        return chosen
    collection = current_collection()
    if collection is None:
        return chosen
    info = collection_info(collection)
    return info.default_preset if info else None


def current_config(collection: str | None = None, preset: str | None = None) -> WorkbenchConfig:
    """The effective configuration: defaults, the collection's index settings, then the preset."""
    collection = collection or current_collection()
    preset = preset or current_preset()
    return _config(str(home_path()), catalog_version(), collection, preset)


def request_collection(name: str) -> None:
    """Select ``name`` in the sidebar from the next run on (a widget's value cannot change
    once it is drawn in this run)."""
    st.session_state[_REQUESTED_COLLECTION] = name


def request_preset(name: str) -> None:
    st.session_state[_REQUESTED_PRESET] = name


def apply_requested_selection() -> None:
    """Called by the sidebar before it draws its pickers. A new session starts on the home's
    last used collection (the picker would otherwise start on the first by name)."""
    if COLLECTION_KEY not in st.session_state and _REQUESTED_COLLECTION not in st.session_state:
        last = last_collection()
        if last in collection_names():
            st.session_state[COLLECTION_KEY] = last
    if _REQUESTED_COLLECTION in st.session_state:
        st.session_state[COLLECTION_KEY] = st.session_state.pop(_REQUESTED_COLLECTION)
        # a new collection starts on its own default preset
        st.session_state.pop(PRESET_KEY, None)
    if _REQUESTED_PRESET in st.session_state:
        st.session_state[PRESET_KEY] = st.session_state.pop(_REQUESTED_PRESET)


# -- messages that survive a rerun --------------------------------------------------------------


def flash(kind: str, text: str) -> None:
    """Queue a message (kind: success, info, warning, error) for the top of the next run.

    ``text`` is Markdown: escape user text in it with ``workbench.ui.text.md_escape``."""
    st.session_state.setdefault(_FLASH_KEY, []).append((kind, text))


def show_flashes() -> None:
    for kind, text in st.session_state.pop(_FLASH_KEY, []):
        getattr(st, kind)(text)


def forget_stale_choice(key: str, options) -> None:
    """Drop a remembered choice that is no longer offered (a new query, a side that failed),
    so the widget starts from its default instead of refusing the old value."""
    if key in st.session_state and st.session_state[key] not in options:
        del st.session_state[key]
