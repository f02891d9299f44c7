"""Script shares of Chinese, English, mixed and nonsense text, counted by hand."""

import pytest

from workbench.language.scripts import (
    DEVANAGARI,
    HAN,
    HANGUL,
    KANA,
    LATIN,
    OTHER,
    LanguageMix,
    script_counts,
    text_language,
)


def test_chinese_is_han_and_labelled_zh():
    mix = LanguageMix.of("检索增强生成是什么？")  # 9 Han letters; the full-width ？ is punctuation
    assert mix.counts == {HAN: 9}
    assert mix.shares == {HAN: 1.0}
    assert mix.language == "zh"


def test_english_is_latin_and_labelled_en():
    mix = LanguageMix.of("Hybrid search, 2 routes!")  # Hybrid, search, routes: 3 words; digits do not count
    assert mix.counts == {LATIN: 3}
    assert mix.language == "en"
    assert text_language("What is BM25?") == "en"  # What, is, BM


def test_mixed_text_shares_are_units_han_characters_and_latin_words():
    mix = LanguageMix.of("Retrieval-augmented generation is what RAG stands for: 检索增强")
    # Latin: Retrieval, augmented, generation, is, what, RAG, stands, for = 8 words; Han: 4 characters
    assert mix.counts == {LATIN: 8, HAN: 4}
    assert mix.shares[LATIN] == pytest.approx(8 / 12)
    assert mix.shares[HAN] == pytest.approx(4 / 12)
    assert list(mix.shares) == [LATIN, HAN]  # largest first
    assert mix.describe() == "Latin (en) 67%, Han (zh) 33%"
    # Han is a third of the units, over CJK_SHARE (0.3): Chinese, though Latin is the larger share
    assert mix.main_script == HAN and mix.language == "zh"


def test_the_users_question_is_chinese():
    # Han 混合检索加 5 + 重排的 3 + 是多少 3 = 11; Latin Cross, Encoder, NDCG = 3 words (16 letters)
    mix = LanguageMix.of("混合检索加 Cross-Encoder 重排的 NDCG@10 是多少？")
    assert mix.counts == {HAN: 11, LATIN: 3}
    assert text_language("混合检索加 Cross-Encoder 重排的 NDCG@10 是多少？") == "zh"


def test_under_the_cjk_share_the_largest_script_names_the_language():
    mix = LanguageMix.of("Hybrid retrieval fuses the BM25 and dense routes, 混合")  # Latin 8, Han 2: 0.2
    assert mix.counts == {LATIN: 8, HAN: 2}
    assert mix.language == "en"


def test_code_heavy_chinese_prose_is_chinese():
    text = (
        '调用检索接口：`POST /api/v1/query`，请求体 `{"query": "...", "topK": 4, "minScore": 0.2}`，'
        "返回 `List<SearchResult>`。"
    )
    # Han 调用检索接口 6 + 请求体 3 + 返回 2 = 11; Latin POST api v query query topK minScore List SearchResult = 9
    assert LanguageMix.of(text).counts == {HAN: 11, LATIN: 9}
    assert text_language(text) == "zh"


def test_nonsense_without_letters_has_no_language():
    mix = LanguageMix.of("!!! ??? 123 ... ▓▒░ ☃")
    assert mix.units == 0
    assert text_language("!!! 123") == ""
    assert mix.shares == {}
    assert mix.language is None
    assert mix.describe() == "no letters"


def test_nonsense_letters_still_count_by_script():
    assert script_counts("asdkjh qweoiu") == {LATIN: 2}


def test_kana_with_han_is_japanese():
    mix = LanguageMix.of("東京の天気は晴れです")  # Han 東京天気晴 = 5, kana のはれです = 5
    assert mix.counts == {HAN: 5, KANA: 5}
    assert mix.language == "ja"


def test_hangul_is_korean_and_other_scripts_are_other():
    assert LanguageMix.of("검색 증강 생성").counts == {HANGUL: 6}  # CJK counts characters
    assert LanguageMix.of("검색 증강 생성").language == "ko"
    assert script_counts("ধন্যবাদ").get(OTHER, 0) > 0  # Bengali: a script the detector does not name


def test_accented_latin_counts_as_latin():
    assert script_counts("café crème") == {LATIN: 2}


def test_words_run_on_through_their_scripts_marks():
    assert script_counts("नमस्ते दुनिया") == {DEVANAGARI: 2}  # vowel signs and virama inside the words
    assert LanguageMix.of("Привет мир, hello").language == "ru"  # Cyrillic 2 words, Latin 1


def test_many_texts_add_up():
    mix = LanguageMix.of_texts(["abc", "检索", "de fg"])
    assert mix.counts == {LATIN: 3, HAN: 2}


def test_scripts_under_half_a_percent_are_not_listed():
    mix = LanguageMix({"Latin": 770, "Han": 230, "Greek": 1})
    assert mix.describe() == "Latin (en) 77%, Han (zh) 23%"
    assert LanguageMix({"Greek": 1}).describe() == "Greek (el) 100%"
