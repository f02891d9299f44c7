"""Widgets for configuration keys, bounded by the key's own limits in ``workbench.config``.

A number input gets the key's minimum and maximum, a select its choices, and the help text is
the key's documentation, so the app offers exactly what ``--set`` and the MCP tools accept.
"""

from __future__ import annotations

from workbench.config import KEY_DOCS, key_default, key_limits


def number_type(key: str) -> type:
    """int or float: what the key (or each item of a tuple key) holds."""
    default = key_default(key)
    sample = default[0] if isinstance(default, tuple) and default else default
    return int if isinstance(sample, int) and not isinstance(sample, bool) else float


def number_bounds(key: str) -> tuple[int | float, int | float]:
    """The key's (minimum, maximum) as the key's own number type (Streamlit wants them alike)."""
    limits = key_limits(key)
    if not limits.bounded:
        raise ValueError(f"{key} has no numeric range")
    kind = number_type(key)
    return kind(limits.minimum), kind(limits.maximum)


def clamped(key: str, value):
    """``value`` inside the key's range, as the key's number type (a widget refuses anything else)."""
    kind = number_type(key)
    return kind(key_limits(key).clamp(kind(value)))


def choices(key: str) -> tuple[str, ...]:
    options = key_limits(key).choices
    if not options:
        raise ValueError(f"{key} has no fixed choices")
    return options


# ``config_key`` names the configuration key; ``key`` stays free for the widget's own key


def number_input(container, label: str, config_key: str, *, help: str | None = None, **kwargs):
    """``container.number_input`` bounded by the key's limits and documented from KEY_DOCS."""
    low, high = number_bounds(config_key)
    return container.number_input(label, min_value=low, max_value=high, help=help or _help(config_key), **kwargs)


def slider(container, label: str, config_key: str, *, help: str | None = None, **kwargs):
    low, high = number_bounds(config_key)
    return container.slider(label, low, high, help=help or _help(config_key), **kwargs)


def selectbox(container, label: str, config_key: str, *, help: str | None = None, **kwargs):
    return container.selectbox(label, choices(config_key), help=help or _help(config_key), **kwargs)


def _help(key: str) -> str:
    limits = key_limits(key)
    allowed = limits.describe()
    return f"{KEY_DOCS[key]} ({key}; {allowed})" if allowed and not limits.choices else f"{KEY_DOCS[key]} ({key})"
