"""Answer generation: the cited-answer prompt as a request for the cached LLM client.

``answer_request`` turns a question and its assembled ``[S1]…`` context into an ``LlmRequest``;
the lab and ``eval --answers`` send it through ``workbench.llm.client``, so the same context
and question never pay twice. The endpoint, its settings (``WORKBENCH_LLM_*`` or ``OPENAI_*``)
and its error messages live in ``workbench.llm.endpoint``.
"""

from __future__ import annotations

from workbench.generation.context import AssembledContext, build_prompt
from workbench.llm.client import LlmRequest

ANSWER_PROMPT_VERSION = "answer.cited@2"


def answer_request(question: str, context: AssembledContext) -> LlmRequest:
    """The cited-answer prompt over ``context`` as a cacheable request (the lab and eval --answers)."""
    prompt = build_prompt(question, context)
    return LlmRequest.of("answer", ANSWER_PROMPT_VERSION, prompt.system, prompt.user, max_tokens=600)
