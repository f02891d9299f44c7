"""What the service reports about a collection (its summary for listings, a backend migration)
and which settings a collection fixes when it is created."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

from store import documents as stored_documents
from store.catalog import Catalog
from workbench.backends import BACKENDS
from workbench.chunking.window import Overflow
from workbench.config import embedding_settings, known_keys
from workbench.embedding import get_embedder
from workbench.layout import LOCAL, Layout
from workbench.models.availability import card_for
from workbench.models.catalogue import EMBEDDING
from workbench.text import count

log = logging.getLogger(__name__)


def known_only(stored: dict, owner: str) -> dict:
    """Stored settings minus keys this version no longer has (a newer or older home stays usable)."""
    known = set(known_keys())
    dropped = sorted(set(stored) - known)
    if dropped:
        log.warning("%s: ignoring settings this version does not know: %s", owner, ", ".join(dropped))
    return {k: v for k, v in stored.items() if k in known}


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
        """Where the collection's indexes live: its backend, with its URI when it has one."""
        return BACKENDS.get(str(self.config.get("index.backend", LOCAL))).describe(self.config)


def interrupted_reason(last_ingest) -> str:
    """Why a collection may be missing files: its last ingest did not finish ("" when it did)."""
    if last_ingest is None or last_ingest.status == "finished":
        return ""
    how = "was cancelled" if last_ingest.status == "cancelled" else "was interrupted (or is still running)"
    return (
        f"the last ingest {how} after {last_ingest.files_recorded} of its {count(last_ingest.files_total, 'file')}; "
        "run it again to finish (unchanged files are skipped, cached texts are not embedded again)"
    )


@dataclass(frozen=True)
class Migration:
    collection: str
    backend: str
    uri: str | None
    results: tuple  # SyncResult of every layout built at the new place
    dropped: tuple[str, ...]  # what was removed from the old place


@dataclass(frozen=True)
class ChunksOverWindow:
    """A chunk set's chunks longer than its embedding model's window, by document."""

    model: str
    overflow: Overflow
    #: document id -> tokens past the window of each of its chunks over it
    by_document: Mapping[int, tuple[int, ...]]


def model_window(embedder_key: str) -> int | None:
    """The most tokens the model reads: the catalogue's figure, else the loaded model's own."""
    model = embedding_settings(embedder_key)["embedding.model"]
    known = card_for(model, EMBEDDING).max_seq_length
    return known if known is not None else get_embedder(embedder_key).max_tokens


def chunks_over_window(catalog: Catalog, collection: str, layout: Layout) -> ChunksOverWindow | None:
    """None when the model's window is unknown."""
    window = model_window(layout.embedding_model)
    if window is None:
        return None
    total, over = stored_documents.chunks_over_limit(catalog, collection, layout.chunkset_key)
    by_document: dict[int, list[int]] = {}
    for document, tokens in over:
        if tokens > window:
            by_document.setdefault(document, []).append(tokens - window)
    excess = tuple(tokens for document in by_document.values() for tokens in document)
    return ChunksOverWindow(
        embedding_settings(layout.embedding_model)["embedding.model"],
        Overflow(window, excess, total),
        {document: tuple(tokens) for document, tokens in by_document.items()},
    )
