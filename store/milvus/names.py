"""Where a Milvus is (a Lite file or a server URI) and what its collections are called."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

LITE_SUFFIX = ".db"


def is_lite(uri: str) -> bool:
    """A local Milvus Lite file rather than a server URI (http://, https://, tcp://, unix:)."""
    return "://" not in uri and not uri.startswith("unix:")


def resolve_uri(uri: str, home: Path) -> str:
    """A configured URI made usable: a relative Milvus Lite path is inside the home."""
    uri = uri.strip()
    if not uri:
        raise ValueError("milvus.uri is empty; give a Milvus Lite file such as indexes/milvus.db or http://host:19530")
    if not is_lite(uri):
        return uri
    path = Path(uri).expanduser()
    return str(path if path.is_absolute() else Path(home) / path)


_NAME_PART = re.compile(r"[^0-9A-Za-z_]")


def check_collection_prefix(prefix: str) -> str:
    if not re.fullmatch(r"[A-Za-z_][0-9A-Za-z_]*", prefix or "_"):
        raise ValueError(
            f"milvus.collection_prefix {prefix!r} may hold only letters, digits and '_', "
            "and must not start with a digit; e.g. workbench_"
        )
    return prefix


def collection_name_for(prefix: str, collection: str, layout_key: str) -> str:
    """The Milvus collection of a workbench collection's layout: ``<prefix><collection>_<digest>``.

    Milvus names hold letters, digits and underscores; the digest of the exact collection name
    and layout key keeps names apart that differ only in characters Milvus does not allow.
    """
    check_collection_prefix(prefix)
    digest = hashlib.sha256(f"{collection}\n{layout_key}".encode()).hexdigest()[:10]
    readable = _NAME_PART.sub("_", collection)[:120]
    return f"{prefix}{readable}_{digest}"
