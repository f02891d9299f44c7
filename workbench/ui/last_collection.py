"""The collection last used in this home, so a new browser tab opens on it rather than on the
first collection by name (the demo, on a first try: issue 48).

Kept in a small file of the home (``app_state.json``) rather than the catalog: it is a front
end's memory, written whenever a session picks another collection, and a catalog write would
invalidate every cached catalog read of every open page. A missing or unreadable file, or a
collection since deleted, means "no preference": the first collection by name, as before.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from store.atomic import atomic_write_bytes

log = logging.getLogger(__name__)

STATE_FILE = "app_state.json"
LAST_COLLECTION = "last_collection"


def read_last_collection(home: Path) -> str | None:
    try:
        state = json.loads((home / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    name = state.get(LAST_COLLECTION) if isinstance(state, dict) else None
    return name if isinstance(name, str) and name else None


def remember_last_collection(home: Path, name: str) -> None:
    """Record ``name`` as the home's last used collection (other keys of the file are kept)."""
    path = home / STATE_FILE
    try:
        state = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        state = state if isinstance(state, dict) else {}
        if state.get(LAST_COLLECTION) == name:
            return
        state[LAST_COLLECTION] = name
        atomic_write_bytes(path, json.dumps(state, indent=1, sort_keys=True).encode("utf-8"))
    except (OSError, ValueError):  # a read-only or full disk: the next tab opens on the first collection
        log.debug("could not record the last used collection in %s", path)
