"""Where a workbench keeps its state: one home directory for the catalog, indexes and golden sets."""

from __future__ import annotations

import os
from pathlib import Path

HOME_ENV = "WORKBENCH_HOME"
DEFAULT_HOME = Path("data")


def resolve_home(explicit: str | os.PathLike | None = None) -> Path:
    """Where all state lives: ``--home`` wins, then ``$WORKBENCH_HOME``, then ``./data``."""
    chosen = explicit or os.environ.get(HOME_ENV) or DEFAULT_HOME
    return Path(chosen).expanduser().resolve()
