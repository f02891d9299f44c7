import json
import pickle
from itertools import islice
from pathlib import Path

import bm25s
import pytest
import Stemmer

from store.text_tokenizer import Bm25Tokenizer

SCIFACT_CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "scifact" / "corpus.jsonl"


def test_english_lowercases_drops_stopwords_and_stems():
    tokens = Bm25Tokenizer().tokenize("The Runners were RUNNING to these studies of cells; a b x 42")
    # "the", "to", "these", "of" are bm25s stopwords; one-character words never match the pattern.
    assert tokens == ["runner", "were", "run", "studi", "cell", "42"]


def test_options_turn_stopwords_and_stemming_off():
    assert Bm25Tokenizer(stopwords="none", stemmer="none").tokenize("The studies") == ["the", "studies"]
    assert Bm25Tokenizer(stemmer="none").tokenize("The studies") == ["studies"]


def test_chinese_is_segmented_by_jieba_inside_english():
    tokens = Bm25Tokenizer().tokenize("I love NLP：我爱自然语言处理。Running jieba!")
    assert tokens == ["love", "nlp", "我", "爱", "自然语言", "处理", "run", "jieba"]


def test_without_cjk_segmentation_a_chinese_sentence_is_one_token():
    assert Bm25Tokenizer(cjk="none").tokenize("我爱自然语言处理 today") == ["我爱自然语言处理", "today"]


def test_kana_and_hangul_runs_are_split_off_from_latin_words():
    tokens = Bm25Tokenizer().tokenize("Tokyo東京タワー Seoul한국")
    assert tokens[:2] == ["tokyo", "東京"]
    assert "seoul" in tokens and "한" in tokens
    assert all(token.strip() for token in tokens)


def test_tokenize_many_and_describe_round_trip():
    tokenizer = Bm25Tokenizer()
    assert tokenizer.tokenize_many(["cats", "", "dogs"]) == [["cat"], [], ["dog"]]
    described = tokenizer.describe()
    assert described["stopwords"] == "en" and described["stemmer"] == "english" and described["cjk"] == "jieba"
    assert Bm25Tokenizer.from_description(described) == tokenizer
    # Picklable, so it can go to worker processes.
    assert pickle.loads(pickle.dumps(tokenizer)).tokenize("cats") == ["cat"]


def test_unknown_options_are_refused():
    with pytest.raises(ValueError, match="stemmer"):
        Bm25Tokenizer(stemmer="klingon")
    with pytest.raises(ValueError, match="stopwords"):
        Bm25Tokenizer(stopwords="fr")
    with pytest.raises(ValueError, match="cjk"):
        Bm25Tokenizer(cjk="mecab")


@pytest.mark.skipif(not SCIFACT_CORPUS.exists(), reason="shared SciFact dataset not present")
def test_english_tokens_equal_bm25s_reference_setup():
    with SCIFACT_CORPUS.open(encoding="utf-8") as lines:
        texts = [f"{doc['title']} {doc['text']}" for doc in map(json.loads, islice(lines, 50))]
    reference = bm25s.tokenize(
        texts, stopwords="en", stemmer=Stemmer.Stemmer("english"), return_ids=False, show_progress=False
    )
    assert Bm25Tokenizer().tokenize_many(texts) == reference


def test_surface_forms_give_back_the_words_as_typed_for_their_stems():
    from store.text_tokenizer import Bm25Tokenizer

    tokenizer = Bm25Tokenizer()
    query = "How does reciprocal rank fusion combine BM25 and dense Results?"
    forms = tokenizer.surface_forms(query)
    assert set(forms) == set(tokenizer.tokenize(query))  # a form for every token, no more
    assert forms["doe"] == "does" and forms["combin"] == "combine" and forms["result"] == "Results"
    assert forms["bm25"] == "BM25"
    chinese = tokenizer.surface_forms("倒数排名融合的分数怎么计算")
    assert set(chinese) == set(tokenizer.tokenize("倒数排名融合的分数怎么计算"))
    assert all(word == token for token, word in chinese.items())
    assert Bm25Tokenizer(stemmer="none").surface_forms("Combining results") == {
        "combining": "Combining",
        "results": "results",
    }
