"""Presets: named sets of overrides.

A preset holds only the keys it sets (flat, dotted), like a saved list of ``--set`` options, so
it applies on top of any collection's own index configuration. ``DEFAULT_PRESET`` always exists
and sets nothing: the built-in defaults. The catalog keeps them (``Workbench.save_preset``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from store.settings import DEFAULT_PRESET
from workbench.config.tree import WorkbenchConfig, flatten

__all__ = ["DEFAULT_PRESET", "overrides_between", "validate_overrides"]


def overrides_between(base: WorkbenchConfig, chosen: WorkbenchConfig) -> dict[str, Any]:
    """The flat keys where ``chosen`` differs from ``base``: what a preset must record."""
    base_flat, chosen_flat = base.flat(), chosen.flat()
    return {key: value for key, value in chosen_flat.items() if base_flat.get(key) != value}


def validate_overrides(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``overrides`` flattened, or a ``ConfigError`` naming a bad key or value."""
    flat = flatten(overrides)
    WorkbenchConfig.from_dict(flat)
    return flat
