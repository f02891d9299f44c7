"""How many LLM calls a query may make under a configuration, before the reply cache.

What a practitioner wants to know before pressing "run" on an endpoint that bills per call or
takes a second per reply: query enhancement asks once per query (``rewrite``, ``multi``,
``hyde``, ``decompose``), LLM rerank once per candidate it rescores (``rerank.top_m``). These are
upper bounds: a query with fewer candidates asks less, and cached replies cost nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from workbench.config import WorkbenchConfig
from workbench.embedding.endpoint import is_endpoint_model
from workbench.retrieval.enhance import LLM_METHODS


@dataclass(frozen=True)
class LlmCallBound:
    """At most ``calls`` endpoint calls, split by what asks them (``{"rerank.method=llm": 30}``)."""

    calls: int
    by_stage: tuple[tuple[str, int], ...] = ()

    def describe(self) -> str:
        if not self.calls:
            return "no LLM calls"
        stages = ", ".join(f"{stage}: {calls:,}" for stage, calls in self.by_stage)
        return f"at most {self.calls:,} LLM calls ({stages})"


def llm_calls_per_query(config: WorkbenchConfig) -> LlmCallBound:
    stages = []
    if config.query.enhance in LLM_METHODS:
        stages.append((f"query.enhance={config.query.enhance}", 1))
    if config.rerank.method == "llm":
        stages.append(("rerank.method=llm", config.rerank.top_m))
    return LlmCallBound(sum(calls for _, calls in stages), tuple(stages))


def llm_calls_for_run(configs: Sequence[WorkbenchConfig], queries: int) -> LlmCallBound:
    """The bound for evaluating ``queries`` golden queries under each of ``configs`` (a sweep's points)."""
    totals: dict[str, int] = {}
    for config in configs:
        for stage, calls in llm_calls_per_query(config).by_stage:
            totals[stage] = totals.get(stage, 0) + calls * queries
    in_pipeline_order = sorted(totals.items(), key=lambda item: item[0].startswith("rerank."))
    return LlmCallBound(sum(totals.values()), tuple(in_pipeline_order))


#: the keys whose value can make the workbench call the LLM endpoint, in pipeline order
ENDPOINT_KEYS = ("query.enhance", "rerank.method", "chunking.enrich", "embedding.model")


def setting_uses_endpoint(key: str, value: object) -> bool:
    """Whether ``key=value`` makes the workbench call the LLM endpoint (at query or at index time)."""
    if key == "query.enhance":
        return value in LLM_METHODS
    if key == "rerank.method":
        return value == "llm"
    if key == "chunking.enrich":
        return value != "none"
    if key == "embedding.model":
        return is_endpoint_model(str(value))
    return False


def endpoint_uses(config: WorkbenchConfig) -> list[str]:
    """The settings of ``config`` that need the LLM endpoint, at query or at index time ([] when none
    does): what a server started with this configuration must be told about the endpoint for."""
    return [f"{key}={config.get(key)}" for key in ENDPOINT_KEYS if setting_uses_endpoint(key, config.get(key))]
