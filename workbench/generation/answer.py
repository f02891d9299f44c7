"""Answer generation through any OpenAI-compatible chat-completions endpoint.

The endpoint client (settings from ``WORKBENCH_LLM_*`` / ``OPENAI_*``, error messages that name
the fix) lives in ``workbench.llm.endpoint`` and is shared with the other LLM features (image
captions at ingestion); this module is the answer step's view of it. ``generate`` never raises
for endpoint trouble: a failure comes back as ``ok=False`` with an ``error`` to show.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from workbench.llm.endpoint import (
    API_KEY_VARS,
    BASE_URL_VARS,
    DEFAULT_TIMEOUT_S,
    HOW_TO_CONFIGURE,
    MODEL_VAR,
    OPENAI_BASE_URL,
    TIMEOUT_VAR,
    ChatResult,
    LlmSettings,
    SettingsLookup,
    chat,
    chat_from_env,
    settings_from_env,
)

GenerationResult = ChatResult

__all__ = [
    "API_KEY_VARS", "BASE_URL_VARS", "DEFAULT_TIMEOUT_S", "HOW_TO_CONFIGURE", "MODEL_VAR", "OPENAI_BASE_URL",
    "TIMEOUT_VAR", "GenerationResult", "LlmSettings", "SettingsLookup", "generate", "generate_from_env",
    "settings_from_env",
]


def generate(messages: Sequence[Mapping[str, str]], settings: LlmSettings, temperature: float = 0.0,
             max_tokens: int | None = None) -> GenerationResult:
    """One chat completion for the answer step."""
    return chat(messages, settings, temperature=temperature, max_tokens=max_tokens)


def generate_from_env(messages: Sequence[Mapping[str, str]], env: Mapping[str, str] | None = None) -> GenerationResult:
    return chat_from_env(messages, env)
