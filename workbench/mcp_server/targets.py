"""Which collection, preset and configuration a tool call runs against.

Resolved from the catalog on every call, so a preset saved in the app is what the next query
uses; kept per catalog state (``Catalog.file_state``), so an unchanged catalog costs a stat, not
an opening of the file and a configuration built again. When another process holds the catalog
past its lock timeout, the target resolved last for the same names is reused, with a warning.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from store.catalog import CatalogBusyError, KeptReads
from workbench.config import WorkbenchConfig
from workbench.mcp_server.arguments import ToolInputError
from workbench.mcp_server.defaults import ServerDefaults
from workbench.service import NotFoundError, Workbench
from workbench.text import error_message

log = logging.getLogger(__name__)

#: the names a call asked for: (collection, preset), each None when left out
Names = tuple[str | None, str | None]


@dataclass(frozen=True)
class Target:
    """The collection, preset name and effective configuration a call runs with."""

    collection: str
    preset: str
    config: WorkbenchConfig


class TargetResolver:
    def __init__(self, bench: Workbench, defaults: ServerDefaults):
        self.bench = bench
        self.defaults = defaults
        self._last_targets: dict[Names, Target] = {}
        self._resolved: KeptReads[Names, Target] = KeptReads()
        self._targets_lock = threading.Lock()

    def resolve(self, collection: str | None, preset: str | None) -> Target:
        """Collection: argument, else ``--collection``, else the only one. Preset: argument,
        else ``--preset``, else the collection's default."""
        key = _names(collection, preset)
        try:
            target = self._resolve_from_catalog(*key)
        except CatalogBusyError:
            with self._targets_lock:
                known = self._last_targets.get(key)
            if known is None:
                raise
            log.warning("catalog busy; reusing the settings read last for %s / %s", known.collection, known.preset)
            return known
        with self._targets_lock:
            self._last_targets[key] = target
        return target

    def kept(self, collection: str | None, preset: str | None) -> Target | None:
        """The target ``resolve`` would give, if it can give it without reading the catalog."""
        return self._resolved.peek(self.bench.catalog, _names(collection, preset))

    def _resolve_from_catalog(self, collection: str | None, preset: str | None) -> Target:
        # the catalog unchanged since a call resolved the same names: the same target, without
        # building the configuration again (a millisecond of the two a query costs in all)
        names = (collection, preset)
        return self._resolved.get(self.bench.catalog, names, lambda: self._resolve_from_settings(*names))

    def _resolve_from_settings(self, collection: str | None, preset: str | None) -> Target:
        # one catalog read per call (collections and presets together): a busy client then
        # costs the app's ingest one lock hand-over per query, not three
        settings = self.bench.settings()
        rows = settings.collections
        name = collection or self.defaults.collection or self._only_collection(sorted(rows))
        row = rows.get(name)
        if row is None:
            known = ", ".join(sorted(rows)) or "none yet"
            raise NotFoundError(
                f"collection {name!r} not found; known: {known}. Pass one of them as `collection` "
                "(list_collections shows them)"
            )
        preset_name = preset or self.defaults.preset or row.default_preset
        try:
            config = self.bench.config_for(name, preset_name, list(self.defaults.overrides), settings=settings)
        except NotFoundError as error:
            if not preset:
                raise
            raise NotFoundError(
                f"{error_message(error)}; pass one of them as `preset`, or omit it to use "
                f"the collection's default ({row.default_preset})"
            ) from None
        return Target(name, preset_name, config)

    def _only_collection(self, names: list[str]) -> str:
        if len(names) == 1:
            return names[0]
        if not names:
            raise ToolInputError(
                f"the knowledge base at {self.bench.home} has no collections yet; ingest documents first "
                f"(python -m workbench ingest FILES --collection NAME --home {self.bench.home})"
            )
        raise ToolInputError(
            f"several collections exist ({', '.join(names)}) and the server was started without a default "
            "one; pass `collection` as one of them"
        )


def _names(collection: str | None, preset: str | None) -> Names:
    """The names a call gave, blank ones as not given."""
    return ((collection or "").strip() or None, (preset or "").strip() or None)
