"""Presets: named sets of configuration overrides stored in the catalog.

A preset holds only the keys it sets (flat, dotted), like a saved list of ``--set`` options, so
it applies on top of any collection's own index configuration. ``default`` always exists and
sets nothing: the built-in defaults.
"""

from __future__ import annotations

from store import repository as repo
from store.catalog import Catalog
from workbench.config import ConfigError, WorkbenchConfig, flatten, known_keys

DEFAULT_PRESET = "default"


def overrides_between(base: WorkbenchConfig, chosen: WorkbenchConfig) -> dict[str, object]:
    """The flat keys where ``chosen`` differs from ``base``: what a preset must record."""
    base_flat, chosen_flat = base.flat(), chosen.flat()
    return {key: value for key, value in chosen_flat.items() if base_flat.get(key) != value}


def validate_overrides(overrides: dict) -> dict[str, object]:
    flat = flatten(overrides)
    WorkbenchConfig.from_dict(flat)  # raises ConfigError naming a bad key or value
    return flat


def load_overrides(catalog: Catalog, name: str) -> dict[str, object]:
    with catalog.connect() as con:
        found = repo.find_preset(con, name)
        if found is None:
            if name == DEFAULT_PRESET:
                repo.save_preset(con, DEFAULT_PRESET, {}, "built-in defaults")
                return {}
            known = ", ".join(sorted({DEFAULT_PRESET, *(p[0] for p in repo.list_presets(con))}))
            raise repo.NotFoundError(f"preset {name!r} not found; known: {known}")
    return found


def save(catalog: Catalog, name: str, overrides: dict, description: str = "") -> dict[str, object]:
    if not name or not name.strip():
        raise ConfigError("a preset needs a name")
    flat = validate_overrides(overrides)
    with catalog.connect() as con:
        repo.save_preset(con, name.strip(), flat, description)
    return flat


def list_all(catalog: Catalog) -> list[tuple[str, dict, str]]:
    with catalog.connect() as con:
        presets = {name: (config, description) for name, config, description, _ in repo.list_presets(con)}
    presets.setdefault(DEFAULT_PRESET, ({}, "built-in defaults"))
    return [(name, *presets[name]) for name in sorted(presets)]


__all__ = ["DEFAULT_PRESET", "known_keys", "list_all", "load_overrides", "overrides_between", "save"]
