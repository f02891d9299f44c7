"""What the LLM stages call: the endpoint behind a cache, with every call recorded.

A call is keyed by (model, prompt version, inputs hash): the model names the endpoint too
(``llama3@localhost:11434/v1``), the prompt version is the stage's own (``rerank.pointwise@1``,
bumped whenever its prompt or the way its reply is read changes), and the inputs hash covers the
messages and sampling parameters. Replies live in the home's catalog (``store.llm_cache``) with
an in-process layer in front, so sweeps, re-runs and other processes on the same home never pay
twice.

A reply is stored only when the stage could use it (its ``parse`` accepted it): a timeout, an
HTTP error or garbage is never cached, so the next run asks again. Every call, cached or not,
comes back as an ``LlmCall`` carrying the reply, the tokens and the milliseconds, which stages
put into their trace.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from store.llm_cache import CachedReply, CacheKey, lookup_replies, store_replies
from workbench.llm.endpoint import Endpoint, LlmSettings, SettingsLookup, settings_from_env
from workbench.llm.replies import ReplyRejected
from workbench.threads import on_threads

log = logging.getLogger(__name__)

#: replies kept in memory per client in front of the catalog
MEMORY_ENTRIES = 50_000
Parse = Callable[[str], Any]


@dataclass(frozen=True)
class LlmRequest:
    """One chat completion a stage wants: what it is for, its prompt version and its messages."""

    purpose: str  # "query.multi", "rerank", "enrich", "answer", "judge.faithfulness", ...
    prompt_version: str  # "rerank.pointwise@1"
    #: (role, content): content is text, or OpenAI content parts (text and image_url) for vision models
    messages: tuple[tuple[str, str | tuple[dict, ...]], ...]
    max_tokens: int | None = None
    label: str = ""  # what the call is about, for the trace (a chunk id, a claim number)

    @classmethod
    def of(
        cls,
        purpose: str,
        prompt_version: str,
        system: str,
        user: str,
        *,
        max_tokens: int | None = None,
        label: str = "",
    ) -> LlmRequest:
        return cls(purpose, prompt_version, (("system", system), ("user", user)), max_tokens, label)

    def message_dicts(self) -> list[dict]:
        return [
            {"role": role, "content": content if isinstance(content, str) else list(content)}
            for role, content in self.messages
        ]

    def inputs_hash(self) -> str:
        payload = {"messages": self.messages, "max_tokens": self.max_tokens, "temperature": 0.0}
        return hashlib.sha256(json.dumps(payload, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class LlmCall:
    """One call as a trace shows it: the reply, the tokens, the time, and whether it was cached."""

    purpose: str
    prompt_version: str
    model: str
    ok: bool
    text: str = ""  # the reply
    error: str = ""  # why there is no usable reply
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    elapsed_ms: float = 0.0  # what this call cost now (a cache lookup when cached)
    generated_ms: float = 0.0  # what the endpoint took when it produced the reply
    cached: bool = False
    label: str = ""

    @property
    def total_tokens(self) -> int | None:
        if self.prompt_tokens is None and self.completion_tokens is None:
            return None
        return (self.prompt_tokens or 0) + (self.completion_tokens or 0)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> LlmCall:
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        return cls(**known)

    def describe(self) -> str:
        """One line: ``rerank (chunk 12): 128+3 tokens, 412 ms (cached)``."""
        about = f" ({self.label})" if self.label else ""
        tokens = (
            f"{self.prompt_tokens or 0}+{self.completion_tokens or 0} tokens"
            if self.total_tokens is not None
            else "tokens not reported"
        )
        if not self.ok:
            return f"{self.purpose}{about}: failed after {self.elapsed_ms:.0f} ms: {self.error}"
        timing = f"cached (generated in {self.generated_ms:.0f} ms)" if self.cached else f"{self.elapsed_ms:.0f} ms"
        return f"{self.purpose}{about}: {tokens}, {timing}"


def summarize_calls(calls: Sequence[LlmCall]) -> dict:
    """Totals for a stage: calls, endpoint calls, cache hits, failures, tokens, milliseconds."""
    return {
        "calls": len(calls),
        "endpoint_calls": sum(1 for c in calls if not c.cached),
        "cached": sum(1 for c in calls if c.cached),
        "failed": sum(1 for c in calls if not c.ok),
        "prompt_tokens": sum(c.prompt_tokens or 0 for c in calls),
        "completion_tokens": sum(c.completion_tokens or 0 for c in calls),
        "elapsed_ms": round(sum(c.elapsed_ms for c in calls), 1),
    }


class LlmUnavailable(RuntimeError):
    """A stage asked for an LLM call but no endpoint is configured; the message says how to set one."""


class LlmClient:
    """The endpoint behind the reply cache. ``available`` is False (with ``problem``) without an endpoint."""

    def __init__(self, endpoint: Endpoint | None, catalog=None, problem: str = ""):
        self.endpoint = endpoint
        self.catalog = catalog
        self.problem = problem if endpoint is None else ""
        self._memory: dict[CacheKey, CachedReply] = {}
        self._memory_lock = threading.Lock()
        self.endpoint_calls = 0  # requests sent to the endpoint by this client (cache misses)
        self.cached_calls = 0  # calls this client answered from the cache

    @classmethod
    def from_settings(cls, lookup: SettingsLookup, catalog=None) -> LlmClient:
        return cls(Endpoint(lookup.settings) if lookup.settings else None, catalog, lookup.problem)

    @classmethod
    def from_env(cls, catalog=None, env=None) -> LlmClient:
        return cls.from_settings(settings_from_env(env), catalog)

    @property
    def available(self) -> bool:
        return self.endpoint is not None

    @property
    def settings(self) -> LlmSettings | None:
        return self.endpoint.settings if self.endpoint else None

    @property
    def model(self) -> str:
        return self.endpoint.settings.model if self.endpoint else ""

    @property
    def cache_model(self) -> str:
        """The model part of cache keys: the model name and the endpoint serving it."""
        settings = self._require_endpoint().settings
        return f"{settings.model}@{settings.host}"

    def unavailable_reason(self, what: str) -> str:
        return f"{what} needs an LLM endpoint, which is {self.problem}"

    def _require_endpoint(self) -> Endpoint:
        if self.endpoint is None:
            raise LlmUnavailable(f"an LLM endpoint is {self.problem}")
        return self.endpoint

    # -- calls ----------------------------------------------------------------------------------

    def complete(self, request: LlmRequest, *, timeout_s: float, parse: Parse | None = None) -> LlmCall:
        return self.complete_many([request], timeout_s=timeout_s, parse=parse)[0]

    def complete_many(
        self, requests: Sequence[LlmRequest], *, timeout_s: float, parse: Parse | None = None
    ) -> list[LlmCall]:
        """One ``LlmCall`` per request, in order: cached replies first, the rest from the endpoint
        (up to ``WORKBENCH_LLM_CONCURRENCY`` at once), each waiting at most ``timeout_s``."""
        endpoint = self._require_endpoint()
        started = time.perf_counter()
        keys = [(self.cache_model, r.prompt_version, r.inputs_hash()) for r in requests]
        known = self._lookup(keys)
        lookup_ms = _ms(started) / max(1, len(requests))
        calls: list[LlmCall | None] = [None] * len(requests)
        pending: list[int] = []
        for position, (request, key) in enumerate(zip(requests, keys, strict=False)):
            reply = known.get(key)
            if reply is None:
                pending.append(position)
                continue
            with self._memory_lock:
                self.cached_calls += 1
            calls[position] = LlmCall(
                request.purpose,
                request.prompt_version,
                self.model,
                True,
                reply.reply,
                prompt_tokens=reply.prompt_tokens,
                completion_tokens=reply.completion_tokens,
                elapsed_ms=round(lookup_ms, 2),
                generated_ms=reply.elapsed_ms,
                cached=True,
                label=request.label,
            )

        def ask(position: int) -> LlmCall:
            return self._ask(requests[position], timeout_s, parse)

        fresh = on_threads([ask] * max(1, endpoint.settings.concurrency), pending, "llm-call")
        to_store: dict[CacheKey, CachedReply] = {}
        for position, call in zip(pending, fresh, strict=False):
            calls[position] = call
            if call.ok:
                to_store[keys[position]] = CachedReply(
                    call.text, call.prompt_tokens, call.completion_tokens, call.elapsed_ms
                )
        self._store(to_store)
        return [call for call in calls if call is not None]

    def _ask(self, request: LlmRequest, timeout_s: float, parse: Parse | None) -> LlmCall:
        with self._memory_lock:
            self.endpoint_calls += 1
        result = self._require_endpoint().chat(
            request.message_dicts(), max_tokens=request.max_tokens, timeout_s=timeout_s
        )
        base = LlmCall(
            purpose=request.purpose,
            prompt_version=request.prompt_version,
            model=self.model,
            ok=False,
            prompt_tokens=result.usage.prompt_tokens,
            completion_tokens=result.usage.completion_tokens,
            elapsed_ms=result.elapsed_ms,
            generated_ms=result.elapsed_ms,
            label=request.label,
        )
        if not result.ok:
            return replace(base, error=result.error)
        if parse is not None:
            try:
                parse(result.text)
            except ReplyRejected as problem:  # its message already shows the reply
                return replace(base, text=result.text, error=f"reply rejected: {problem}")
            except (ValueError, TypeError, KeyError) as problem:
                preview = result.text[:160]
                return replace(
                    base, text=result.text, error=f"unusable reply from {self.model} ({problem}); got {preview!r}"
                )
        return replace(base, ok=True, text=result.text)

    # -- cache ----------------------------------------------------------------------------------

    def _lookup(self, keys: list[CacheKey]) -> dict[CacheKey, CachedReply]:
        with self._memory_lock:
            found = {key: self._memory[key] for key in keys if key in self._memory}
        missing = [key for key in keys if key not in found]
        if missing and self.catalog is not None:
            try:
                stored = lookup_replies(self.catalog, missing)
            except Exception as error:  # a busy or broken catalog costs a call, never the query
                log.warning("LLM cache lookup failed (%s); asking the endpoint", error)
                stored = {}
            found.update(stored)
            self._remember(stored)
        return found

    def _store(self, entries: dict[CacheKey, CachedReply]) -> None:
        if not entries:
            return
        self._remember(entries)
        if self.catalog is not None:
            try:
                store_replies(self.catalog, entries)
            except Exception as error:
                log.warning("LLM cache write failed (%s); the replies stay cached in this process only", error)

    def _remember(self, entries: dict[CacheKey, CachedReply]) -> None:
        with self._memory_lock:
            if len(self._memory) + len(entries) > MEMORY_ENTRIES:
                self._memory.clear()
            self._memory.update(entries)


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000.0
