"""Create or join: a collection a first ingest makes may have been made by another writer first.

Two writers (two terminals, the app and a command, the MCP server and a command) that each find
no collection ``c`` both set out to make it; the catalog lets only one do so
(``store.collections.create_or_join_collection``) and the other joins it, provided the two asked
for the same index-time settings. A collection of another embedding model or chunking would
silently hold the files under settings their writer did not ask for, so that is refused with
both sets of settings, the keys that differ first.
"""

from __future__ import annotations

from collections.abc import Callable

from store.repository import CollectionRow
from workbench.config import AUTO_RUNTIME, ConfigError, WorkbenchConfig, format_value, index_settings
from workbench.embedding.runtimes import collection_runtime
from workbench.service.collection_info import known_only

#: what ``auto`` resolves: two writers may measure differently; a joiner takes the collection's
RUNTIME_KEYS = ("embedding.runtime", "embedding.precision")


class CollectionSettingsConflict(ConfigError):
    """The collection exists with other index-time settings than the writer asked for."""

    def __init__(self, name: str, existing: dict, requested: dict, differing: list[str]):
        self.name, self.existing, self.requested, self.differing = name, existing, requested, differing
        super().__init__(conflict_message(name, existing, requested, differing))


def stored_index_settings(row: CollectionRow) -> dict:
    """The index-time settings a collection was made with, as ``index_settings`` gives them (keys a
    collection made by an older version lacks take their defaults; its runtime as ``collection_runtime``)."""
    stored = known_only(row.config, f"collection {row.name!r}")
    runtime, precision = collection_runtime(stored)
    flat = {**WorkbenchConfig().flat(), **stored, "embedding.runtime": runtime, "embedding.precision": precision}
    return index_settings(WorkbenchConfig.from_dict(flat))


def differing_keys(existing: dict, requested: dict, unchecked: tuple[str, ...] = ()) -> list[str]:
    """The requested keys whose values the existing settings do not share, in ``requested``'s order."""
    return [key for key in requested if key not in unchecked and existing.get(key) != requested[key]]


def join_check(requested: WorkbenchConfig | None, asked_runtime: str) -> Callable[[CollectionRow], None]:
    """What ``create_or_join_collection`` runs on a collection another writer made first: accept it
    when ``requested`` (resolved, as it would have been stored) has its settings, else raise
    ``CollectionSettingsConflict``. ``None`` asked for nothing in particular and accepts any;
    a runtime asked as ``auto`` accepts the collection's."""
    unchecked = RUNTIME_KEYS if asked_runtime == AUTO_RUNTIME else ()

    def check(row: CollectionRow) -> None:
        if requested is None:
            return
        wanted = index_settings(requested)
        existing = stored_index_settings(row)
        differing = differing_keys(existing, wanted, unchecked)
        if differing:
            raise CollectionSettingsConflict(row.name, existing, wanted, differing)

    return check


def conflict_message(name: str, existing: dict, requested: dict, differing: list[str]) -> str:
    def listed(settings: dict) -> str:
        keys = differing + [key for key in settings if key not in differing]
        return ", ".join(f"{key}={format_value(settings.get(key))}" for key in keys)

    theirs = " ".join(f"{key}={format_value(existing.get(key))}" for key in differing)
    return (
        f"collection {name!r} already exists with other settings (another writer may have made it moments "
        f"ago); they differ in {', '.join(differing)}. Existing: {listed(existing)}. Requested: "
        f"{listed(requested)}. To add to {name!r}, use its settings ({theirs}); to keep yours, pick another "
        "collection name"
    )
