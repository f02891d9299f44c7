"""The model catalogue: the models the issue names, with their facts, found by any of their names."""

import pytest

from workbench.models.catalogue import EMBEDDING, EMBEDDING_MODELS, RERANK, RERANK_MODELS, entry, models


def test_the_catalogue_holds_the_named_models():
    assert [card.name for card in EMBEDDING_MODELS] == [
        "all-MiniLM-L6-v2",
        "paraphrase-multilingual-MiniLM-L12-v2",
        "BAAI/bge-small-zh-v1.5",
        "BAAI/bge-m3",
        "intfloat/multilingual-e5-small",
    ]
    assert [card.name for card in RERANK_MODELS] == [
        "cross-encoder/ms-marco-MiniLM-L-6-v2",
        "BAAI/bge-reranker-base",
        "BAAI/bge-reranker-v2-m3",
    ]


@pytest.mark.parametrize("card", EMBEDDING_MODELS + RERANK_MODELS, ids=lambda c: c.name)
def test_every_card_has_its_facts(card):
    assert card.languages and card.max_seq_length and card.download_mb and card.licence and card.hub_id
    if card.kind == EMBEDDING:
        assert card.dimension


def test_prefixes_and_instructions():
    e5 = entry("intfloat/multilingual-e5-small", EMBEDDING)
    assert (e5.query_prefix, e5.passage_prefix) == ("query: ", "passage: ")
    bge = entry("BAAI/bge-small-zh-v1.5", EMBEDDING)
    assert bge.query_prefix == "为这个句子生成表示以用于检索相关文章：" and bge.passage_prefix == ""
    assert entry("all-MiniLM-L6-v2", EMBEDDING).query_prefix == ""


def test_entries_are_found_by_hub_id_and_case_insensitively():
    assert entry("sentence-transformers/all-MiniLM-L6-v2", EMBEDDING).bundled
    assert entry("baai/BGE-M3", EMBEDDING).name == "BAAI/bge-m3"
    assert entry("some/other-model", EMBEDDING) is None
    assert entry("BAAI/bge-m3", RERANK) is None


def test_language_descriptions():
    assert entry("all-MiniLM-L6-v2", EMBEDDING).describe_languages() == "en"
    assert entry("BAAI/bge-reranker-base", RERANK).describe_languages() == "zh, en"
    assert entry("BAAI/bge-m3", EMBEDDING).describe_languages() == "100+ languages"


def test_unknown_kind_is_an_error():
    with pytest.raises(ValueError, match="use one of embedding, rerank"):
        models("vision")


def test_download_sizes_read_naturally():
    assert entry("BAAI/bge-small-zh-v1.5", EMBEDDING).download_size == "96 MB"
    assert entry("BAAI/bge-m3", EMBEDDING).download_size == "2.3 GB"
