"""Image captions from an OpenAI-compatible vision model, in the document's language.

The prompt is versioned (``CAPTION_PROMPT_VERSION``) so a stored caption can say which prompt
made it. ``WORKBENCH_LLM_VISION_MODEL`` picks a different model for images than for text (many
endpoints serve a text model and a separate vision model); without it ``WORKBENCH_LLM_MODEL`` is
used.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from workbench.llm.endpoint import ChatResult, LlmSettings, chat, image_part, settings_from_env

VISION_MODEL_VAR = "WORKBENCH_LLM_VISION_MODEL"
CAPTION_PROMPT_VERSION = "caption-v1"
#: language code -> how the prompt names it
LANGUAGE_NAMES = {"en": "English", "zh": "Simplified Chinese"}
CAPTION_SYSTEM_PROMPT = (
    "You write captions that make images findable by search. Describe what the image shows in one to "
    "three plain sentences: the subject, any visible text, and what a chart or diagram says. "
    "No preamble, no Markdown."
)


@dataclass(frozen=True)
class VisionSettings:
    endpoint: LlmSettings
    model: str


def vision_settings_from_env(env: Mapping[str, str] | None = None) -> tuple[VisionSettings | None, str]:
    """The endpoint and the model to caption with, or None and why not."""
    env = os.environ if env is None else env
    lookup = settings_from_env(env)
    if lookup.settings is None:
        return None, lookup.problem
    model = env.get(VISION_MODEL_VAR, "").strip() or lookup.settings.model
    return VisionSettings(lookup.settings, model), ""


def caption_messages(image: bytes, mime: str, language: str) -> list[dict]:
    name = LANGUAGE_NAMES.get(language, LANGUAGE_NAMES["en"])
    return [
        {"role": "system", "content": CAPTION_SYSTEM_PROMPT},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": f"Caption this image in {name}."},
                image_part(image, mime),
            ],
        },
    ]


def caption_image(image: bytes, mime: str, language: str, settings: VisionSettings) -> ChatResult:
    """A caption for ``image`` in ``language`` ("en" or "zh"); failures come back as ``ok=False``."""
    result = chat(
        caption_messages(image, mime, language),
        settings.endpoint,
        temperature=0.0,
        max_tokens=200,
        model=settings.model,
    )
    if result.ok and not result.text.strip():
        return ChatResult(
            False,
            error=f"{settings.endpoint.endpoint} returned an empty caption",
            model=result.model,
            elapsed_ms=result.elapsed_ms,
        )
    return result
