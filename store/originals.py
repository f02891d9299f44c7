"""Original files kept beside the catalog, by content hash: what the app and MCP show for images.

Documents are stored as Markdown; for an image that text is only OCR and a caption, so the
picture itself is kept too (``<home>/originals/<sha256><suffix>``, written atomically, never
changed: the same bytes always land in the same file).
"""

from __future__ import annotations

from pathlib import Path

from store.atomic import atomic_write_bytes

ORIGINALS_DIR = "originals"


def original_path(home: Path, sha256: str, suffix: str) -> Path:
    return Path(home) / ORIGINALS_DIR / f"{sha256}{suffix.lower()}"


def keep_original(home: Path, sha256: str, suffix: str, data: bytes) -> Path:
    path = original_path(home, sha256, suffix)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, data)
    return path


def read_original(home: Path, sha256: str, suffix: str) -> bytes | None:
    try:
        return original_path(home, sha256, suffix).read_bytes()
    except OSError:
        return None
