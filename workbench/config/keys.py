"""What people and other front ends read about the keys: docs, choices, the key table, and where
an index backend keeps a layout (its section's index-time keys)."""

from __future__ import annotations

import functools
from typing import Any

from workbench.config.fields import Lifetime, doc_of, limits_of
from workbench.config.tree import (
    format_value,
    key_default,
    lifetime_of,
    section_fields,
)
from workbench.plugins import choices_for

#: every key's documentation, from its field
KEY_DOCS: dict[str, str] = {key: doc_of(f) for key, _, f in section_fields()}


def key_choices() -> dict[str, tuple[str, ...]]:
    """The keys with a set of values, and those values (a plugin key's are its registry's names)."""
    found = {key: limits_of(f).choices for key, _, f in section_fields()}
    return {key: choices for key, choices in found.items() if choices}


def plugin_keys() -> dict[str, str]:
    """The keys that name a plugin, and the kind of plugin (``"index.backend": "index backend"``)."""
    return {key: limits_of(f).plugins for key, _, f in section_fields() if limits_of(f).plugins}


def _free_form(default: Any) -> str:
    if isinstance(default, bool):
        return "true, false"
    return "comma-separated list" if isinstance(default, tuple) else "text"


def key_table_markdown() -> str:
    """The configuration-key table the docs show: key, default, allowed values, lifetime, meaning."""
    lines = ["| key | default | allowed | lifetime | meaning |", "|---|---|---|---|---|"]
    for key, _, f in section_fields():
        limits = limits_of(f)
        default = key_default(key)
        allowed = limits.describe() or _free_form(default)
        if isinstance(default, tuple) and limits.bounded:
            allowed += " each"
        lifetime = lifetime_of(key).value
        lines.append(f"| `{key}` | `{format_value(default)}` | {allowed} | {lifetime} | {doc_of(f)} |")
    return "\n".join(lines)


def place_keys() -> tuple[str, ...]:
    """Every backend section's index-time keys (``milvus.uri``, ...): where a layout lives, fixed
    with a collection."""
    return _place_keys(choices_for("index backend"))


@functools.cache
def _place_keys(backends: tuple[str, ...]) -> tuple[str, ...]:
    # keyed by the registered backends (a plugin may register one later); every query's layout
    # reads it
    all_sections = {key.partition(".")[0] for key, _, _ in section_fields()}
    sections = tuple(name for name in backends if name in all_sections)
    return tuple(
        key
        for key, _, _ in section_fields()
        if key.partition(".")[0] in sections and lifetime_of(key) is Lifetime.INDEX
    )
