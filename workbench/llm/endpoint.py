"""The OpenAI-compatible chat-completions client every LLM feature shares.

Configured only from the environment, so no key is ever stored in the home or a preset:

- ``WORKBENCH_LLM_BASE_URL`` (or ``OPENAI_BASE_URL``): e.g. ``http://localhost:11434/v1`` for
  Ollama, ``http://localhost:8000/v1`` for vLLM; defaults to OpenAI's when only a key is set;
- ``WORKBENCH_LLM_MODEL``: the model name the endpoint expects;
- ``WORKBENCH_LLM_API_KEY`` (or ``OPENAI_API_KEY``): sent as a bearer token when set;
- ``WORKBENCH_LLM_TIMEOUT``: seconds to wait for a reply (default 60).

``chat`` never raises for endpoint trouble: every failure comes back as a result whose
``error`` names the problem and the fix, because a front end must show it, not crash. Message
contents may be plain strings or OpenAI content parts (text and ``image_url``), see
``image_part``.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Mapping, Sequence

BASE_URL_VARS = ("WORKBENCH_LLM_BASE_URL", "OPENAI_BASE_URL")
MODEL_VAR = "WORKBENCH_LLM_MODEL"
API_KEY_VARS = ("WORKBENCH_LLM_API_KEY", "OPENAI_API_KEY")
TIMEOUT_VAR = "WORKBENCH_LLM_TIMEOUT"
OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_TIMEOUT_S = 60.0
_LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1"}

HOW_TO_CONFIGURE = (
    f"set {BASE_URL_VARS[0]} to an OpenAI-compatible endpoint (e.g. http://localhost:11434/v1 for Ollama), "
    f"{MODEL_VAR} to its model name and, if it needs one, {API_KEY_VARS[0]}; then restart the app"
)


@dataclass(frozen=True)
class LlmSettings:
    base_url: str
    model: str
    api_key: str = field(default="", repr=False)
    timeout_s: float = DEFAULT_TIMEOUT_S

    @property
    def endpoint(self) -> str:
        base = self.base_url.rstrip("/")
        return base if base.endswith("/chat/completions") else f"{base}/chat/completions"


@dataclass(frozen=True)
class SettingsLookup:
    settings: LlmSettings | None
    problem: str = ""  # why there are no settings: "not configured: set ..." or a bad value

    @property
    def configured(self) -> bool:
        return self.settings is not None


def settings_from_env(env: Mapping[str, str] | None = None) -> SettingsLookup:
    env = os.environ if env is None else env
    base_url = _first(env, BASE_URL_VARS)
    api_key = _first(env, API_KEY_VARS)
    model = env.get(MODEL_VAR, "").strip()
    if not base_url and api_key:
        base_url = OPENAI_BASE_URL
    missing = ([BASE_URL_VARS[0]] if not base_url else []) + ([MODEL_VAR] if not model else [])
    if missing:
        return SettingsLookup(None, f"not configured: {' and '.join(missing)} missing; {HOW_TO_CONFIGURE}")
    if urllib.parse.urlsplit(base_url).scheme not in ("http", "https"):
        return SettingsLookup(None, f"{BASE_URL_VARS[0]}={base_url!r} is not an http(s) URL; "
                                   "use e.g. http://localhost:11434/v1")
    raw_timeout = env.get(TIMEOUT_VAR, "").strip()
    try:
        timeout_s = float(raw_timeout) if raw_timeout else DEFAULT_TIMEOUT_S
        if timeout_s <= 0:
            raise ValueError
    except ValueError:
        return SettingsLookup(None, f"{TIMEOUT_VAR}={raw_timeout!r} is not a positive number of seconds")
    return SettingsLookup(LlmSettings(base_url, model, api_key, timeout_s))


def _first(env: Mapping[str, str], names: Sequence[str]) -> str:
    for name in names:
        value = env.get(name, "").strip()
        if value:
            return value
    return ""


@dataclass(frozen=True)
class ChatResult:
    ok: bool
    text: str = ""
    error: str = ""
    model: str = ""
    elapsed_ms: float = 0.0
    finish_reason: str | None = None
    usage: dict = field(default_factory=dict)


def chat(
    messages: Sequence[Mapping[str, object]],
    settings: LlmSettings,
    temperature: float = 0.0,
    max_tokens: int | None = None,
    model: str | None = None,
) -> ChatResult:
    """One chat completion; failures are returned as ``ok=False`` results with a clear ``error``."""
    body: dict = {"model": model or settings.model, "messages": [dict(m) for m in messages],
            "temperature": temperature}
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if settings.api_key:
        headers["Authorization"] = f"Bearer {settings.api_key}"
    request = urllib.request.Request(settings.endpoint, data=json.dumps(body).encode("utf-8"), headers=headers,
                                     method="POST")
    started = time.perf_counter()

    def failed(message: str) -> ChatResult:
        return ChatResult(False, error=message, model=settings.model, elapsed_ms=_ms(started))

    try:
        with _opener_for(settings.endpoint).open(request, timeout=settings.timeout_s) as response:
            raw = response.read()
    except urllib.error.HTTPError as error:
        return failed(_http_error_message(error, settings))
    except (TimeoutError, socket.timeout):
        return failed(f"no answer from {settings.endpoint} within {settings.timeout_s:g} s; "
                      f"raise {TIMEOUT_VAR} or use a faster model")
    except urllib.error.URLError as error:
        if isinstance(error.reason, (TimeoutError, socket.timeout)):
            return failed(f"no answer from {settings.endpoint} within {settings.timeout_s:g} s; "
                          f"raise {TIMEOUT_VAR} or use a faster model")
        return failed(f"cannot reach {settings.endpoint} ({error.reason}); check {BASE_URL_VARS[0]} "
                      "and that the server is running")
    except OSError as error:
        return failed(f"connection to {settings.endpoint} failed ({error}); check {BASE_URL_VARS[0]}")

    try:
        payload = json.loads(raw.decode("utf-8"))
        choice = payload["choices"][0]
        text = choice["message"]["content"]
        if not isinstance(text, str):
            raise TypeError("message.content is not a string")
    except (ValueError, KeyError, IndexError, TypeError) as error:
        preview = raw[:200].decode("utf-8", "replace")
        return failed(f"{settings.endpoint} did not answer with an OpenAI-style chat completion "
                      f"({type(error).__name__}: {error}); got {preview!r}. Check that {BASE_URL_VARS[0]} "
                      "points at the API root (usually ending in /v1)")
    usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
    return ChatResult(True, text=text, model=str(payload.get("model") or settings.model),
                            elapsed_ms=_ms(started), finish_reason=choice.get("finish_reason"), usage=usage)


def chat_from_env(messages: Sequence[Mapping[str, object]], env: Mapping[str, str] | None = None) -> ChatResult:
    lookup = settings_from_env(env)
    if lookup.settings is None:
        return ChatResult(False, error=lookup.problem)
    return chat(messages, lookup.settings)


def _opener_for(url: str) -> urllib.request.OpenerDirector:
    # A local server must not be sent through an HTTP(S)_PROXY the environment sets for the internet.
    if urllib.parse.urlsplit(url).hostname in _LOOPBACK_HOSTS:
        return urllib.request.build_opener(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener()


def _http_error_message(error: urllib.error.HTTPError, settings: LlmSettings) -> str:
    detail = ""
    try:
        raw = error.read()
        payload = json.loads(raw.decode("utf-8"))
        inner = payload.get("error") if isinstance(payload, dict) else None
        detail = inner.get("message", "") if isinstance(inner, dict) else str(inner or "")
    except Exception:  # the body is only a hint; the status code alone still says what went wrong
        detail = ""
    hint = {
        401: f"check {API_KEY_VARS[0]}",
        403: f"check {API_KEY_VARS[0]} and the key's permissions",
        404: f"check {BASE_URL_VARS[0]} (usually ends in /v1) and {MODEL_VAR}",
        429: "the endpoint is rate limiting; wait and try again",
    }.get(error.code, "see the endpoint's logs" if error.code >= 500 else f"check {MODEL_VAR} and the request")
    said = f": {detail[:300]}" if detail else ""
    return f"{settings.endpoint} answered HTTP {error.code}{said}; {hint}"


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000.0, 1)


def image_part(image: bytes, mime: str) -> dict:
    """An OpenAI content part carrying ``image`` inline as a data URL."""
    encoded = base64.b64encode(image).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{encoded}"}}
