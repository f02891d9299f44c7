"""The cached LLM client against the fake endpoint (a real HTTP server on 127.0.0.1)."""

from __future__ import annotations

import pytest

from store.catalog import Catalog
from store.llm_cache import cache_size
from workbench.llm.client import LlmCall, LlmClient, LlmRequest, LlmUnavailable, summarize_calls
from workbench.llm.endpoint import Endpoint, LlmSettings
from workbench.llm.replies import parse_score_0_10
from workbench.retrieval.llm_rerank import rerank_request


def _client(fake_llm, catalog=None, timeout_s=10.0, **settings) -> LlmClient:
    return LlmClient(Endpoint(LlmSettings(fake_llm.base_url, "fake-llm", timeout_s=timeout_s, **settings)), catalog)


def test_a_call_records_reply_tokens_and_latency(fake_llm):
    call = _client(fake_llm).complete(rerank_request("reciprocal rank fusion", "rank fusion of lists"), timeout_s=5)
    assert call.ok and not call.cached
    # two of the query's three content words are in the passage: round(10 * 2/3) = 7
    assert call.text == "7"
    assert call.prompt_tokens > 20 and call.completion_tokens == 1
    assert call.elapsed_ms > 0 and call.generated_ms == call.elapsed_ms
    assert call.purpose == "rerank" and call.prompt_version == "rerank.pointwise@2"
    assert fake_llm.count("/chat/completions") == 1


def test_the_second_identical_call_is_served_from_the_catalog_by_a_new_client(fake_llm, tmp_path):
    catalog = Catalog(tmp_path / "catalog.duckdb")
    request = rerank_request("what is hybrid search", "hybrid search fuses dense and sparse results")
    first = _client(fake_llm, catalog).complete(request, timeout_s=5, parse=parse_score_0_10)
    again = _client(fake_llm, catalog).complete(request, timeout_s=5, parse=parse_score_0_10)  # a new process, say
    assert fake_llm.count() == 1
    assert again.cached and again.text == first.text
    assert (again.prompt_tokens, again.completion_tokens) == (first.prompt_tokens, first.completion_tokens)
    assert again.generated_ms == first.elapsed_ms
    assert cache_size(catalog) == {"rerank.pointwise@2": 1}


def test_the_key_is_model_prompt_version_and_inputs(fake_llm, tmp_path):
    catalog = Catalog(tmp_path / "catalog.duckdb")
    client = _client(fake_llm, catalog)
    base = rerank_request("q words here", "passage words")
    client.complete(base, timeout_s=5)
    client.complete(LlmRequest(base.purpose, "rerank.pointwise@99", base.messages, base.max_tokens), timeout_s=5)
    client.complete(rerank_request("other words here", "passage words"), timeout_s=5)
    other_model = LlmClient(Endpoint(LlmSettings(fake_llm.base_url, "another-model")), catalog)
    other_model.complete(base, timeout_s=5)
    assert fake_llm.count() == 4
    client.complete(base, timeout_s=5)
    assert fake_llm.count() == 4


def test_many_calls_keep_their_order_and_only_misses_reach_the_endpoint(fake_llm, tmp_path):
    client = _client(fake_llm, Catalog(tmp_path / "c.duckdb"), concurrency=3)
    passages = [f"alpha beta {'gamma ' * i}" for i in range(6)]
    requests = [rerank_request("alpha gamma", p, label=str(i)) for i, p in enumerate(passages)]
    client.complete_many(requests[:2], timeout_s=5)
    calls = client.complete_many(requests, timeout_s=5)
    assert [c.label for c in calls] == [str(i) for i in range(6)]
    assert [c.cached for c in calls] == [True, True, False, False, False, False]
    assert [c.text for c in calls] == ["5", "10", "10", "10", "10", "10"]
    assert fake_llm.count() == 6
    totals = summarize_calls(calls)
    assert totals["calls"] == 6 and totals["endpoint_calls"] == 4 and totals["cached"] == 2


@pytest.mark.parametrize("behaviour", ["garbage", "malformed", "error"])
def test_unusable_replies_fail_the_call_and_are_not_cached(fake_llm, tmp_path, behaviour):
    catalog = Catalog(tmp_path / "c.duckdb")
    fake_llm.behaviour = behaviour
    call = _client(fake_llm, catalog).complete(rerank_request("q", "p"), timeout_s=5, parse=parse_score_0_10)
    assert not call.ok and call.error
    assert cache_size(catalog) == {}
    fake_llm.behaviour = "ok"
    retried = _client(fake_llm, catalog).complete(rerank_request("q", "p"), timeout_s=5, parse=parse_score_0_10)
    assert retried.ok and not retried.cached


def test_a_slow_endpoint_times_out_with_the_setting_to_raise(fake_llm, tmp_path):
    fake_llm.delay_s = 2.0
    call = _client(fake_llm, Catalog(tmp_path / "c.duckdb")).complete(rerank_request("q", "p"), timeout_s=0.3)
    assert not call.ok
    assert "within 0.3 s" in call.error and "WORKBENCH_LLM_TIMEOUT" in call.error
    assert call.elapsed_ms >= 300


def test_without_an_endpoint_the_client_says_how_to_configure_one(no_llm):
    client = LlmClient.from_env()
    assert not client.available
    assert "WORKBENCH_LLM_BASE_URL" in client.problem
    with pytest.raises(LlmUnavailable, match="not configured"):
        client.complete(rerank_request("q", "p"), timeout_s=1)
    with pytest.raises(LlmUnavailable, match="not configured"):
        _ = client.cache_model


def test_calls_round_trip_through_json_and_describe_themselves():
    call = LlmCall(
        "rerank",
        "rerank.pointwise@2",
        "m",
        True,
        "7",
        prompt_tokens=40,
        completion_tokens=1,
        elapsed_ms=0.4,
        generated_ms=812.0,
        cached=True,
        label="chunk 12",
    )
    assert LlmCall.from_dict(call.to_dict()) == call
    assert call.describe() == "rerank (chunk 12): 40+1 tokens, cached (generated in 812 ms)"


def test_requests_with_image_parts_are_sent_and_cached_like_text(fake_llm, tmp_path):
    from workbench.llm.endpoint import image_part

    parts = ({"type": "text", "text": "Caption this image in English."}, image_part(b"\x89PNG fake", "image/png"))
    request = LlmRequest("caption", "caption@1", (("system", "You write captions."), ("user", parts)))
    client = _client(fake_llm, Catalog(tmp_path / "c.duckdb"))
    first = client.complete(request, timeout_s=5)
    again = _client(fake_llm, Catalog(tmp_path / "c.duckdb")).complete(request, timeout_s=5)
    assert first.ok and again.cached and fake_llm.count() == 1
    sent = fake_llm.calls[0]["body"]["messages"][1]["content"]
    assert sent[1]["image_url"]["url"].startswith("data:image/png;base64,")
