"""What the service reports about a collection (its summary for listings, a backend migration)
and which settings a collection fixes when it is created."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from workbench.backends import BACKENDS
from workbench.config import known_keys
from workbench.layout import LOCAL
from workbench.text import count

log = logging.getLogger(__name__)


def known_only(stored: dict, owner: str) -> dict:
    """Stored settings minus keys this version no longer has (a newer or older home stays usable)."""
    known = set(known_keys())
    dropped = sorted(set(stored) - known)
    if dropped:
        log.warning("%s: ignoring settings this version does not know: %s", owner, ", ".join(dropped))
    return {k: v for k, v in stored.items() if k in known}


@dataclass(frozen=True)
class CollectionInfo:
    name: str
    documents: int
    chunks: int
    embedding_model: str
    default_preset: str
    config: dict
    #: why the collection may be missing files: its last ingest did not finish ("" when it did)
    interrupted: str = ""

    @property
    def backend(self) -> str:
        """Where the collection's indexes live: its backend, with its URI when it has one."""
        return BACKENDS.get(str(self.config.get("index.backend", LOCAL))).describe(self.config)


def interrupted_reason(last_ingest) -> str:
    """Why a collection may be missing files: its last ingest did not finish ("" when it did)."""
    if last_ingest is None or last_ingest.status == "finished":
        return ""
    how = "was cancelled" if last_ingest.status == "cancelled" else "was interrupted (or is still running)"
    return (
        f"the last ingest {how} after {last_ingest.files_recorded} of its {count(last_ingest.files_total, 'file')}; "
        "run it again to finish (unchanged files are skipped, cached texts are not embedded again)"
    )


@dataclass(frozen=True)
class Migration:
    collection: str
    backend: str
    uri: str | None
    results: tuple  # SyncResult of every layout built at the new place
    dropped: tuple[str, ...]  # what was removed from the old place
