"""One pymilvus client per URI in a process, and how each URI is reached."""

from __future__ import annotations

import contextlib
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from store.milvus.errors import MilvusUnavailable, message_of
from store.milvus.lite import lite_locked_elsewhere, lite_server_log, release_lite_server
from store.milvus.names import LITE_SUFFIX, is_lite

if TYPE_CHECKING:
    from pymilvus import MilvusClient

DEFAULT_TIMEOUT_S = 10.0
DEFAULT_BATCH_SIZE = 1000


@dataclass(frozen=True)
class MilvusAccess:
    """How to reach one Milvus URI: credentials, patience, and the rows sent per insert."""

    token: str = ""
    timeout_s: float = DEFAULT_TIMEOUT_S
    batch_size: int = DEFAULT_BATCH_SIZE

    def __post_init__(self) -> None:
        if self.timeout_s <= 0:
            raise ValueError(f"milvus.timeout_s must be more than 0 seconds, got {self.timeout_s}")
        if self.batch_size < 1:
            raise ValueError(f"milvus.batch_size must be at least 1, got {self.batch_size}")


class MilvusConnections:
    """One pymilvus client per URI in a process, opened on first use with the URI's ``MilvusAccess``.

    A Milvus Lite file is served by the process that opens it (Milvus Lite locks the file), so
    ``release`` closes this process's Lite server for a file and lets another process open it.
    """

    def __init__(self) -> None:
        self._clients: dict[str, MilvusClient] = {}
        self._access: dict[str, MilvusAccess] = {}
        self._unflushed: set[tuple[str, str]] = set()
        self._lock = threading.RLock()

    def configure(self, uri: str, access: MilvusAccess) -> None:
        """Use ``access`` for ``uri`` from now on (a new token reconnects)."""
        with self._lock:
            previous = self._access.get(uri)
            self._access[uri] = access
            if previous is not None and previous.token != access.token:
                self.forget(uri)

    def access(self, uri: str) -> MilvusAccess:
        with self._lock:
            return self._access.get(uri) or MilvusAccess()

    def client(self, uri: str) -> MilvusClient:
        with self._lock:
            client = self._clients.get(uri)
            if client is None:
                access = self.access(uri)
                client = self._clients[uri] = _connect(uri, access.token, access.timeout_s)
            return client

    def forget(self, uri: str) -> None:
        """Drop the client of ``uri`` (after a failure: the next call reconnects)."""
        with self._lock:
            client = self._clients.pop(uri, None)
            if client is not None:
                with contextlib.suppress(Exception):
                    client.close()

    def release(self, uri: str | None = None) -> None:
        """Close the client of ``uri`` (every URI if None); a Lite file is closed and unlocked."""
        with self._lock:
            uris = set(self._clients) if uri is None else {uri}
            for each in uris:
                self.forget(each)
                self._unflushed = {key for key in self._unflushed if key[0] != each}
                if is_lite(each):
                    release_lite_server(each)

    def mark_written(self, uri: str, collection: str) -> None:
        with self._lock:
            self._unflushed.add((uri, collection))

    def settle(self, uri: str, collection: str) -> None:
        """On Milvus Lite, flush what this process wrote to ``collection``, so that BM25 statistics
        cover every row of the collection and not just the rows a filter lets through."""
        if not is_lite(uri):
            return
        with self._lock:
            if (uri, collection) not in self._unflushed:
                return
            self.client(uri).flush(collection, timeout=self.access(uri).timeout_s)
            self._unflushed.discard((uri, collection))


#: the process's connections; the workbench shares one set between every snapshot it loads
CONNECTIONS = MilvusConnections()


def _connect(uri: str, token: str, timeout_s: float) -> MilvusClient:
    from pymilvus import MilvusClient
    from pymilvus.exceptions import MilvusException

    # pymilvus logs every failed call with its traceback on its own stderr handler; every failure
    # reaches the caller as a MilvusError naming the URI and the fix instead.
    logging.getLogger("pymilvus").setLevel(logging.CRITICAL)

    if is_lite(uri):
        if not uri.endswith(LITE_SUFFIX):
            raise MilvusUnavailable(
                uri,
                f"a Milvus Lite file name must end in {LITE_SUFFIX}",
                f"use a path like indexes/milvus{LITE_SUFFIX} or a server URI http://host:19530",
            )
        Path(uri).parent.mkdir(parents=True, exist_ok=True)
        with lite_server_log() as failures:
            try:
                return MilvusClient(uri=uri, timeout=timeout_s)
            except MilvusException as error:
                if lite_locked_elsewhere(uri):
                    raise MilvusUnavailable(
                        uri,
                        "the Milvus Lite file is open in another process (Milvus Lite serves one process at a time)",
                        "close the other app, CLI or MCP server using it, or serve the file to every process "
                        f"with `python -m milvus_lite server --data-dir {uri} --port 19530` and set "
                        "milvus.uri=http://127.0.0.1:19530, or run Milvus standalone (docs/SCALING.md)",
                    ) from None
                raise MilvusUnavailable(uri, "; ".join(failures) or message_of(error)) from None
    try:
        return MilvusClient(uri=uri, token=token, timeout=timeout_s)
    except MilvusException as error:
        raise MilvusUnavailable(uri, message_of(error)) from None
