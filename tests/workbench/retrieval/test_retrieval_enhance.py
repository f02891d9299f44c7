"""Query enhancement: each method's variants, the fallbacks, and the offline keywords."""

from __future__ import annotations

import pytest

from store.text_tokenizer import cjk_words
from workbench.config import QueryConfig
from workbench.llm.client import LlmClient
from workbench.retrieval.enhance import enhance_query, salient_terms, surface_words

IDF = {
    "reciprocal": 3.2,
    "rank": 1.1,
    "fusion": 2.5,
    "the": 0.0,
    "what": 0.0,
    "is": 0.0,
    "lists": 0.7,
    "混合": 2.0,
    "检索": 1.5,
    "什么": 0.0,
    "是": 0.0,
}


def idf_of(word: str) -> float:
    return IDF.get(word.lower(), 0.0)


def test_none_searches_with_the_query_as_typed():
    enhanced = enhance_query("what is rank fusion", QueryConfig())
    assert [(v.text, v.origin, v.routes) for v in enhanced.variants] == [
        ("what is rank fusion", "query", ("dense", "bm25"))
    ]
    assert not enhanced.calls and not enhanced.changes_retrieval


def test_rewrite_replaces_the_query_for_both_routes(fake_llm):
    fake_llm.script("hybrd serch", "hybrid search", purpose="query.rewrite")
    enhanced = enhance_query("hybrd serch", QueryConfig(enhance="rewrite"), LlmClient.from_env())
    assert [(v.text, v.origin, v.routes) for v in enhanced.variants] == [
        ("hybrid search", "rewrite", ("dense", "bm25"))
    ]
    assert enhanced.notes == ("rewritten query: hybrid search",)
    (call,) = enhanced.calls
    assert call.ok and call.text == "hybrid search" and call.prompt_tokens and call.elapsed_ms > 0


def test_multi_keeps_the_query_and_adds_cleaned_phrasings(fake_llm):
    fake_llm.script(
        "rank fusion",
        "1. Reciprocal rank fusion\n- combining rankings\n\n2) rank fusion\nRRF formula\nextra",
        purpose="query.multi",
    )
    enhanced = enhance_query("rank fusion", QueryConfig(enhance="multi", variants=3), LlmClient.from_env())
    # numbering stripped, the query's own phrasing dropped, at most `variants` lines read
    assert [(v.text, v.origin) for v in enhanced.variants] == [
        ("rank fusion", "query"),
        ("Reciprocal rank fusion", "multi 1"),
        ("combining rankings", "multi 2"),
    ]
    assert enhanced.notes == ("2 generated phrasings searched beside the query; each route's lists fused with RRF",)
    assert all(v.routes == ("dense", "bm25") for v in enhanced.variants)


def test_decompose_splits_into_sub_questions(fake_llm):
    enhanced = enhance_query(
        "what is BM25 and how does HNSW search", QueryConfig(enhance="decompose"), LlmClient.from_env()
    )
    assert [(v.text, v.origin) for v in enhanced.variants] == [
        ("what is BM25 and how does HNSW search", "query"),
        ("what is BM25", "sub-question 1"),
        ("how does HNSW search", "sub-question 2"),
    ]


def test_hyde_gives_the_dense_route_a_passage_and_bm25_the_query(fake_llm):
    enhanced = enhance_query("why fuse rankings?", QueryConfig(enhance="hyde"), LlmClient.from_env())
    (dense,) = enhanced.for_route("dense")
    (bm25,) = enhanced.for_route("bm25")
    assert bm25.text == "why fuse rankings?" and bm25.origin == "query"
    assert dense.origin == "hyde" and dense.text.startswith("why fuse rankings. This passage explains")


def test_chinese_queries_get_chinese_variants(fake_llm):
    fake_llm.script("混合检索", "混合检索的原理\n稀疏与稠密检索融合", purpose="query.multi")
    enhanced = enhance_query("什么是混合检索", QueryConfig(enhance="multi", variants=2), LlmClient.from_env())
    assert [v.text for v in enhanced.variants] == ["什么是混合检索", "混合检索的原理", "稀疏与稠密检索融合"]


