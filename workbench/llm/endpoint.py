"""One client for any OpenAI-compatible endpoint: chat completions and embeddings.

Configured only from the environment, so no key is ever stored in the home or a preset:

- ``WORKBENCH_LLM_BASE_URL`` (or ``OPENAI_BASE_URL``): e.g. ``http://localhost:11434/v1`` for
  Ollama, ``http://localhost:8000/v1`` for vLLM; defaults to OpenAI's when only a key is set;
- ``WORKBENCH_LLM_MODEL``: the chat model name the endpoint expects;
- ``WORKBENCH_LLM_API_KEY`` (or ``OPENAI_API_KEY``): sent as a bearer token when set;
- ``WORKBENCH_LLM_TIMEOUT``: the longest any one request may take, in seconds (default 60);
- ``WORKBENCH_LLM_CONCURRENCY``: requests a stage may have in flight at once (default 4).

Nothing here raises for endpoint trouble: every failure comes back as a result whose ``error``
names the problem and the fix, because the stages that call it must fall back, not crash.
Every result carries its latency and, when the endpoint reports them, its token counts.
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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

BASE_URL_VARS = ("WORKBENCH_LLM_BASE_URL", "OPENAI_BASE_URL")
MODEL_VAR = "WORKBENCH_LLM_MODEL"
API_KEY_VARS = ("WORKBENCH_LLM_API_KEY", "OPENAI_API_KEY")
TIMEOUT_VAR = "WORKBENCH_LLM_TIMEOUT"
CONCURRENCY_VAR = "WORKBENCH_LLM_CONCURRENCY"
OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_CONCURRENCY = 4
MAX_CONCURRENCY = 32
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
    concurrency: int = DEFAULT_CONCURRENCY

    @property
    def root(self) -> str:
        """The API root (``.../v1``), whether the base URL was given with a route or without."""
        base = self.base_url.rstrip("/")
        for route in ("/chat/completions", "/embeddings"):
            if base.endswith(route):
                return base[: -len(route)]
        return base

    @property
    def endpoint(self) -> str:
        """The chat-completions URL."""
        return f"{self.root}/chat/completions"

    @property
    def embeddings_endpoint(self) -> str:
        return f"{self.root}/embeddings"

    @property
    def host(self) -> str:
        """Scheme-less ``host:port/path`` of the root: what cache keys name the endpoint by."""
        parts = urllib.parse.urlsplit(self.root)
        return f"{parts.netloc}{parts.path}"


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
        return SettingsLookup(
            None, f"{BASE_URL_VARS[0]}={base_url!r} is not an http(s) URL; use e.g. http://localhost:11434/v1"
        )
    raw_timeout = env.get(TIMEOUT_VAR, "").strip()
    try:
        timeout_s = float(raw_timeout) if raw_timeout else DEFAULT_TIMEOUT_S
        if not timeout_s > 0:
            raise ValueError
    except ValueError:
        return SettingsLookup(None, f"{TIMEOUT_VAR}={raw_timeout!r} is not a positive number of seconds")
    raw_concurrency = env.get(CONCURRENCY_VAR, "").strip()
    try:
        concurrency = int(raw_concurrency) if raw_concurrency else DEFAULT_CONCURRENCY
        if not 1 <= concurrency <= MAX_CONCURRENCY:
            raise ValueError
    except ValueError:
        return SettingsLookup(
            None,
            f"{CONCURRENCY_VAR}={raw_concurrency!r} must be a whole number from 1 to "
            f"{MAX_CONCURRENCY} (default {DEFAULT_CONCURRENCY})",
        )
    return SettingsLookup(LlmSettings(base_url, model, api_key, timeout_s, concurrency))


def _first(env: Mapping[str, str], names: Sequence[str]) -> str:
    for name in names:
        value = env.get(name, "").strip()
        if value:
            return value
    return ""


@dataclass(frozen=True)
class Usage:
    """Token counts as the endpoint reported them; None where it reported nothing."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    @property
    def total_tokens(self) -> int | None:
        if self.prompt_tokens is None and self.completion_tokens is None:
            return None
        return (self.prompt_tokens or 0) + (self.completion_tokens or 0)

    @classmethod
    def from_payload(cls, payload: object) -> Usage:
        usage = payload.get("usage") if isinstance(payload, dict) else None
        if not isinstance(usage, dict):
            return cls()
        return cls(_int_or_none(usage.get("prompt_tokens")), _int_or_none(usage.get("completion_tokens")))


