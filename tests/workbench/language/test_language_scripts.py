"""Script shares of Chinese, English, mixed and nonsense text, counted by hand."""

import pytest

from workbench.language.scripts import HAN, HANGUL, KANA, LATIN, OTHER, LanguageMix, script_counts


def test_chinese_is_han_and_labelled_zh():
    mix = LanguageMix.of("检索增强生成是什么？")  # 9 Han letters; the full-width ？ is punctuation
    assert mix.counts == {HAN: 9}
    assert mix.shares == {HAN: 1.0}
    assert mix.language == "zh"


def test_english_is_latin_and_labelled_en():
    mix = LanguageMix.of("Hybrid search, 2 routes!")  # Hybrid 6 + search 6 + routes 6; digits do not count
    assert mix.counts == {LATIN: 18}
    assert mix.language == "en"


def test_mixed_text_shares_are_letter_counts():
    mix = LanguageMix.of("Retrieval-augmented generation 检索增强生成")
    # Latin: Retrieval 9 + augmented 9 + generation 10 = 28; Han: 6
    assert mix.counts == {LATIN: 28, HAN: 6}
    assert mix.shares[LATIN] == pytest.approx(28 / 34)
    assert mix.shares[HAN] == pytest.approx(6 / 34)
    assert list(mix.shares) == [LATIN, HAN]  # largest first
    assert mix.language == "en"
    assert mix.describe() == "Latin (en) 82%, Han (zh) 18%"


def test_a_tie_goes_to_the_script_listed_first():
    mix = LanguageMix.of("什么是 RAG")  # Han 3, Latin 3
    assert mix.shares == {LATIN: 0.5, HAN: 0.5}
    assert mix.main_script == LATIN


def test_nonsense_without_letters_has_no_language():
    mix = LanguageMix.of("!!! ??? 123 ... ▓▒░ ☃")
    assert mix.letters == 0
    assert mix.shares == {}
    assert mix.language is None
    assert mix.describe() == "no letters"


def test_nonsense_letters_still_count_by_script():
    assert script_counts("asdkjh qweoiu") == {LATIN: 12}


def test_kana_with_han_is_japanese():
    mix = LanguageMix.of("東京の天気は晴れです")  # Han 東京天気晴 = 5, kana のはれです = 5
    assert mix.counts == {HAN: 5, KANA: 5}
    assert mix.language == "ja"


def test_hangul_is_korean_and_other_scripts_are_other():
    assert LanguageMix.of("검색 증강 생성").counts == {HANGUL: 6}
    assert LanguageMix.of("검색 증강 생성").language == "ko"
    assert script_counts("ধন্যবাদ").get(OTHER, 0) > 0  # Bengali: a script the detector does not name


def test_accented_latin_counts_as_latin():
    assert script_counts("café crème") == {LATIN: 9}


def test_many_texts_add_up():
    mix = LanguageMix.of_texts(["abc", "检索", "de"])
    assert mix.counts == {LATIN: 5, HAN: 2}


def test_scripts_under_half_a_percent_are_not_listed():
    mix = LanguageMix({"Latin": 770, "Han": 230, "Greek": 1})
    assert mix.describe() == "Latin (en) 77%, Han (zh) 23%"
    assert LanguageMix({"Greek": 1}).describe() == "Greek (el) 100%"
