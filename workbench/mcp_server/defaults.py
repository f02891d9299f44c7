"""What the server was started with (``--collection``, ``--preset``, ``--set``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ServerDefaults:
    """Tool arguments take precedence over these; see ``KnowledgeHub.resolve``."""

    collection: str | None = None
    preset: str | None = None
    overrides: tuple[str, ...] = ()
