"""The models a user can pick, and where each stands on this machine.

One row per catalogue model, plus any other model already in the Hugging Face cache (downloaded
by id). A row says whether the model is bundled, downloaded or not, how much it downloads, how
much it takes on disk, and where it is (or will be) cached. The Models page, the CLI's
``models`` list and the pickers all read these rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from workbench.models.availability import card_for, hub_cache_dir, locate
from workbench.models.catalogue import EMBEDDING, EMBEDDING_MODELS, RERANK, RERANK_MODELS, ModelCard, entry
from workbench.models.download import cache_folder, size_on_disk

BUNDLED = "bundled"
DOWNLOADED = "downloaded"
MISSING = "not downloaded"


@dataclass(frozen=True)
class ModelRow:
    card: ModelCard
    folder: Path | None  # where it loads from; None when it is not on this machine
    size_on_disk: int  # bytes in the cache, or in the package for a bundled model (0 when missing)
    cache_folder: Path  # where the cache keeps it, or will

    @property
    def status(self) -> str:
        if self.card.bundled:
            return BUNDLED
        return DOWNLOADED if self.folder is not None else MISSING

    @property
    def present(self) -> bool:
        return self.folder is not None

    def facts(self) -> dict:
        return {
            **self.card.facts(),
            "available": self.present,
            "status": self.status,
            "folder": str(self.folder) if self.folder else None,
            "size_on_disk": self.size_on_disk,
            "cache_folder": str(self.cache_folder),
            "in_catalogue": self.card.in_catalogue,
        }


def folder_size(folder: Path) -> int:
    """Bytes of every file under ``folder`` (a bundled model's package folder)."""
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def row_for(card: ModelCard) -> ModelRow:
    folder = locate(card.name, card.kind)
    if card.bundled:
        on_disk = folder_size(Path(folder)) if folder is not None else 0
    else:
        on_disk = size_on_disk(card.name, card.kind)
    where = folder if card.bundled and folder is not None else cache_folder(card.name, card.kind)
    return ModelRow(card=card, folder=folder, size_on_disk=on_disk, cache_folder=where)


def cached_repositories() -> list[str]:
    """The ids of the models the Hugging Face cache holds a ``main`` snapshot of."""
    cache = hub_cache_dir()
    if not cache.is_dir():
        return []
    found = []
    for folder in sorted(cache.glob("models--*")):
        if (folder / "refs" / "main").is_file():
            found.append(folder.name.removeprefix("models--").replace("--", "/"))
    return found


def guess_kind(folder: Path | None) -> str:
    """A cross-encoder (sequence classification head) is a rerank model; anything else embeds."""
    try:
        config = json.loads((Path(folder) / "config.json").read_text(encoding="utf-8")) if folder else {}
    except (OSError, ValueError):
        return EMBEDDING
    architectures = config.get("architectures") or []
    return RERANK if any("SequenceClassification" in a for a in architectures) else EMBEDDING


def inventory() -> list[ModelRow]:
    """Catalogue models first (embedding, then rerank), then other downloaded models."""
    rows = [row_for(card) for card in (*EMBEDDING_MODELS, *RERANK_MODELS)]
    for repo_id in cached_repositories():
        if entry(repo_id, EMBEDDING) is not None or entry(repo_id, RERANK) is not None:
            continue
        kind = guess_kind(locate(repo_id, RERANK))
        rows.append(row_for(card_for(repo_id, kind)))
    return rows


def downloaded_names(kind: str) -> list[str]:
    """Models of ``kind`` outside the catalogue that are downloaded (for the pickers)."""
    return [row.card.name for row in inventory() if not row.card.in_catalogue and row.card.kind == kind]
