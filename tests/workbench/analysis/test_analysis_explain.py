"""Explanations must reproduce the pipeline's own numbers on a real (small) index."""

from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.analysis.explain import explain_hit, explain_rerank
from workbench.retrieval.ranking import RankedList
from workbench.retrieval.trace import StageTrace, Trace

QUERY = "install foo on linux"
COLLECTION = "lab"  # built by the lab_workbench fixture (conftest.py)


def _run(workbench, **overrides):
    config = workbench.config_for(COLLECTION, overrides=overrides)
    trace = workbench.query(QUERY, COLLECTION, config)
    snapshot = workbench.snapshot(COLLECTION, config)
    vector = workbench.embed_query(config.embedding.model, QUERY)
    return trace, snapshot, vector


def test_bm25_terms_sum_to_the_bm25_stage_score(lab_workbench):
    trace, snapshot, vector = _run(lab_workbench)
    bm25_stage = trace.stage("bm25")
    assert len(bm25_stage.ranked) >= 5
    for hit in bm25_stage.ranked.hits:
        explanation = explain_hit(trace, snapshot, hit.chunk_id, vector).bm25
        assert explanation.stage_score == hit.score
        assert explanation.stage_rank == hit.rank
        assert math.fsum(t.contribution for t in explanation.terms) == pytest.approx(hit.score, rel=1e-12)
        assert explanation.total == pytest.approx(hit.score, rel=1e-12)


def test_bm25_term_matches_a_hand_count_over_the_indexed_texts(lab_workbench):
    trace, snapshot, vector = _run(lab_workbench)
    top = trace.stage("bm25").ranked.hits[0].chunk_id
    explanation = explain_hit(trace, snapshot, top, vector).bm25
    # recount everything from the indexed texts with the index's own tokenizer
    tokenize = snapshot.sparse.tokenizer.tokenize
    tokens = {cid: tokenize(chunk.indexed_text) for cid, chunk in snapshot.chunks.items()}
    n = len(tokens)
    avg_len = sum(len(t) for t in tokens.values()) / n
    by_term = {row.term: row for row in explanation.terms}
    assert set(by_term) == set(tokenize(QUERY))  # "on" is a stopword: only the content words remain
    for term, row in by_term.items():
        df = sum(1 for t in tokens.values() if term in t)
        tf = tokens[top].count(term)
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        k1, b = 1.2, 0.75
        expected = idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(tokens[top]) / avg_len))
        assert (row.df, row.tf, row.doc_len) == (df, tf, len(tokens[top]))
        assert row.idf == pytest.approx(idf, rel=1e-12)
        assert row.contribution == pytest.approx(expected, rel=1e-12)
        assert f"{row.contribution:.4f}" in row.formula
    assert explanation.formula.endswith(f"= {explanation.total:.4f}")


def test_cosine_equals_the_dense_stage_score(lab_workbench):
    trace, snapshot, vector = _run(lab_workbench)
    for hit in trace.stage("dense").ranked.hits:
        cosine = explain_hit(trace, snapshot, hit.chunk_id, vector).cosine
        assert cosine.stage_score == hit.score
        assert cosine.cosine == pytest.approx(hit.score, abs=1e-5)  # hnswlib works in float32
        assert cosine.query_norm == pytest.approx(1.0, abs=1e-6)
        assert cosine.dot / (cosine.query_norm * cosine.chunk_norm) == pytest.approx(cosine.cosine)
        assert cosine.dimension == 48


def test_rrf_terms_are_one_over_k_plus_rank_and_sum_to_the_fusion_score(lab_workbench):
    trace, snapshot, vector = _run(lab_workbench, **{"fusion.k": 10})
    dense, bm25 = trace.stage("dense").ranked, trace.stage("bm25").ranked
    for hit in trace.stage("fusion").ranked.hits:
        fusion = explain_hit(trace, snapshot, hit.chunk_id, vector).fusion
        expected = {}
        for route in (dense, bm25):
            rank = route.rank_of(hit.chunk_id)
            expected[route.name] = 0.0 if rank is None else 1.0 / (10 + rank)
        assert {t.route: t.contribution for t in fusion.terms} == pytest.approx(expected)
        assert fusion.total == pytest.approx(hit.score, rel=1e-12)
        assert fusion.stage_score == hit.score
    # the top hit is first in both routes: 1/11 + 1/11
    top = explain_hit(trace, snapshot, trace.stage("fusion").ranked.hits[0].chunk_id, vector).fusion
    assert top.total == pytest.approx(2 / 11)
    assert "1/(10 + 1) = 0.090909" in top.terms[0].formula


