"""``python -m workbench mcp --http``: the same server over streamable HTTP.

The SDK's streamable HTTP app serves it, stateless: a client speaking the 2026-07-28 revision
sends self-contained requests (no ``initialize``, no session id), and an older client gets a
fresh transport per request. In front of the SDK's app sits one ASGI gate of ours:

- ``Origin``: a browser page on another site must not reach a server on this machine through
  DNS rebinding, so a request carrying an ``Origin`` that is not this machine's (or one given
  with ``--allow-origin``) gets 403, before anything else is read;
- the token: with a token configured (always, when the server listens beyond 127.0.0.1), every
  request needs ``Authorization: Bearer <token>``; a missing or wrong one gets 401 with a
  message saying how to send it. The token comes from ``WORKBENCH_TOKEN``, as for the shared
  app, is compared in constant time and is never logged; a token in the URL is not accepted.

The SDK also checks ``Host`` when bound to a loopback address (another DNS rebinding defence).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from workbench.service.sharing import TOKEN_VAR, SharingError, configured_token, is_loopback, tokens_match

log = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MCP_PATH = "/mcp"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(frozen=True)
class HttpSettings:
    """How the HTTP server listens and whom it lets in."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    read_only: bool = False
    #: origins a browser-based client may call from, besides this machine's
    allowed_origins: tuple[str, ...] = ()
    #: empty: no token needed (allowed on a loopback address only); never shown by repr
    token: str = field(default="", repr=False)

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{MCP_PATH}"


def http_settings(
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    read_only: bool = False,
    allowed_origins: tuple[str, ...] = (),
    env: MutableMapping[str, str] | None = None,
) -> HttpSettings:
    """The settings, with the token taken from ``WORKBENCH_TOKEN``.

    Raises ``SharingError`` when the server would listen beyond this machine without a token,
    or the token is too short to be safe."""
    token = configured_token(env)
    if not is_loopback(host) and not token:
        raise SharingError(
            f"--host {host} listens beyond this machine, so every request must carry a token: set "
            f"{TOKEN_VAR} to a secret of 16+ characters (clients send it as 'Authorization: Bearer <token>'), "
            f"or keep the default --host {DEFAULT_HOST}"
        )
    for origin in allowed_origins:
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/"):
            raise SharingError(f"--allow-origin {origin!r} is not an origin; give it as scheme://host[:port]")
    return HttpSettings(host, port, read_only, tuple(o.rstrip("/") for o in allowed_origins), token)


def origin_allowed(origin: str, allowed: tuple[str, ...]) -> bool:
    """This machine's origins (any port) and the ones given with ``--allow-origin``."""
    if origin.rstrip("/") in allowed:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.hostname is not None and is_loopback(parts.hostname)


class Gate:
    """ASGI middleware: refuse a foreign ``Origin`` (403), then a missing or wrong token (401)."""

    def __init__(self, app: ASGIApp, settings: HttpSettings):
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]}
        origin = headers.get("origin")
        if origin and not origin_allowed(origin, self.settings.allowed_origins):
            log.warning("refused a request from origin %s", origin)
            await _refuse(
                send,
                403,
                f"requests from origin {origin} are refused (a web page on another site must not reach this "
                "server); start the server with --allow-origin ORIGIN to allow a browser client there",
            )
            return
        if self.settings.token:
            scheme, _, given = headers.get("authorization", "").partition(" ")
            if scheme.casefold() != "bearer" or not tokens_match(given.strip(), self.settings.token):
                problem = "wrong token" if scheme.casefold() == "bearer" and given.strip() else "no token"
                log.warning("refused a request: %s", problem)
                await _refuse(
                    send,
                    401,
                    f"{problem}: this MCP server needs the token it was started with ({TOKEN_VAR}), sent as the "
                    "header 'Authorization: Bearer <token>'",
                    {"www-authenticate": 'Bearer realm="rag-workbench"'},
                )
                return
        status = 0

        async def send_noting_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_noting_status)
        finally:
            # our access log: the path without its query string, where a token must never be but
            # a client might put one (uvicorn's own access log, which prints it, is off)
            log.info("%s %s %s", scope.get("method", "?"), scope.get("path", "?"), status or "-")


async def _refuse(send: Send, status: int, message: str, extra: dict[str, str] | None = None) -> None:
    body = json.dumps({"error": message}).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode("ascii"))]
    headers += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def build_app(server: Any, settings: HttpSettings) -> ASGIApp:
    """The SDK's stateless streamable HTTP app for ``server`` (an ``MCPServer``), behind the gate."""
    from mcp.server.transport_security import TransportSecuritySettings

    if settings.loopback:
        hosts = [f"{name}:*" for name in LOOPBACK_NAMES] + list(LOOPBACK_NAMES)
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=hosts,
            allowed_origins=[f"http://{name}:*" for name in LOOPBACK_NAMES] + list(settings.allowed_origins),
        )
    else:
        # the Host a client uses for a wide bind is not known in advance; the gate checks Origin
        # and the token instead
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH, stateless_http=True, transport_security=security, host=settings.host
    )
    return Gate(app, settings)


def run_http(server: Any, settings: HttpSettings) -> None:
    """Serve until interrupted (Ctrl-C or SIGTERM)."""
    import uvicorn

    # uvicorn's access log prints the query string: off, the gate logs each request without it
    uvicorn.run(build_app(server, settings), host=settings.host, port=settings.port, log_level="info", access_log=False)


def serve_http(
    home: str | None,
    preset: str | None,
    collection: str | None,
    overrides: list[str] | None,
    settings: HttpSettings,
    ingest_root: str | None = None,
) -> int:
    """Serve over HTTP until interrupted; the same knowledge-base tools as stdio, plus the
    evaluation loop's tools and long jobs as tasks."""
    from pathlib import Path

    from workbench.config import WorkbenchConfig
    from workbench.mcp_server.defaults import ServerDefaults
    from workbench.mcp_server.loop_tools import LoopOptions
    from workbench.mcp_server.server import HubProvider, _check_named_models, build_server
    from workbench.service.home import resolve_home

    config = WorkbenchConfig().with_overrides(overrides or [])
    _check_named_models(config, overrides or [])
    root = Path(ingest_root).resolve() if ingest_root else None
    if root is not None and not root.is_dir():
        raise SharingError(f"--ingest-root {ingest_root} is not a folder; give the folder ingest may read from")
    logging.getLogger("workbench").setLevel(logging.INFO)
    defaults = ServerDefaults(collection=collection, preset=preset, overrides=tuple(overrides or ()))
    provider = HubProvider(home, defaults, read_only=settings.read_only)
    server = build_server(provider, LoopOptions(read_only=settings.read_only, ingest_root=root))
    log.info(
        "serving %s over MCP streamable HTTP at %s (%s%s%s)",
        resolve_home(home),
        settings.url,
        "token required" if settings.token else "no token: this machine only",
        ", read-only" if settings.read_only else "",
        f", ingest under {root}" if root else "",
    )
    provider.start_warm_up()  # the indexes, then the model, while uvicorn starts
    run_http(server, settings)
    return 0
