"""Who may use the app: this machine only (the default), or a shared session behind a token.

- ``WORKBENCH_SHARE`` unset (or ``0``): the app binds to 127.0.0.1 (``.streamlit/config.toml``)
  and needs no sign-in: only this machine's user can reach it.
- ``WORKBENCH_SHARE=1``: ``make app`` binds to every interface and every visitor needs the token
  (``WORKBENCH_TOKEN``, or one generated at start and printed once as a ``?token=`` URL).
- ``WORKBENCH_SHARE=readonly``: the same, and visitors may query and look only. Writes (upload,
  delete, presets, settings, sweeps and runs) and every LLM call are refused by the ``Workbench``
  itself (``refused_when_read_only``), whatever the page shows.

Tokens are compared in constant time and are never written to the home or to a log.
"""

from __future__ import annotations

import functools
import hmac
import ipaddress
import os
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

SHARE_VAR = "WORKBENCH_SHARE"
TOKEN_VAR = "WORKBENCH_TOKEN"
LOCAL, SHARED, READ_ONLY = "local", "shared", "readonly"
_MODES = {
    "": LOCAL,
    "0": LOCAL,
    "false": LOCAL,
    "no": LOCAL,
    "off": LOCAL,
    "1": SHARED,
    "true": SHARED,
    "yes": SHARED,
    "on": SHARED,
    "shared": SHARED,
    "readonly": READ_ONLY,
    "read-only": READ_ONLY,
    "ro": READ_ONLY,
}
#: a token shorter than this is refused: it could be guessed
MIN_TOKEN_CHARS = 16


class SharingError(ValueError):
    """A sharing setting is unusable; the message names the variable and the values it takes."""


def share_mode(env: Mapping[str, str] | None = None) -> str:
    """``local``, ``shared`` or ``readonly`` from ``WORKBENCH_SHARE``."""
    env = os.environ if env is None else env
    raw = env.get(SHARE_VAR, "").strip().casefold()
    if raw not in _MODES:
        raise SharingError(
            f"{SHARE_VAR}={env.get(SHARE_VAR)!r} is not a sharing mode; use 1 (shared, with a "
            f"token), readonly (shared, query and look only) or leave it unset (this machine only)"
        )
    return _MODES[raw]


def configured_token(env: Mapping[str, str] | None = None) -> str:
    """``WORKBENCH_TOKEN`` when set ("" when not); a short one is refused rather than trusted."""
    env = os.environ if env is None else env
    token = env.get(TOKEN_VAR, "").strip()
    if token and len(token) < MIN_TOKEN_CHARS:
        raise SharingError(
            f"{TOKEN_VAR} is {len(token)} characters; use at least {MIN_TOKEN_CHARS} "
            f"(or unset it to have one generated at start)"
        )
    return token


def new_token() -> str:
    """A fresh token: 32 random bytes, URL-safe (43 characters)."""
    return secrets.token_urlsafe(32)


def tokens_match(given: str | None, expected: str) -> bool:
    """Constant-time comparison; an empty expected token matches nothing."""
    if not given or not expected:
        return False
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


def is_loopback(address: str) -> bool:
    """True for 127.0.0.0/8, ::1 and ``localhost``; False for wildcards and other addresses."""
    if address.strip().casefold() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip().strip("[]")).is_loopback
    except ValueError:
        return False


def share_url(host: str, port: int, token: str) -> str:
    return f"http://{host}:{port}/?token={token}"


@dataclass(frozen=True)
class Access:
    """What this server allows: whether a visitor must sign in, and whether they may change anything."""

    mode: str  # local | shared | readonly
    needs_sign_in: bool

    @property
    def read_only(self) -> bool:
        return self.mode == READ_ONLY


def access_for(mode: str, server_address: str) -> Access:
    """Sign-in is needed when sharing is on, or when the server listens beyond this machine anyway
    (``--server.address 0.0.0.0`` without ``WORKBENCH_SHARE``): binding wide never means open."""
    return Access(mode, mode != LOCAL or not is_loopback(server_address or "127.0.0.1"))


Method = TypeVar("Method", bound=Callable)


def refused_when_read_only(action: str) -> Callable[[Method], Method]:
    """Decorate a ``Workbench`` method that writes: it raises ``ReadOnlyError`` when ``self.read_only``."""

    def decorate(method: Method) -> Method:
        @functools.wraps(method)
        def guarded(self, *args, **kwargs):
            self.require_writable(action)
            return method(self, *args, **kwargs)

        return guarded  # type: ignore[return-value]

    return decorate


def read_only_message(action: str) -> str:
    return (
        f"{action} is refused: this is a read-only shared session ({SHARE_VAR}=readonly), where visitors "
        f"may query and look only; whoever runs the app can do it in a session started without "
        f"{SHARE_VAR}=readonly"
    )
