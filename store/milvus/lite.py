"""Milvus Lite's quirks: one process holds a file (its LOCK), and its server logs its failures."""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path


@contextlib.contextmanager
def lite_server_log():
    """Collect what Milvus Lite logs while it fails to open a file, instead of a stray traceback:
    the reason goes into our error message."""
    records: list[str] = []

    class _Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            reason = record.exc_info[1] if record.exc_info else None
            records.append(f"{type(reason).__name__}: {reason}" if reason else record.getMessage())

    logger = logging.getLogger("milvus_lite.server_manager")
    handler, propagate = _Collect(level=logging.ERROR), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield records
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def lite_locked_elsewhere(path: str) -> bool:
    import fcntl

    lock_file = Path(path) / "LOCK"
    if not lock_file.exists():
        return False
    descriptor = os.open(lock_file, os.O_RDWR)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(descriptor, fcntl.LOCK_UN)
        return False
    finally:
        os.close(descriptor)


def release_lite_server(path: str) -> None:
    """Stop this process's Milvus Lite server for the file and unlock it for another process."""
    from milvus_lite import server_manager_instance

    server_manager_instance.release_server(path)
