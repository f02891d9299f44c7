"""The pipeline's LLM stages against the fake endpoint: variants through the routes, HyDE, keywords,
LLM rerank, what the trace records, and the visible fallbacks."""

from __future__ import annotations

import json

import pytest

from tests.workbench.corpus import DOCS
from workbench.ingestion.ingest import Source
from workbench.retrieval.trace import Trace

CHINESE = {
    "混合检索.md": "# 混合检索\n\n混合检索把稠密向量检索和稀疏关键词检索的结果融合。倒数排名融合按排名相加。",
    "面包.md": "# 烤面包\n\n面粉、水、盐和酵母做成面团。面团发酵后放进烤箱烘烤。",
    "河流.md": "# 河流\n\n河流把水从源头带到大海。暴雨会让河水漫过河岸，造成洪水。",
}


@pytest.fixture
def kb(bench, fake_embedder, fake_config):
    docs = {**DOCS, **CHINESE}
    bench.ingest("kb", [Source(name=n, data=t.encode()) for n, t in docs.items()], fake_config)
    return bench


def _sources(trace: Trace) -> list[str]:
    return [view.source for view in trace.final_chunks()]


def test_multi_runs_every_phrasing_through_both_routes_and_fuses_them(kb, fake_config, fake_llm):
    fake_llm.script("Query: bake bread", "oven baking of dough\nbread crust in a hot oven", purpose="query.multi")
    config = fake_config.with_overrides(["query.enhance=multi", "query.variants=2"])
    trace = kb.query("bake bread", "kb", config)
    assert trace.stage_names() == [
        "dense (query)",
        "dense (multi 1)",
        "dense (multi 2)",
        "dense",
        "bm25 (query)",
        "bm25 (multi 1)",
        "bm25 (multi 2)",
        "bm25",
        "fusion",
        "final",
    ]
    dense_lists = [trace.stage(f"dense ({o})").ranked for o in ("query", "multi 1", "multi 2")]
    for hit in trace.stage("dense").ranked.hits:  # the route is the RRF of its variant lists
        expected = sum(1 / (60 + r.rank_of(hit.chunk_id)) for r in dense_lists if r.rank_of(hit.chunk_id))
        assert hit.score == pytest.approx(expected, abs=1e-12)
    assert _sources(trace)[0] == "bread.md"
    enhancement = trace.enhancement
    assert [v.text for v in enhancement.variants] == ["bake bread", "oven baking of dough", "bread crust in a hot oven"]
    (call,) = enhancement.calls
    assert call.text == "oven baking of dough\nbread crust in a hot oven"
    assert call.prompt_tokens > 0 and call.completion_tokens == 10 and call.elapsed_ms > 0
    assert enhancement.elapsed_ms >= call.elapsed_ms
    assert "2 generated phrasings searched beside the query; each route's lists fused with RRF" in trace.notes


def test_the_trace_round_trips_with_its_generated_texts_and_calls(kb, fake_config, fake_llm):
    trace = kb.query("solar electricity", "kb", fake_config.with_overrides(["query.enhance=hyde", "rerank.method=llm"]))
    again = Trace.from_dict(json.loads(trace.to_json()))
    assert again.enhancement == trace.enhancement
    assert again.stage("rerank").llm_calls == trace.stage("rerank").llm_calls
    assert [stage for stage, _ in again.llm_calls()] == ["query"] + ["rerank"] * len(trace.stage("rerank").llm_calls)


def test_hyde_searches_the_dense_route_with_the_passage_and_bm25_with_the_query(kb, fake_config, fake_llm):
    fake_llm.script(
        "Question: rising water",
        "A flood happens when heavy rain raises a river above its banks.",
        purpose="query.hyde",
    )
    trace = kb.query("rising water", "kb", fake_config.with_overrides(["query.enhance=hyde"]))
    assert trace.stage_names() == ["dense", "bm25", "fusion", "final"]
    assert trace.stage("dense").notes[0] == "dense searched with the hyde text, not the query as typed"
    (hyde,) = trace.enhancement.for_route("dense")
    assert hyde.text == "A flood happens when heavy rain raises a river above its banks."
    bm25_only = kb.query("rising water", "kb", fake_config.with_overrides(["retrieval.mode=bm25"]))
    assert trace.stage("bm25").ranked.ids == bm25_only.stage("bm25").ranked.ids
    plain_dense = kb.query("rising water", "kb", fake_config.with_overrides(["retrieval.mode=dense"]))
    assert trace.stage("dense").ranked.ids != plain_dense.stage("dense").ranked.ids


