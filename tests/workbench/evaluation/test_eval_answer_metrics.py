"""Answer metrics: hand-computed values of the pure functions."""

from __future__ import annotations

import pytest

from workbench.evaluation import answer_metrics as am


def test_claims_are_sentences_with_their_citations():
    answer = (
        "RRF sums reciprocal ranks [S1]. It needs no normalisation [S2][S3]! Why? Because ranks are scale-free. [S2]"
    )
    claims = am.split_claims(answer)
    assert [(c.text, c.labels) for c in claims] == [
        ("RRF sums reciprocal ranks.", ("S1",)),
        ("It needs no normalisation!", ("S2", "S3")),
        ("Why?", ()),
        ("Because ranks are scale-free.", ("S2",)),
    ]


def test_chinese_sentences_split_at_full_stops():
    claims = am.split_claims("混合检索融合两种结果[S1]。它使用倒数排名融合。[S2]")
    assert [(c.text, c.labels) for c in claims] == [
        ("混合检索融合两种结果。", ("S1",)),
        ("它使用倒数排名融合。", ("S2",)),
    ]


def test_faithfulness_is_the_share_of_supported_claims():
    assert am.faithfulness([True, False, True, True]) == 0.75
    assert am.faithfulness([]) == 0.0


def test_context_precision_follows_the_ragas_formula():
    # useful at ranks 1 and 3: (1/1 + 2/3) / 2
    assert am.context_precision([True, False, True]) == pytest.approx((1 + 2 / 3) / 2)
    assert am.context_precision([False, False, True]) == pytest.approx(1 / 3)
    assert am.context_precision([False, False]) == 0.0


def test_answer_relevance_scales_the_judges_score():
    assert am.answer_relevance(7) == 0.7
    with pytest.raises(ValueError):
        am.answer_relevance(12)


def test_citations_valid_is_the_share_of_labels_the_context_has():
    assert am.citations_valid("a [S1] b [S4] c [S1]", ["S1", "S2"]) == 0.5
    assert am.citations_valid("no citations", ["S1"]) is None


def test_quotes_must_appear_in_the_passages_their_sentence_cites():
    passages = {"S1": "The k constant is usually 60.", "S2": "BM25 saturates term frequency."}
    answer = (
        'RRF uses "the k constant is  USUALLY 60" [S1]. BM25 "saturates term frequency" [S1]. '
        'Overall "saturates term" holds.'
    )
    # 1st found in S1 (case and spaces aside); 2nd cites S1 but the words are in S2; 3rd cites nothing,
    # so every passage the answer cites (only S1) is searched
    assert am.quotes_supported(answer, passages) == pytest.approx(1 / 3)
    assert am.quotes_supported("「倒数排名」融合[S1]。", {"S1": "倒数排名融合"}) == 1.0
    assert am.quotes_supported("no quotes [S1].", passages) is None
