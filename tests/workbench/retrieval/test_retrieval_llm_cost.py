"""The bound on LLM calls a query, an evaluation or a sweep may make, by hand-counted examples."""

from __future__ import annotations

from workbench.config import WorkbenchConfig
from workbench.retrieval.llm_cost import llm_calls_for_run, llm_calls_per_query


def config(*overrides: str) -> WorkbenchConfig:
    return WorkbenchConfig().with_overrides(list(overrides))


def test_the_defaults_and_the_offline_keywords_make_no_calls():
    assert llm_calls_per_query(config()).calls == 0
    assert llm_calls_per_query(config("query.enhance=keywords")).calls == 0
    assert llm_calls_per_query(config()).describe() == "no LLM calls"


def test_enhancement_asks_once_and_llm_rerank_once_per_candidate():
    bound = llm_calls_per_query(
        config("query.enhance=multi", "query.variants=5", "rerank.method=llm", "rerank.top_m=20")
    )
    assert bound.calls == 21  # one generation of all five phrasings, twenty scores
    assert bound.by_stage == (("query.enhance=multi", 1), ("rerank.method=llm", 20))
    assert bound.describe() == "at most 21 LLM calls (query.enhance=multi: 1, rerank.method=llm: 20)"


def test_a_sweep_adds_its_points_per_query():
    points = [
        config(f"query.enhance={enhance}", f"rerank.method={method}")
        for enhance in ("none", "multi", "hyde")
        for method in ("cross_encoder", "llm")
    ]
    bound = llm_calls_for_run(points, queries=24)
    # multi and hyde: 2 points each x 24 queries; llm rerank: 3 points x 30 candidates x 24 queries
    assert dict(bound.by_stage) == {"query.enhance=multi": 48, "query.enhance=hyde": 48, "rerank.method=llm": 2160}
    assert bound.calls == 2256


def test_endpoint_uses_name_query_and_index_time_settings():
    from workbench.retrieval.llm_cost import endpoint_uses

    assert endpoint_uses(config()) == []
    assert endpoint_uses(config("query.enhance=keywords")) == []
    assert endpoint_uses(
        config("query.enhance=hyde", "chunking.enrich=tags", "embedding.model=openai:nomic-embed-text")
    ) == ["query.enhance=hyde", "chunking.enrich=tags", "embedding.model=openai:nomic-embed-text"]
