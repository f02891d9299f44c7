"""Crash-safe writes of small files: a reader sees the old content or the new, never half of it.

The data goes to a temporary file in the target's own directory (``os.replace`` is only atomic
within one file system), is fsynced, and then renamed over the target.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    path = Path(path)
    file_descriptor, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(file_descriptor, "wb") as handle:
            # mkstemp creates the file owner-only (0600); index files are ordinary shared data.
            os.fchmod(handle.fileno(), 0o644)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, path)
    except BaseException:
        # Leave no stray temporary file behind, whatever interrupted the write.
        try:
            os.unlink(temp_name)
        except FileNotFoundError:
            pass
        raise
    _fsync_directory(path.parent)


def atomic_write_text(path: Path | str, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: Path | str, obj) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def _fsync_directory(directory: Path) -> None:
    """Persist the rename itself; without this a power cut can undo it on some file systems."""
    try:
        directory_descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # platforms that cannot open a directory (Windows) make the rename durable anyway
    try:
        os.fsync(directory_descriptor)
    except OSError:
        pass
    finally:
        os.close(directory_descriptor)
