"""What the server was started with (``--collection``, ``--preset``, ``--set``).

Every tool that takes a collection or a preset falls back to these, so a server started with
``--collection my-docs --preset tuned-bm25`` evaluates, tunes and checks what
``query_knowledge_hub`` serves.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ServerDefaults:
    """Tool arguments take precedence over these; see ``KnowledgeHub.resolve``."""

    collection: str | None = None
    preset: str | None = None
    overrides: tuple[str, ...] = ()

    def collection_or(self, given: str | None) -> str | None:
        """The collection a call named, else ``--collection`` (None: the tool picks the only one)."""
        return (given or "").strip() or self.collection

    def preset_or(self, given: str | None) -> str | None:
        """The preset a call named, else ``--preset`` (None: the collection's default preset)."""
        return (given or "").strip() or self.preset

    def settings_with(self, given: list[str] | tuple[str, ...] = ()) -> list[str]:
        """``--set`` first, then the call's own settings, which win on a key both set."""
        return [*self.overrides, *given]
