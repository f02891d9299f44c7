"""What the catalog says about configuration: each collection's index settings and the presets.

A search needs a collection's stored settings and a preset's overrides together. ``read_settings``
reads both tables in one transaction (they are small), so a caller resolving a configuration
costs a writer in another process one lock hand-over, however many lookups it then makes.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

from store import repository as repo
from store.catalog import Catalog, KeptReads
from store.repository import CollectionRow, NotFoundError

#: the built-in preset: it sets nothing, always exists, and is every new collection's default
#: (the schema's default for ``collections.default_preset``)
DEFAULT_PRESET = "default"
DEFAULT_PRESET_DESCRIPTION = "built-in defaults"


@dataclass(frozen=True)
class StoredPreset:
    name: str
    overrides: dict
    description: str
    #: where the preset came from when a tool chose it (``tune``: study, golden set hash, split,
    #: held-out estimate and interval, forced or not); None for presets saved by hand
    provenance: dict | None = None

    @property
    def forced(self) -> bool:
        """Saved although its held-out interval did not lie above zero (``tune --force``)."""
        return bool((self.provenance or {}).get("forced"))


@dataclass(frozen=True)
class StoredSettings:
    """Every collection row and every preset, as read in one transaction."""

    collections: dict[str, CollectionRow]  # by name, in name order
    presets: dict[str, StoredPreset]

    def collection(self, name: str) -> CollectionRow:
        found = self.collections.get(name)
        if found is None:
            known = ", ".join(self.collections) or "none yet"  # read in name order
            raise NotFoundError(f"collection {name!r} not found; known: {known}")
        return found

    def preset(self, name: str) -> dict:
        found = self.presets.get(name)
        if found is None:
            raise NotFoundError(f"preset {name!r} not found; known: {', '.join(sorted(self.presets))}")
        return found.overrides


def _presets(con) -> dict[str, StoredPreset]:
    presets = {
        name: StoredPreset(name, overrides, description, provenance)
        for name, overrides, description, _, provenance in repo.list_presets(con)
    }
    presets.setdefault(DEFAULT_PRESET, StoredPreset(DEFAULT_PRESET, {}, DEFAULT_PRESET_DESCRIPTION))
    return presets


def read_settings(catalog: Catalog) -> StoredSettings:
    """Every collection row and preset. A read is kept while the catalog's files stay as they
    were (``KeptReads``): opening the file costs some 15-20 ms, and a server resolves its
    configuration on every query. Each caller gets its own copy to change."""
    return copy.deepcopy(_KEPT.get(catalog, catalog.path, lambda: _read_settings(catalog)))


def _read_settings(catalog: Catalog) -> StoredSettings:
    with catalog.connect() as con:
        collections = {row.name: row for row in repo.list_collections(con)}
        return StoredSettings(collections, _presets(con))


#: the last settings read from each catalog file
_KEPT: KeptReads[Path, StoredSettings] = KeptReads()


def list_presets(catalog: Catalog) -> list[StoredPreset]:
    """Every preset by name, the built-in one included."""
    with catalog.connect() as con:
        presets = _presets(con)
    return [presets[name] for name in sorted(presets)]


def save_preset(
    catalog: Catalog, name: str, overrides: dict, description: str = "", provenance: dict | None = None
) -> None:
    """Store (or replace) preset ``name``; the caller has validated the flat ``overrides``."""
    with catalog.connect() as con:
        repo.save_preset(con, name, overrides, description, provenance)


def set_default_preset(catalog: Catalog, collection: str, preset: str) -> None:
    """Make ``preset`` the one ``collection`` searches with unless told otherwise."""
    with catalog.connect() as con:
        presets = _presets(con)
        if preset not in presets:
            raise NotFoundError(f"preset {preset!r} not found; known: {', '.join(sorted(presets))}")
        repo.set_default_preset(con, repo.get_collection(con, collection).id, preset)
