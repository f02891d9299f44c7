"""The confidence evidence the pipeline measures on a real (small) collection."""

from __future__ import annotations

import math

import pytest

from store.sparse_index import lucene_idf
from tests.workbench.corpus import DOCS
from workbench.ingestion.ingest import Source
from workbench.retrieval.assessment import dense_baseline
from workbench.retrieval.confidence import NO_ANSWER, dense_z, expected_best_z


@pytest.fixture
def kb(bench, fake_embedder, fake_config):
    bench.ingest("kb", [Source(name=n, data=t.encode()) for n, t in DOCS.items()], fake_config)
    return bench


def test_a_query_whose_terms_are_all_in_the_top_hit_covers_everything(kb, fake_config):
    trace = kb.query("knead the dough", "kb", fake_config)
    terms = trace.confidence.signal("terms")
    assert terms.used and terms.value == pytest.approx(1.0)
    assert terms.numbers["matched"] == ["knead", "dough"] and terms.numbers["missing"] == []


def test_an_unseen_term_weighs_as_much_as_the_rarest_possible(kb, fake_config):
    trace = kb.query("knead volcano", "kb", fake_config)
    snapshot = kb.snapshot("kb", fake_config)
    n = len(snapshot.sparse)
    knead = lucene_idf(1, n)  # "knead" is in one chunk
    unseen = lucene_idf(0, n)  # log(1 + (n + 0.5) / 0.5)
    assert unseen == pytest.approx(math.log(1 + (n + 0.5) / 0.5))
    terms = trace.confidence.signal("terms")
    assert terms.value == pytest.approx(knead / (knead + unseen))
    assert "never in the collection: volcano" in terms.detail


def test_a_function_word_the_collection_never_writes_does_not_weigh_as_unseen(kb, fake_config):
    """ "does" is no stopword of the index (bm25s' list), and a collection of statements may never
    write it; counted as unseen it weighed as the rarest term and made an answered question look
    half-answered (issue 36: "How does reciprocal rank fusion combine…" was ambiguous on the demo)."""
    trace = kb.query("How do you knead dough?", "kb", fake_config)
    terms = trace.confidence.signal("terms")
    assert terms.value == pytest.approx(1.0) and terms.numbers["matched"] == ["knead", "dough"]
    assert "never in the collection" not in terms.detail
    # a topic word the collection never writes still weighs as the rarest possible
    assert kb.query("How do you knead volcano?", "kb", fake_config).confidence.signal("terms").value < 0.5
    only = kb.query("What does it do?", "kb", fake_config).confidence.signal("terms")
    assert not only.used and "only function words" in only.detail


def test_function_terms_in_english_and_chinese():
    from store.text_tokenizer import Bm25Tokenizer
    from workbench.retrieval.assessment import function_terms

    tokenizer = Bm25Tokenizer()
    assert function_terms("How does reciprocal rank fusion combine results?", tokenizer) == {"how", "doe"}
    assert function_terms("倒数排名融合是怎么计算的？", tokenizer) == {"是", "怎么", "的"}
    # question words of quantity and modals, as jieba cuts them: "how many", "should"
    assert function_terms("重排的 NDCG@10 是多少？", tokenizer) == {"的", "是", "多少"}
    assert function_terms("候选数应该控制在多少以内？", tokenizer) >= {"应该", "多少", "以内"}


def test_dense_evidence_is_the_best_cosine_above_chance(kb, fake_config):
    trace = kb.query("solar panels electricity", "kb", fake_config)
    snapshot = kb.snapshot("kb", fake_config)
    baseline = dense_baseline(snapshot)
    top = trace.stage("dense").ranked.hits[0].score
    searched = len(snapshot.dense_ids)
    dense = trace.confidence.signal("dense")
    assert dense.used
    assert dense.value == pytest.approx(dense_z(top, baseline) - expected_best_z(searched))
    assert dense.numbers["searched"] == searched
    assert dense_baseline(snapshot) is baseline  # computed once per loaded snapshot


def test_bm25_mode_has_no_dense_evidence(kb, fake_config):
    trace = kb.query("solar panels", "kb", fake_config.with_overrides(["retrieval.mode=bm25"]))
    dense = trace.confidence.signal("dense")
    assert dense.used is False and dense.detail == "the dense route did not run"


def test_nothing_retrieved_is_no_answer(kb, fake_config):
    trace = kb.query("zyxwvut qqqq", "kb", fake_config.with_overrides(["retrieval.mode=bm25"]))
    assert len(trace.final) == 0
    assert trace.confidence.verdict == NO_ANSWER and trace.confidence.reason == "no passage was retrieved"


def test_thresholds_come_from_the_configuration(kb, fake_config):
    strict = fake_config.with_overrides(["confidence.terms_low=0.95", "confidence.terms_high=1", "retrieval.mode=bm25"])
    trace = kb.query("knead volcano", "kb", strict)
    terms = trace.confidence.signal("terms")
    assert (terms.low, terms.high) == (0.95, 1.0)
    assert terms.value < 0.95 and trace.confidence.verdict == NO_ANSWER


def test_a_rerank_stage_adds_its_probability(kb, fake_config, tiny_cross_encoder_dir):
    config = fake_config.with_overrides([f"rerank.model={tiny_cross_encoder_dir}", "rerank.top_m=5"])
    trace = kb.query("knead the dough", "kb", config)
    rerank = trace.confidence.signal("rerank")
    details = trace.stage("rerank").details
    top_ids = [hit.chunk_id for hit in trace.final.hits[:3]]
    best = max(details[cid]["rerank_score"] for cid in top_ids if cid in details)
    # the tiny model's scores are sigmoid outputs already: the probability is the score itself
    assert rerank.used and rerank.value == pytest.approx(best)
    assert rerank.numbers["score_kind"] == "probability"