def _int_or_none(value) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class ChatResult:
    ok: bool
    text: str = ""
    error: str = ""
    model: str = ""
    elapsed_ms: float = 0.0
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)


@dataclass(frozen=True)
class EmbeddingResult:
    ok: bool
    vectors: np.ndarray | None = None
    error: str = ""
    model: str = ""
    elapsed_ms: float = 0.0
    usage: Usage = field(default_factory=Usage)


class Endpoint:
    """HTTP calls to one OpenAI-compatible endpoint. Stateless and safe to share between threads."""

    def __init__(self, settings: LlmSettings):
        self.settings = settings

    def chat(
        self,
        messages: Sequence[Mapping[str, object]],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        timeout_s: float | None = None,
        model: str | None = None,
    ) -> ChatResult:
        """One chat completion; failures come back as ``ok=False`` with a clear ``error``."""
        model = model or self.settings.model
        body: dict = {"model": model, "messages": [dict(m) for m in messages], "temperature": temperature}
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        started = time.perf_counter()
        payload, raw, error = self._post(self.settings.endpoint, body, timeout_s, "chat completion")
        if error:
            return ChatResult(False, error=error, model=model, elapsed_ms=_ms(started))
        try:
            choice = payload["choices"][0]
            text = choice["message"]["content"]
            if not isinstance(text, str):
                raise TypeError("message.content is not a string")
        except (KeyError, IndexError, TypeError) as problem:
            return ChatResult(
                False,
                error=self.redact(self._not_openai(raw, problem, "chat completion")),
                model=model,
                elapsed_ms=_ms(started),
            )
        return ChatResult(
            True,
            text=text,
            model=str(payload.get("model") or model),
            elapsed_ms=_ms(started),
            finish_reason=choice.get("finish_reason"),
            usage=Usage.from_payload(payload),
        )

    def embed(self, texts: Sequence[str], model: str, *, timeout_s: float | None = None) -> EmbeddingResult:
        """Embeddings of ``texts`` (row-aligned, as float32, not normalised) from ``/embeddings``."""
        started = time.perf_counter()
        payload, raw, error = self._post(
            self.settings.embeddings_endpoint, {"model": model, "input": list(texts)}, timeout_s, "embeddings response"
        )
        if error:
            return EmbeddingResult(False, error=error, model=model, elapsed_ms=_ms(started))
        try:
            rows = sorted(payload["data"], key=lambda row: int(row.get("index", 0)))
            vectors = np.asarray([row["embedding"] for row in rows], dtype=np.float32)
            if vectors.ndim != 2 or vectors.shape[0] != len(texts) or not np.isfinite(vectors).all():
                raise ValueError(f"expected {len(texts)} finite vectors, got an array of shape {vectors.shape}")
        except (KeyError, IndexError, TypeError, ValueError) as problem:
            return EmbeddingResult(
                False,
                error=self.redact(self._not_openai(raw, problem, "embeddings response")),
                model=model,
                elapsed_ms=_ms(started),
            )
        return EmbeddingResult(
            True, vectors=vectors, model=model, elapsed_ms=_ms(started), usage=Usage.from_payload(payload)
        )

    # -- HTTP -----------------------------------------------------------------------------------

    def _post(self, url: str, body: dict, timeout_s: float | None, what: str) -> tuple[dict, bytes, str]:
        """(payload, raw bytes, error): exactly one of payload and error is meaningful."""
        payload, raw, error = self._post_unredacted(url, body, timeout_s, what)
        return payload, raw, self.redact(error)

    def redact(self, text: str) -> str:
        """``text`` without the API key's value: a server may echo the key in an error body, and
        error messages reach pages, traces and exports."""
        key = self.settings.api_key
        return text.replace(key, "<API key>") if key and text else text

    def _post_unredacted(self, url: str, body: dict, timeout_s: float | None, what: str) -> tuple[dict, bytes, str]:
        timeout = min(timeout_s, self.settings.timeout_s) if timeout_s else self.settings.timeout_s
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.settings.api_key:
            headers["Authorization"] = f"Bearer {self.settings.api_key}"
        request = urllib.request.Request(url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST")
        too_slow = (
            f"no answer from {url} within {timeout:g} s; raise {TIMEOUT_VAR} (or the stage's timeout_s) "
            "or use a faster model"
        )
        try:
            with _opener_for(url).open(request, timeout=timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as error:
            return {}, b"", self._http_error_message(url, error)
        except TimeoutError:
            return {}, b"", too_slow
        except urllib.error.URLError as error:
            if isinstance(error.reason, (TimeoutError, socket.timeout)):
                return {}, b"", too_slow
            return (
                {},
                b"",
                (f"cannot reach {url} ({error.reason}); check {BASE_URL_VARS[0]} and that the server is running"),
            )
        except OSError as error:
            return {}, b"", f"connection to {url} failed ({error}); check {BASE_URL_VARS[0]}"
        try:
            payload = json.loads(raw.decode("utf-8"))
            if not isinstance(payload, dict):
                raise TypeError(f"a JSON {type(payload).__name__}, not an object")
        except (ValueError, TypeError) as problem:
            return {}, raw, self._not_openai(raw, problem, what)
        return payload, raw, ""

    def _not_openai(self, raw: bytes, problem: Exception, what: str) -> str:
        preview = raw[:200].decode("utf-8", "replace")
        return (
            f"{self.settings.root} did not answer with an OpenAI-style {what} "
            f"({type(problem).__name__}: {problem}); got {preview!r}. Check that {BASE_URL_VARS[0]} "
            "points at the API root (usually ending in /v1)"
        )

    def _http_error_message(self, url: str, error: urllib.error.HTTPError) -> str:
        detail = ""
        try:
            payload = json.loads(error.read().decode("utf-8"))
            inner = payload.get("error") if isinstance(payload, dict) else None
            detail = inner.get("message", "") if isinstance(inner, dict) else str(inner or "")
        except Exception:  # the body is only a hint; the status code alone still says what went wrong
            detail = ""
        hint = {
            401: f"check {API_KEY_VARS[0]}",
            403: f"check {API_KEY_VARS[0]} and the key's permissions",
            404: f"check {BASE_URL_VARS[0]} (usually ends in /v1) and the model name",
            429: "the endpoint is rate limiting; wait and try again",
        }.get(error.code, "see the endpoint's logs" if error.code >= 500 else f"check {MODEL_VAR} and the request")
        said = f": {detail[:300]}" if detail else ""
        return f"{url} answered HTTP {error.code}{said}; {hint}"


def chat(
    messages: Sequence[Mapping[str, object]],
    settings: LlmSettings,
    temperature: float = 0.0,
    max_tokens: int | None = None,
    model: str | None = None,
) -> ChatResult:
    """One uncached chat completion (``Endpoint.chat``); stages go through ``workbench.llm.client``."""
    return Endpoint(settings).chat(messages, temperature=temperature, max_tokens=max_tokens, model=model)


def chat_from_env(messages: Sequence[Mapping[str, object]], env: Mapping[str, str] | None = None) -> ChatResult:
    lookup = settings_from_env(env)
    if lookup.settings is None:
        return ChatResult(False, error=lookup.problem)
    return chat(messages, lookup.settings)


def image_part(image: bytes, mime: str) -> dict:
    """An OpenAI content part carrying ``image`` inline as a data URL (for vision models)."""
    encoded = base64.b64encode(image).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{encoded}"}}


def _opener_for(url: str) -> urllib.request.OpenerDirector:
    # A local server must not be sent through an HTTP(S)_PROXY the environment sets for the internet.
    if urllib.parse.urlsplit(url).hostname in _LOOPBACK_HOSTS:
        return urllib.request.build_opener(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener()


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000.0, 1)
