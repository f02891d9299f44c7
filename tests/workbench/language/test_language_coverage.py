"""Whether a model reads a text: by the scripts of the languages it declares."""

from workbench.language.coverage import collection_warning, coverage, models_covering, scripts_of
from workbench.language.scripts import HAN, KANA, LATIN, LanguageMix
from workbench.models.catalogue import EMBEDDING, ModelCard, entry

MINILM = entry("all-MiniLM-L6-v2", EMBEDDING)
BGE_ZH = entry("BAAI/bge-small-zh-v1.5", EMBEDDING)
M3 = entry("BAAI/bge-m3", EMBEDDING)
UNKNOWN = ModelCard(name="some/model", kind=EMBEDDING, hub_id="some/model", in_catalogue=False)


def test_scripts_of_languages():
    assert scripts_of(["en"]) == {LATIN}
    assert scripts_of(["zh"]) == {HAN}
    assert scripts_of(["ja", "fr"]) == {HAN, KANA, LATIN}
    assert scripts_of(["zh-cn"]) == {HAN}


def test_english_model_does_not_cover_chinese():
    found = coverage(MINILM, LanguageMix.of("检索增强生成"))
    assert found.uncovered_share == 1.0
    assert found.covered is False
    assert (found.model_languages, found.text_language) == ("en", "zh")


def test_english_model_covers_english_and_a_multilingual_model_covers_both():
    assert coverage(MINILM, LanguageMix.of("hybrid search")).covered is True
    assert coverage(M3, LanguageMix.of("检索增强生成 hybrid")).uncovered_share == 0.0


def test_a_chinese_question_with_english_terms_is_not_covered_by_an_english_model():
    # Han 11 units, Latin 3 words (Cross, Encoder, NDCG): Chinese, though Latin has more letters
    found = coverage(MINILM, LanguageMix.of("混合检索加 Cross-Encoder 重排的 NDCG@10 是多少？"))
    assert found.uncovered_share == 11 / 14
    assert (found.text_language, found.covered) == ("zh", False)
    assert coverage(M3, LanguageMix.of("混合检索加 Cross-Encoder 重排的 NDCG@10 是多少？")).covered is True
    assert coverage(BGE_ZH, LanguageMix.of("混合检索加 Cross-Encoder 重排的 NDCG@10 是多少？")).covered is True


def test_coverage_follows_the_language_not_the_majority_of_units():
    # Han 3 of 10 units: at CJK_SHARE, so Chinese; an English model does not cover it though 70% is Latin
    mix = LanguageMix.of("what does hybrid route of RAG call 检索器")
    assert mix.counts == {LATIN: 7, HAN: 3}
    assert coverage(MINILM, mix).covered is False
    # Han 2 of 10: English, covered
    assert coverage(MINILM, LanguageMix.of("what does the hybrid route of RAG call 检索")).covered is True


def test_japanese_needs_kana_as_well_as_han():
    assert coverage(BGE_ZH, LanguageMix.of("東京の天気は晴れです")).covered is False


def test_unknown_languages_or_no_letters_cannot_tell():
    assert coverage(UNKNOWN, LanguageMix.of("检索")).covered is None
    assert coverage(MINILM, LanguageMix.of("123 !!!")).covered is None


def test_models_covering_chinese_are_the_multilingual_and_chinese_ones():
    names = [card.name for card in models_covering(LanguageMix.of("检索增强生成"), EMBEDDING)]
    assert names == [
        "paraphrase-multilingual-MiniLM-L12-v2",
        "BAAI/bge-small-zh-v1.5",
        "BAAI/bge-m3",
        "intfloat/multilingual-e5-small",
    ]


def test_collection_warning_names_the_models_that_cover_it():
    mix = LanguageMix.of_texts(["这是一个中文段落。"] * 9 + ["an English line"])
    warning = collection_warning(MINILM, mix)
    assert warning is not None
    assert "all-MiniLM-L6-v2 does not cover" in warning and "(it covers en)" in warning
    assert (
        "Models that cover zh: paraphrase-multilingual-MiniLM-L12-v2 (50+ languages, 471 MB download), "
        "BAAI/bge-small-zh-v1.5 (Chinese, 96 MB download)"
    ) in warning
    assert collection_warning(BGE_ZH, mix) is None
    assert collection_warning(UNKNOWN, mix) is None


def test_a_chinese_document_in_an_english_collection_is_named_though_the_collection_is_covered():
    from workbench.language.coverage import collection_language

    card = entry("all-MiniLM-L6-v2", EMBEDDING)
    english = "Retrieval augmented generation retrieves passages and answers from them. " * 4
    chinese = "检索增强生成先检索相关段落，再让模型根据这些段落回答问题。"
    texts = [english, english, chinese, english, english]
    doc_ids = [1, 1, 2, 3, 3]
    found = collection_language(texts, card, doc_ids)
    assert found.warning is None  # most of the collection is English
    (document,) = found.uncovered
    assert document.doc_id == 2 and document.mix.language == "zh" and document.coverage.covered is False
    assert collection_language(texts, card).uncovered == ()  # without document ids, nothing per document
