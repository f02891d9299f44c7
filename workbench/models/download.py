"""Download a model once (with its size first and progress as it goes), or remove it again.

The one place the workbench goes online. ``download`` runs ``workbench.models.fetch`` in a
child process (see there why) and turns its JSON events into calls of ``on_plan`` and
``on_progress`` and, at the end, the verified folder or a ``ModelDownloadError`` whose ``kind``
says what went wrong: ``offline``, ``not_found``, ``disk``, ``interrupted`` or ``corrupt``. Each
failure loses nothing: files already fetched stay in the cache (the next download resumes
after them), a corrupt file is deleted, and nothing outside the Hugging Face cache is touched.

Space: before any byte moves, the download needs room for what it fetches plus a margin left
free on the cache's disk (``keep_free_mb``: default 500 MB, ``WORKBENCH_MODELS_KEEP_FREE_MB``,
or ``models download --keep-free-mb``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from workbench.models.availability import bundled_folder, hub_cache_dir, is_path_like, locate
from workbench.models.catalogue import EMBEDDING, RERANK, entry
from workbench.models.hub_files import repo_folder_name

DEFAULT_KEEP_FREE_MB = 500
KEEP_FREE_ENV = "WORKBENCH_MODELS_KEEP_FREE_MB"
MB = 1_000_000


class ModelDownloadError(RuntimeError):
    """A download failed; the message says why and what to do, ``kind`` names the failure."""

    def __init__(self, message: str, kind: str = "failed") -> None:
        super().__init__(message)
        self.kind = kind


class ModelRemoveError(RuntimeError):
    """A model cannot be removed (bundled, a folder of the user's, or not downloaded)."""


@dataclass(frozen=True)
class DownloadPlan:
    repo_id: str
    files: int
    total_bytes: int  # the whole model
    to_fetch: int  # what is not in the cache yet


@dataclass(frozen=True)
class DownloadProgress:
    done: int
    total: int
    file: str

    @property
    def fraction(self) -> float:
        return min(1.0, self.done / self.total) if self.total else 0.0


def format_bytes(size: int | float) -> str:
    """``812 kB``, ``91.2 MB``, ``2.3 GB`` (decimal units, as the Hub shows sizes)."""
    if size < MB:
        return f"{size / 1000:.0f} kB"
    if size < 1000 * MB:
        return f"{size / MB:.1f} MB"
    return f"{size / (1000 * MB):.1f} GB"


def keep_free_mb() -> float:
    value = os.environ.get(KEEP_FREE_ENV, "").strip()
    try:
        return float(value) if value else DEFAULT_KEEP_FREE_MB
    except ValueError:
        return DEFAULT_KEEP_FREE_MB


def hub_endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")


def repo_id_for(name: str, kind: str = EMBEDDING) -> str:
    """The Hub repository a name downloads from (its catalogue entry's, else the name itself)."""
    name = (name or "").strip()
    card = entry(name, kind) or entry(name, RERANK if kind == EMBEDDING else EMBEDDING)
    return card.hub_id if card is not None and card.hub_id else name


def download(
    name: str,
    kind: str = EMBEDDING,
    *,
    on_plan: Callable[[DownloadPlan], None] | None = None,
    on_progress: Callable[[DownloadProgress], None] | None = None,
    keep_free: float | None = None,
) -> Path:
    """Fetch a model into the Hugging Face cache, verify it, and return its folder."""
    name = (name or "").strip()
    if not name:
        raise ModelDownloadError(
            "name the model to download, e.g. python -m workbench models download "
            "BAAI/bge-small-zh-v1.5 (python -m workbench models lists the catalogue)",
            "usage",
        )
    card = entry(name, kind) or entry(name, RERANK if kind == EMBEDDING else EMBEDDING)
    if card is not None and card.bundled:
        return bundled_folder(card)
    if is_path_like(name):
        raise ModelDownloadError(f"{name!r} is a folder path, not a model id; nothing to download", "usage")
    repo_id = repo_id_for(name, kind)
    keep_free = keep_free_mb() if keep_free is None else keep_free
    env = {**os.environ, "HF_HUB_OFFLINE": "0", "TRANSFORMERS_OFFLINE": "0", "HF_HUB_DISABLE_TELEMETRY": "1"}
    command = [sys.executable, "-m", "workbench.models.fetch", repo_id, str(int(keep_free * MB))]
    outcome: dict = {}
    plan: DownloadPlan | None = None
    with subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, text=True, bufsize=1, cwd=Path(__file__).resolve().parents[2]
    ) as child:
        assert child.stdout is not None
        for line in child.stdout:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if event.get("event") == "plan":
                plan = DownloadPlan(repo_id, len(event["files"]), event["total"], event["to_fetch"])
                if on_plan is not None:
                    on_plan(plan)
            elif event.get("event") == "progress" and on_progress is not None:
                on_progress(DownloadProgress(event["done"], event["total"], event.get("file", "")))
            elif event.get("event") in ("done", "error"):
                outcome = event
    if outcome.get("event") == "done":
        if on_progress is not None and plan is not None:
            on_progress(DownloadProgress(plan.total_bytes, plan.total_bytes, ""))
        return Path(outcome["folder"])
    raise ModelDownloadError(
        failure_message(repo_id, outcome, plan, keep_free, child.returncode), outcome.get("kind", "failed")
    )


