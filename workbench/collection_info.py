"""What the service reports about a collection: its summary for listings, and a backend migration."""

from __future__ import annotations

from dataclasses import dataclass

from workbench.backends import backend_named
from workbench.layout import LOCAL
from workbench.plural import count


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
        return backend_named(str(self.config.get("index.backend", LOCAL))).describe(self.config)


def interrupted_reason(last_ingest) -> str:
    """Why a collection may be missing files: its last ingest did not finish ("" when it did)."""
    if last_ingest is None or last_ingest.status == "finished":
        return ""
    how = "was cancelled" if last_ingest.status == "cancelled" else "was interrupted (or is still running)"
    return (f"the last ingest {how} after {last_ingest.files_recorded} of its {count(last_ingest.files_total, 'file')}; "
            "run it again to finish (unchanged files are skipped, cached texts are not embedded again)")


@dataclass(frozen=True)
class Migration:
    collection: str
    backend: str
    uri: str | None
    results: tuple  # SyncResult of every layout built at the new place
    dropped: tuple[str, ...]  # what was removed from the old place
