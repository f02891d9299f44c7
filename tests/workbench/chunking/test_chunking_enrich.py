"""Chunk enrichment: the reply's JSON, what each mode keeps, what goes into the indexed text."""

from __future__ import annotations

import pytest

from workbench.chunking.enrich import (
    Enrichment,
    enrich_texts,
    enriched_indexed_text,
    enrichment_metadata,
    parse_enrichment,
)
from workbench.llm.client import LlmClient
from workbench.llm.replies import ReplyRejected

FULL = Enrichment("Rank fusion", "Fusion merges ranked lists.", ("rrf", "fusion"))


def test_the_json_object_is_read_even_inside_a_code_fence():
    reply = (
        '```json\n{"title": " Rank   fusion ", "summary": "Fusion merges ranked lists.", '
        '"tags": ["rrf", "fusion", "rrf"]}\n```'
    )
    assert parse_enrichment(reply) == FULL


def test_tags_may_come_as_a_comma_separated_string_including_chinese_commas():
    reply = '{"title": "混合检索", "summary": "", "tags": "检索，融合、排序"}'
    assert parse_enrichment(reply).tags == ("检索", "融合", "排序")


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("no json here", "not a JSON object"),
        ("{not json}", "not a JSON object"),
        ('["a list"]', "not an object"),
        ('Sure!\n{"title": "t", "summary": "s", "tags": []}', "not a JSON object"),
        ('{"title": "t", "tags": []}', "missing summary"),
        ('{"title": "t", "summary": "s", "tags": [], "score": 3}', "unexpected score"),
        ('{"title": "", "summary": "", "tags": []}', "empty title, summary and tags"),
        ('{"title": "x", "summary": "s", "tags": 5}', "tags is a int, not a list"),
    ],
)
def test_unusable_replies_are_rejected_with_the_reason(reply, reason):
    with pytest.raises(ReplyRejected, match=reason):
        parse_enrichment(reply)


@pytest.mark.parametrize(
    ("mode", "kept"),
    [
        ("title", Enrichment("Rank fusion")),
        ("summary", Enrichment(summary="Fusion merges ranked lists.")),
        ("tags", Enrichment(tags=("rrf", "fusion"))),
        ("all", FULL),
    ],
)
def test_each_mode_keeps_its_fields(mode, kept):
    assert FULL.keep(mode) == kept


def test_the_indexed_text_gains_the_enrichment_after_the_chunk():
    assert enriched_indexed_text("Intro > RRF\n\nbody", FULL) == (
        "Intro > RRF\n\nbody\n\nTitle: Rank fusion\nSummary: Fusion merges ranked lists.\nTags: rrf, fusion"
    )
    assert enriched_indexed_text("body", None) == "body"
    assert enriched_indexed_text("body", Enrichment()) == "body"


def test_texts_are_enriched_through_the_endpoint(fake_llm):
    texts = [
        "Reciprocal rank fusion sums reciprocal ranks. It needs no score normalisation.",
        "混合检索把稠密检索和稀疏检索的结果融合。它常用倒数排名融合。",
    ]
    outcome = enrich_texts(texts, "all", LlmClient.from_env())
    first, second = outcome.enrichments
    assert first.title == "Reciprocal rank fusion sums reciprocal ranks."
    assert first.summary == "Reciprocal rank fusion sums reciprocal ranks."
    assert first.tags == ("normalisation", "reciprocal", "fusion", "needs")
    assert second.summary == "混合检索把稠密检索和稀疏检索的结果融合。"
    assert outcome.failures == 0 and outcome.summary()["endpoint_calls"] == 2
    metadata = enrichment_metadata(second, outcome.calls[1])
    assert metadata["enrichment"]["summary"] == second.summary
    assert metadata["enrichment_call"]["prompt_tokens"] > 0 and metadata["enrichment_call"]["ms"] > 0


def test_a_failed_chunk_gets_no_enrichment_and_keeps_the_reason(fake_llm):
    fake_llm.script("broken chunk", "I cannot do that", purpose="enrich")
    outcome = enrich_texts(["fine chunk text here", "broken chunk"], "title", LlmClient.from_env())
    assert outcome.enrichments[0] == Enrichment("fine chunk text here")
    assert outcome.enrichments[1] is None and outcome.failures == 1
    assert enrichment_metadata(None, outcome.calls[1])["enrichment_error"].startswith(
        "reply rejected: not a JSON object (Expecting value at character 0); got 'I cannot do that'"
    )
