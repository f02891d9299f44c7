"""The HTTP MCP server in this process (uvicorn in a thread) and synchronous SDK clients for it.

In-process, so the lexicon home's hashing embedder (registered in this process) serves the
queries and the studies: no model loads, and a 20-trial study takes seconds.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from workbench.mcp_server.defaults import ServerDefaults
from workbench.mcp_server.http import HttpSettings, build_app, http_settings
from workbench.mcp_server.loop_tools import LoopOptions
from workbench.mcp_server.server import HubProvider, build_server


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class RunningServer:
    settings: HttpSettings
    options: LoopOptions

    @property
    def url(self) -> str:
        return self.settings.url


@contextmanager
def http_server(
    home: Path,
    token: str = "",
    read_only: bool = False,
    ingest_root: Path | None = None,
    collection: str | None = None,
    defaults: ServerDefaults | None = None,
) -> Iterator[RunningServer]:
    settings = http_settings(port=free_port(), read_only=read_only, env={"WORKBENCH_TOKEN": token} if token else {})
    options = LoopOptions(read_only=read_only, ingest_root=ingest_root)
    provider = HubProvider(home, defaults or ServerDefaults(collection=collection), read_only=read_only)
    app = build_app(build_server(provider, options), settings)
    server = uvicorn.Server(
        uvicorn.Config(app, host=settings.host, port=settings.port, log_level="info", access_log=False)
    )
    thread = threading.Thread(target=server.run, name="mcp-http-test", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the HTTP server did not start"
        time.sleep(0.02)
    try:
        yield RunningServer(settings, options)
    finally:
        server.should_exit = True
        thread.join(10)


@dataclass
class SyncClient:
    """Blocking calls into one SDK ``Client`` living on a portal's event loop."""

    portal: BlockingPortal
    client: Client

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.client, name)
        return lambda *args, **kwargs: self.portal.call(lambda: method(*args, **kwargs))

    def run(self, coroutine_function, *args) -> Any:
        return self.portal.call(coroutine_function, *args)


@contextmanager
def connect(url: str, token: str = "", extensions: list | None = None, mode: str = "auto") -> Iterator[SyncClient]:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    transport = streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))
    with start_blocking_portal() as portal:
        client = Client(transport, extensions=extensions, mode=mode, cache=None)
        with portal.wrap_async_context_manager(client) as entered:
            yield SyncClient(portal, entered)