def test_rewrite_replaces_the_text_of_both_routes(kb, fake_config, fake_llm):
    fake_llm.script("Query: sicilian", "Sicilian defence chess opening", purpose="query.rewrite")
    trace = kb.query("sicilian", "kb", fake_config.with_overrides(["query.enhance=rewrite"]))
    assert all(
        s.notes[0] == f"{s.stage} searched with the rewrite text, not the query as typed"
        for s in trace.stages
        if s.stage in ("dense", "bm25")
    )
    assert _sources(trace)[0] == "chess.md"


def test_keywords_need_no_endpoint_and_cut_chinese_with_jieba(kb, fake_config, no_llm):
    trace = kb.query(
        "请问暴雨和洪水有什么关系", "kb", fake_config.with_overrides(["query.enhance=keywords", "query.keywords=2"])
    )
    (keywords,) = trace.enhancement.for_route("bm25")
    assert keywords.origin == "keywords" and keywords.text == "暴雨 洪水"
    assert not trace.enhancement.calls
    assert _sources(trace)[0] == "河流.md"


def test_llm_rerank_records_every_call_and_its_score(kb, fake_config, fake_llm):
    config = fake_config.with_overrides(["rerank.method=llm", "rerank.top_m=4"])
    trace = kb.query("dough oven", "kb", config)
    rerank = trace.stage("rerank")
    assert len(rerank.llm_calls) == 4 and all(c.purpose == "rerank" for c in rerank.llm_calls)
    assert [c.label for c in rerank.llm_calls] == [f"chunk {cid}" for cid in trace.stage("fusion").ranked.ids[:4]]
    top = rerank.ranked.hits[0]
    assert rerank.details[top.chunk_id]["rerank_score"] == 10.0  # both words are in the bread chunk
    assert _sources(trace)[0] == "bread.md"
    assert all(c.prompt_tokens and c.elapsed_ms > 0 for c in rerank.llm_calls)


def test_chinese_queries_go_through_every_llm_stage(kb, fake_config, fake_llm):
    config = fake_config.with_overrides(["query.enhance=multi", "rerank.method=llm"])
    trace = kb.query("混合检索", "kb", config)
    assert [v.text for v in trace.enhancement.variants] == [
        "混合检索",
        "混合检索 定义",
        "混合检索 原理",
        "混合检索 例子",
    ]
    assert _sources(trace)[0] == "混合检索.md"
    assert trace.stage("rerank").llm_calls


@pytest.mark.parametrize("behaviour", ["garbage", "malformed", "error", "slow"])
def test_a_bad_endpoint_leaves_the_previous_order_with_visible_notes(kb, fake_config, fake_llm, behaviour):
    plain = kb.query("bake bread", "kb", fake_config)
    fake_llm.behaviour = behaviour
    if behaviour == "slow":
        fake_llm.delay_s = 2.0
    config = fake_config.with_overrides(
        ["query.enhance=multi", "rerank.method=llm", "rerank.timeout_s=0.5", "query.timeout_s=0.5"]
    )
    trace = kb.query("bake bread", "kb", config)
    assert trace.final.ids == plain.final.ids
    assert trace.enhancement.fell_back
    assert any(n.startswith("query enhancement (multi) fell back to the query as typed") for n in trace.notes)
    assert any(
        n.startswith("rerank fell back to the previous order ('fusion'): model 'llm:fake-llm'") for n in trace.notes
    )


def test_without_an_endpoint_the_llm_options_say_why(kb, fake_config, no_llm):
    plain = kb.query("bake bread", "kb", fake_config)
    trace = kb.query("bake bread", "kb", fake_config.with_overrides(["query.enhance=decompose", "rerank.method=llm"]))
    assert trace.final.ids == plain.final.ids
    assert any(
        n.startswith("query.enhance=decompose needs an LLM endpoint, which is not configured") for n in trace.notes
    )
    assert any(n.startswith("rerank.method=llm needs an LLM endpoint, which is not configured") for n in trace.notes)
    assert all("WORKBENCH_LLM_BASE_URL" in n for n in trace.notes if "needs an LLM endpoint" in n)


def test_a_repeated_query_is_served_from_the_cache(kb, fake_config, fake_llm):
    config = fake_config.with_overrides(["query.enhance=multi", "rerank.method=llm"])
    first = kb.query("solar batteries", "kb", config)
    calls = fake_llm.count()
    again = kb.query("solar batteries", "kb", config)
    assert fake_llm.count() == calls and calls == 1 + len(first.stage("rerank").llm_calls)
    assert all(call.cached for _, call in again.llm_calls())
    assert again.final.ids == first.final.ids
