"""Answer generation: one chat completion through the OpenAI-compatible endpoint.

The endpoint, its settings (``WORKBENCH_LLM_*`` or ``OPENAI_*``) and its error messages live in
``workbench.llm.endpoint``; ``answer_request`` is the cited-answer prompt as a request for the
cached client (``workbench.llm.client``), which the lab and ``eval --answers`` use; ``generate``
is one uncached call. ``generate`` never raises for endpoint trouble: a failure comes back as a result
whose ``error`` names the problem and the fix, because a front end must show it, not crash.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from workbench.generation.context import AssembledContext, build_prompt
from workbench.llm.client import LlmRequest
from workbench.llm.endpoint import (  # noqa: F401 (re-exported: the lab and tests read settings here)
    OPENAI_BASE_URL,
    Endpoint,
    LlmSettings,
    SettingsLookup,
    settings_from_env,
)


ANSWER_PROMPT_VERSION = "answer.cited@1"


def answer_request(question: str, context: AssembledContext) -> LlmRequest:
    """The cited-answer prompt over ``context`` as a cacheable request (the lab and eval --answers)."""
    prompt = build_prompt(question, context)
    return LlmRequest.of("answer", ANSWER_PROMPT_VERSION, prompt.system, prompt.user, max_tokens=600)


@dataclass(frozen=True)
class GenerationResult:
    ok: bool
    text: str = ""
    error: str = ""
    model: str = ""
    elapsed_ms: float = 0.0
    finish_reason: str | None = None
    usage: dict = field(default_factory=dict)


def generate(
    messages: Sequence[Mapping[str, str]],
    settings: LlmSettings,
    temperature: float = 0.0,
    max_tokens: int | None = None,
) -> GenerationResult:
    """One chat completion; failures are returned as ``ok=False`` results with a clear ``error``."""
    result = Endpoint(settings).chat(messages, temperature=temperature, max_tokens=max_tokens)
    usage = {}
    if result.usage.total_tokens is not None:
        usage = {"prompt_tokens": result.usage.prompt_tokens, "completion_tokens": result.usage.completion_tokens,
                 "total_tokens": result.usage.total_tokens}
    return GenerationResult(result.ok, text=result.text, error=result.error, model=result.model,
                            elapsed_ms=result.elapsed_ms, finish_reason=result.finish_reason, usage=usage)


def generate_from_env(messages: Sequence[Mapping[str, str]], env: Mapping[str, str] | None = None) -> GenerationResult:
    lookup = settings_from_env(env)
    if lookup.settings is None:
        return GenerationResult(False, error=lookup.problem)
    return generate(messages, lookup.settings)
