"""What a configuration field declares: its default, meaning, accepted values and lifetime.

``setting`` makes a field; ``Limits`` holds the values it accepts (an inclusive range, fixed
choices, or the names of the plugins registered for it); ``Lifetime`` says when a change to it
takes effect. Everything else (the command line, the app's widgets, the MCP tool schemas, the
key table in the docs, which keys a layout depends on) is derived from these declarations.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Protocol

from workbench.plugins import choices_for

Number = int | float


class ConfigError(ValueError):
    """A configuration key or value is not valid; the message names the fix."""


class Lifetime(StrEnum):
    """When a change to a key takes effect."""

    #: what chunks and indexes are built with: a change needs a new layout (chunks, vectors, indexes)
    INDEX = "index"
    #: limits applied while files are read: they change what is accepted, not how it is indexed
    INGEST = "ingest"
    #: free to change per query: the same indexes answer
    QUERY = "query"
    #: how the workbench itself works (credentials, timeouts, logging, golden-set writing): no effect on results
    USAGE = "usage"


@dataclass(frozen=True)
class Limits:
    """The values a key accepts: an inclusive range (for a tuple key, of each item), or choices.

    ``plugins`` names a plugin registry's key (``workbench.plugins``): its registered names are
    the choices, after any ``fixed`` ones (``auto`` before the encoder runtimes).
    """

    minimum: Number | None = None
    maximum: Number | None = None
    fixed: tuple[str, ...] = ()
    plugins: str = ""

    @property
    def choices(self) -> tuple[str, ...]:
        return (*self.fixed, *choices_for(self.plugins)) if self.plugins else self.fixed

    @property
    def bounded(self) -> bool:
        return self.minimum is not None and self.maximum is not None

    def problem(self, value: Any) -> str | None:
        """Why ``value`` is not allowed, or None when it is. Tuples are checked item by item."""
        if isinstance(value, tuple):
            return next((p for p in map(self.problem, value) if p), None)
        choices = self.choices
        if choices and value not in choices:
            return f"{value!r} is not one of {', '.join(choices)}"
        if isinstance(value, float) and not math.isfinite(value) and (self.minimum, self.maximum) != (None, None):
            return f"{value} is not a finite number"
        if self.minimum is not None and value < self.minimum:
            return f"{_number(value)} is below the minimum {_number(self.minimum)}"
        if self.maximum is not None and value > self.maximum:
            return f"{_number(value)} is above the maximum {_number(self.maximum)}"
        return None

    def describe(self) -> str:
        """The allowed values for people: "1 to 1000", "≥ 0", "dense, bm25, hybrid", or ""."""
        if self.choices:
            return ", ".join(self.choices)
        if self.minimum is not None and self.maximum is not None:
            return f"{_number(self.minimum)} to {_number(self.maximum)}"
        if self.minimum is not None:
            return f"≥ {_number(self.minimum)}"
        if self.maximum is not None:
            return f"≤ {_number(self.maximum)}"
        return ""

    def clamp(self, value: Any) -> Any:
        """``value`` moved into the range (widgets use this on values from older presets)."""
        if self.minimum is not None and value < self.minimum:
            return self.minimum
        if self.maximum is not None and value > self.maximum:
            return self.maximum
        return value

    def json_schema(self) -> dict[str, Any]:
        """The same limits as JSON-schema keywords (MCP tool input schemas)."""
        if self.choices:
            return {"enum": list(self.choices)}
        schema: dict[str, Any] = {}
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        return schema


def _number(value: Number) -> str:
    return str(value) if isinstance(value, int) else f"{value:g}"


def setting(
    default: Any,
    doc: str,
    *,
    minimum: Number | None = None,
    maximum: Number | None = None,
    choices: tuple[str, ...] = (),
    plugins: str = "",
    lifetime: Lifetime | None = None,
) -> Any:
    """A configuration field: its default, what it means, the values it accepts and its lifetime.

    Declare every key with it: a number gets ``minimum`` and ``maximum`` (inclusive; a test
    checks that every numeric key has both), a key with a fixed set of values gets ``choices``,
    a key that names a plugin gets ``plugins`` (its own key: the registry's names are its
    choices). ``lifetime`` overrides the section's ``LIFETIME`` for this one field.
    """
    limits = Limits(minimum, maximum, tuple(choices), plugins)
    return field(default=default, metadata={"doc": doc, "limits": limits, "lifetime": lifetime})


def limits_of(f: dataclasses.Field[Any]) -> Limits:
    limits: Limits = f.metadata.get("limits", Limits())
    return limits


def doc_of(f: dataclasses.Field[Any]) -> str:
    doc: str = f.metadata.get("doc", "")
    return doc


class Section(Protocol):
    """A configuration section: a frozen dataclass whose fields live as long as its ``LIFETIME``
    says, unless a field declares its own."""

    LIFETIME: ClassVar[Lifetime]


def declared_lifetime(section: type[Section], f: dataclasses.Field[Any]) -> Lifetime:
    """The field's own lifetime, or its section's (``LIFETIME``)."""
    lifetime: Lifetime = f.metadata.get("lifetime") or section.LIFETIME
    return lifetime
