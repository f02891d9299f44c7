"""What the layers below the service may ask of the workbench: a typed ``Protocol``.

Evaluation, sweeps, tuning and golden-set building run queries, read documents and save presets
through the workbench (``workbench.service.Workbench``), which sits above them. They take it as
a ``WorkbenchFacade``: a type checker then sees every call they make, and import-linter keeps
this module below them and above only what its types need (retrieval traces, the LLM client,
the configuration and ``store``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from store.catalog import Catalog
from store.index_set import Snapshot
from store.repository import DocumentRow
from store.settings import StoredSettings
from workbench.config import WorkbenchConfig
from workbench.llm.client import LlmClient
from workbench.retrieval.trace import Trace


class ReadOnlyError(PermissionError):
    """A write or an LLM call in a read-only shared session; the message names the setting."""


class WorkbenchFacade(Protocol):
    """The workbench as the evaluation, tuning and golden-set code use it."""

    #: the home directory: catalog, indexes, golden sets, studies
    home: Path
    #: the catalog handle (each unit of work opens and closes the file; see ``store.catalog``)
    catalog: Catalog
    #: a read-only shared session: writes and LLM calls are refused
    read_only: bool

    def config_for(
        self,
        collection: str | None,
        preset: str | None = None,
        overrides: Iterable[str] | Mapping[str, Any] = (),
        settings: StoredSettings | None = None,
    ) -> WorkbenchConfig:
        """Defaults, then the collection's index settings, then the preset, then overrides."""
        ...

    def snapshot(
        self, collection: str, config: WorkbenchConfig, progress: Callable[[Any], None] | None = None
    ) -> Snapshot:
        """The loaded indexes of the collection's layout for ``config``, built first if missing
        (``progress`` hears the build's events: ``workbench.ingestion.sources.Progress``)."""
        ...

    def query(self, text: str, collection: str, config: WorkbenchConfig, source: str | None = None) -> Trace:
        """One query through the pipeline: its trace."""
        ...

    def embed_query(self, model: str, text: str) -> np.ndarray:
        """A query's vector (cached in memory)."""
        ...

    def embed_queries(self, model: str, texts: list[str]) -> None:
        """Warm the query-vector cache in one batch."""
        ...

    def embed_query_cost_ms(self, model: str, text: str) -> float:
        """Embed a query; what embedding it took for this query (ms; 0 when it was kept)."""
        ...

    def llm(self) -> LlmClient:
        """The configured LLM endpoint behind the home's reply cache (``available`` says if there is one)."""
        ...

    def markdown(self, doc_id: int) -> tuple[str, list[int]]:
        """A document's canonical Markdown and its page starts."""
        ...

    def document(self, ref: str, collection: str | None = None) -> DocumentRow:
        """A document by id, external id or file name."""
        ...

    def documents(self, collection: str) -> list[DocumentRow]:
        """Every document of a collection."""
        ...

    def preset_overrides(self, name: str) -> dict[str, object]:
        """The flat keys a preset sets."""
        ...

    def save_preset(
        self,
        name: str,
        overrides: Mapping[str, Any],
        description: str = "",
        provenance: Mapping[str, Any] | None = None,
    ) -> dict[str, object]:
        """Store ``overrides`` as preset ``name`` (refused in a read-only session); ``provenance``
        records what chose them (``tune``: its study, golden set hash, split and held-out estimate)."""
        ...

    def require_writable(self, action: str) -> None:
        """Raise ``ReadOnlyError`` naming ``action`` (and the setting) in a read-only session."""
        ...