def failure_message(repo_id: str, outcome: dict, plan: DownloadPlan | None, keep_free: float, status: int) -> str:
    kind = outcome.get("kind", "failed")
    cause = outcome.get("message") or f"the download process ended with status {status}"
    cache = hub_cache_dir()
    if kind == "offline":
        return (
            f"could not reach the Hugging Face Hub at {hub_endpoint()} to download {repo_id!r} ({cause}). "
            "Check the network (and HF_ENDPOINT or a proxy, if you use one), then download again; "
            "nothing was changed"
        )
    if kind == "not_found":
        return (
            f"the Hub at {hub_endpoint()} has no model {repo_id!r} (or it is private or gated): {cause}. "
            "Check the id (python -m workbench models lists the catalogue)"
        )
    if kind == "disk":
        needed = outcome.get("needed", plan.to_fetch if plan else 0)
        free = outcome.get("free", 0)
        return (
            f"not enough disk space to download {repo_id!r}: it needs {format_bytes(needed)} and {cache} has "
            f"{format_bytes(free)} free, of which {keep_free:g} MB stay free (keep-free limit: default "
            f"{DEFAULT_KEEP_FREE_MB} MB; set {KEEP_FREE_ENV} or --keep-free-mb). Free some space or set "
            "HF_HUB_CACHE to a bigger disk; nothing was downloaded"
        )
    if kind == "corrupt":
        return (
            f"{repo_id!r}: {cause}, so the file failed verification against the Hub's metadata and was "
            "removed; download again to fetch it afresh"
        )
    if kind == "interrupted":
        where = f" at {outcome['file']}" if outcome.get("file") else ""
        return (
            f"the download of {repo_id!r} was interrupted{where} ({cause}). The files already fetched are kept "
            f"in {cache}: download again to resume"
        )
    return (
        f"could not download {repo_id!r} into {cache}: {cause}. Check the network (and HF_ENDPOINT or a "
        "proxy, if you use one), then download again"
    )


def cache_folder(name: str, kind: str = EMBEDDING) -> Path:
    """Where the cache keeps (or would keep) this model's files."""
    return hub_cache_dir() / repo_folder_name(repo_id_for(name, kind))


def size_on_disk(name: str, kind: str = EMBEDDING) -> int:
    """Bytes the model takes in the Hugging Face cache (0 when it is not there)."""
    blobs = cache_folder(name, kind) / "blobs"
    if not blobs.is_dir():
        return 0
    return sum(path.stat().st_size for path in blobs.iterdir() if path.is_file())


def remove(name: str, kind: str = EMBEDDING) -> int:
    """Delete a downloaded model from the Hugging Face cache; returns the bytes freed."""
    name = (name or "").strip()
    card = entry(name, kind) or entry(name, RERANK if kind == EMBEDDING else EMBEDDING)
    if card is not None and card.bundled:
        raise ModelRemoveError(
            f"{card.name} is bundled with the workbench (a Python package); there is nothing to remove"
        )
    if is_path_like(name) and Path(name).expanduser().is_dir():
        raise ModelRemoveError(
            f"{name!r} is a folder of yours, not a downloaded model; the workbench does not delete it"
        )
    folder = cache_folder(name, kind)
    if not folder.is_dir():
        raise ModelRemoveError(
            f"{name!r} is not downloaded: {folder} does not exist. Downloaded models: python -m workbench models"
        )
    freed = size_on_disk(name, kind)
    shutil.rmtree(folder)
    shutil.rmtree(hub_cache_dir() / ".locks" / folder.name, ignore_errors=True)
    return freed


def is_downloaded(name: str, kind: str) -> bool:
    return locate(name, kind) is not None