@pytest.mark.parametrize("behaviour", ["garbage", "malformed", "error"])
def test_a_bad_endpoint_falls_back_to_the_query_with_a_note(fake_llm, behaviour):
    fake_llm.behaviour = behaviour
    enhanced = enhance_query("rank fusion", QueryConfig(enhance="multi"), LlmClient.from_env())
    assert enhanced.fell_back
    assert [v.text for v in enhanced.variants] == ["rank fusion"]
    assert enhanced.notes[0].startswith("query enhancement (multi) fell back to the query as typed: ")
    assert not enhanced.calls[0].ok


def test_a_timeout_falls_back_with_a_note(fake_llm):
    fake_llm.delay_s = 2.0
    enhanced = enhance_query("rank fusion", QueryConfig(enhance="hyde", timeout_s=0.2), LlmClient.from_env())
    assert enhanced.fell_back and "within 0.2 s" in enhanced.notes[0]


def test_without_an_endpoint_the_note_says_how_to_configure_it(no_llm):
    enhanced = enhance_query("rank fusion", QueryConfig(enhance="rewrite"), LlmClient.from_env())
    assert enhanced.fell_back and [v.text for v in enhanced.variants] == ["rank fusion"]
    assert enhanced.notes[0].startswith("query.enhance=rewrite needs an LLM endpoint, which is not configured")
    assert "WORKBENCH_LLM_BASE_URL" in enhanced.notes[0]


def test_surface_words_cut_latin_by_regex_and_chinese_by_jieba():
    assert surface_words("What is reciprocal rank-fusion?", cjk_words) == ["What", "is", "reciprocal", "rank-fusion"]
    assert surface_words("什么是混合检索 BM25", cjk_words) == ["什么", "是", "混合", "检索", "BM25"]


def test_salient_terms_keep_the_highest_idf_in_query_order():
    words = ["what", "is", "reciprocal", "rank", "fusion", "the", "lists"]
    assert salient_terms(words, idf_of, 2) == {"reciprocal": 3.2, "fusion": 2.5}
    assert salient_terms(words, idf_of, 10) == {"reciprocal": 3.2, "rank": 1.1, "fusion": 2.5, "lists": 0.7}


def test_keywords_feed_bm25_only_and_need_no_llm(no_llm):
    enhanced = enhance_query(
        "what is the reciprocal rank fusion", QueryConfig(enhance="keywords", keywords=2), idf_of=idf_of
    )
    assert [(v.text, v.origin, v.routes) for v in enhanced.variants] == [
        ("what is the reciprocal rank fusion", "query", ("dense",)),
        ("reciprocal fusion", "keywords", ("bm25",)),
    ]
    assert enhanced.notes == ("BM25 searched with the salient terms by idf: reciprocal (3.20), fusion (2.50)",)


def test_keywords_on_chinese(no_llm):
    enhanced = enhance_query("什么是混合检索", QueryConfig(enhance="keywords"), idf_of=idf_of)
    assert enhanced.for_route("bm25")[0].text == "混合 检索"


def test_keywords_with_no_known_term_fall_back():
    enhanced = enhance_query("what is the", QueryConfig(enhance="keywords"), idf_of=idf_of)
    assert enhanced.fell_back and enhanced.notes[0].startswith("no query term occurs in the collection")


def test_keywords_without_bm25_statistics_fall_back_and_say_why():
    enhanced = enhance_query("reciprocal rank fusion", QueryConfig(enhance="keywords"), idf_of=None)
    assert enhanced.fell_back and [v.text for v in enhanced.variants] == ["reciprocal rank fusion"]
    assert enhanced.notes[0].startswith("query.enhance=keywords needs the collection's BM25 term statistics")