def test_weighted_terms_show_the_minmax_normalisation(lab_workbench):
    trace, snapshot, vector = _run(lab_workbench, **{"fusion.method": "weighted", "fusion.weights": "0.7,0.3"})
    dense_scores = [h.score for h in trace.stage("dense").ranked.hits]
    low, high = min(dense_scores), max(dense_scores)
    for hit in trace.stage("fusion").ranked.hits:
        fusion = explain_hit(trace, snapshot, hit.chunk_id, vector).fusion
        assert fusion.total == pytest.approx(hit.score, rel=1e-12)
        dense_term = next(t for t in fusion.terms if t.route == "dense")
        assert dense_term.weight == 0.7
        assert dense_term.normalized == pytest.approx((dense_term.score - low) / (high - low))
        assert dense_term.contribution == pytest.approx(0.7 * dense_term.normalized)


def test_mmr_score_is_lambda_relevance_minus_penalty(lab_workbench):
    trace, snapshot, vector = _run(lab_workbench, **{"mmr.enabled": True, "mmr.lambda": 0.5})
    selected_against_someone = 0
    for hit in trace.stage("mmr").ranked.hits:
        explanation = explain_hit(trace, snapshot, hit.chunk_id, vector)
        mmr = explanation.mmr
        assert mmr.lambda_ == 0.5
        assert mmr.mmr_score == pytest.approx(0.5 * mmr.relevance - 0.5 * mmr.max_similarity)
        assert mmr.mmr_score == pytest.approx(hit.score)
        assert mmr.penalty == pytest.approx(0.5 * mmr.max_similarity)
        # MMR's relevance is the same query-chunk cosine the explain view recomputes
        assert mmr.relevance == pytest.approx(explanation.cosine.cosine, abs=1e-5)
        if mmr.most_similar_to is not None:
            selected_against_someone += 1
            other = snapshot.dense.vectors_for(np.asarray([hit.chunk_id, mmr.most_similar_to]))
            assert mmr.max_similarity == pytest.approx(float(other[0] @ other[1]), abs=1e-5)
    assert selected_against_someone == len(trace.stage("mmr").ranked) - 1  # all but the first pick
    first = explain_hit(trace, snapshot, trace.stage("mmr").ranked.hits[0].chunk_id, vector).mmr
    assert first.max_similarity == 0.0 and "first pick" in first.formula


def test_stage_positions_and_notes(lab_workbench):
    trace, snapshot, _ = _run(lab_workbench, **{"retrieval.mode": "bm25"})
    chunk_id = trace.final.hits[0].chunk_id
    explanation = explain_hit(trace, snapshot, chunk_id, None)
    assert [(p.stage, p.rank) for p in explanation.positions] == [("bm25", 1), ("final", 1)]
    assert explanation.cosine is None and explanation.fusion is None and explanation.mmr is None
    assert any("query vector" in note for note in explanation.notes)
    assert explanation.chunk.chunk_id == chunk_id


def test_rerank_explanation_reads_the_stage_details():
    rerank = StageTrace(
        "rerank",
        {"model": "tiny-ce", "top_m": 2},
        RankedList.from_ordered("rerank", [(7, 1, 3.5), (5, 1, -0.25), (9, 2, 0.1)]),
        2.0,
        details={7: {"rerank_score": 3.5, "previous_rank": 2}, 5: {"rerank_score": -0.25, "previous_rank": 1}},
    )
    trace = Trace("q", "c", {}, (rerank,), {}, 2.0)
    explanation = explain_rerank(trace, 7)
    assert (explanation.score, explanation.previous_rank, explanation.new_rank) == (3.5, 2, 1)
    assert explanation.formula == (
        "cross-encoder tiny-ce: score(query, chunk text) = 3.5000; rank 2 before rerank → 1 after"
    )
    assert explain_rerank(trace, 9) is None  # beyond top_m: never rescored


def test_bm25_terms_show_the_querys_words_not_the_stems(lab_workbench):
    config = lab_workbench.config_for(COLLECTION)
    query = "Installing foo"
    trace = lab_workbench.query(query, COLLECTION, config)
    snapshot = lab_workbench.snapshot(COLLECTION, config)
    vector = lab_workbench.embed_query(config.embedding.model, query)
    top = trace.stage("bm25").ranked.hits[0].chunk_id
    terms = {t.term: t for t in explain_hit(trace, snapshot, top, vector).bm25.terms}
    assert terms["instal"].shown == "Installing" and terms["foo"].shown == "foo"
    assert "“Installing” (indexed as “instal”)" in terms["instal"].formula
    assert "“foo”:" in terms["foo"].formula or "“foo” " in terms["foo"].formula
