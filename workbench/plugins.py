"""One way to extend the workbench: a registry of named plugins per kind.

Index backends, chunking strategies, fusion methods, encoder runtimes and document parsers are
all plugins. Each kind has one ``Registry``, created in the package that defines the plugin's
type (``workbench.backends.BACKENDS``, ``workbench.chunking.CHUNKERS``, ...), and a plugin is
one ``register`` call there::

    CHUNKERS.register("recursive", Chunker(doc="...", make=...))

A registry is also where the choices of the configuration keys that name its plugins come from
(``chunking.strategy``, ``index.backend``, ``embedding.runtime``...): a field declared with
``setting(..., plugins="chunking strategy")`` asks ``choices_for("chunking strategy")`` instead of
keeping its own list, so a new plugin is one registration and nothing else. The configuration
sits below the plugin packages, so it cannot import them; ``choices_for`` imports the modules
that register the built-in plugins (``BUILT_IN``) the first time it is asked.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator
from typing import Generic, TypeVar

Plugin = TypeVar("Plugin")

#: the modules whose import registers every built-in plugin, one per kind
BUILT_IN = (
    "workbench.backends",
    "workbench.chunking",
    "workbench.retrieval.fusion",
    "workbench.embedding.runtimes",
    "workbench.ingestion.parsers",
)

_BY_KIND: dict[str, Registry[object]] = {}
_LOADED = threading.Event()
_LOADING = threading.RLock()


class PluginNotFound(LookupError, ValueError):
    """No plugin of that kind has that name; the message lists the names that are registered.

    A ``ValueError`` too: the name came from a setting or a file, and callers that check values
    catch those."""


class Registry(Generic[Plugin]):
    """The plugins of one kind by name, in the order they were registered."""

    def __init__(self, kind: str) -> None:
        self.kind = kind  # "index backend", "chunking strategy": what errors and the configuration call it
        self._plugins: dict[str, Plugin] = {}
        self._guard = threading.Lock()
        _BY_KIND[kind] = self  # type: ignore[assignment]  # looked up by kind, the plugin type unknown there

    def register(self, name: str, plugin: Plugin) -> Plugin:
        """Make ``plugin`` the one ``name`` picks (a later registration of a name replaces it)."""
        with self._guard:
            self._plugins[name] = plugin
        return plugin

    def unregister(self, name: str) -> None:
        """Forget ``name`` (tests that register a fake take it back this way)."""
        with self._guard:
            self._plugins.pop(name, None)

    def get(self, name: str) -> Plugin:
        with self._guard:
            found = self._plugins.get(name)
        if found is None:
            raise PluginNotFound(f"{self.kind} {name!r} not found; known: {', '.join(self.names())}")
        return found

    def names(self) -> tuple[str, ...]:
        with self._guard:
            return tuple(self._plugins)

    def items(self) -> list[tuple[str, Plugin]]:
        with self._guard:
            return list(self._plugins.items())

    def __contains__(self, name: object) -> bool:
        with self._guard:
            return name in self._plugins

    def __iter__(self) -> Iterator[Plugin]:
        return iter([plugin for _, plugin in self.items()])

    def __len__(self) -> int:
        with self._guard:
            return len(self._plugins)


def load_built_ins() -> None:
    """Import the modules that register the built-in plugins (once per process)."""
    if _LOADED.is_set():
        return
    with _LOADING:
        if not _LOADED.is_set():
            for module in BUILT_IN:
                importlib.import_module(module)
            _LOADED.set()


def registry_of(kind: str) -> Registry[object]:
    """The registry of ``kind``, with the built-in plugins registered."""
    load_built_ins()
    found = _BY_KIND.get(kind)
    if found is None:
        raise PluginNotFound(f"no plugin registry for {kind!r}; known kinds: {', '.join(sorted(_BY_KIND))}")
    return found


def choices_for(kind: str) -> tuple[str, ...]:
    """The names of the plugins of ``kind``: the choices of a key that names one."""
    return registry_of(kind).names()
