"""Explain view and rank flow on traces with query enhancement and LLM rerank (fake endpoint)."""

from __future__ import annotations

import math

import pytest

from workbench.analysis.charts import rank_flow_figure
from workbench.analysis.explain import explain_hit
from workbench.analysis.explain_routes import route_text
from workbench.analysis.rank_flow import rank_flow

COLLECTION = "lab"  # built by the lab_workbench fixture (conftest.py)


def _run(workbench, query, **overrides):
    config = workbench.config_for(COLLECTION, overrides=overrides)
    trace = workbench.query(query, COLLECTION, config)
    snapshot = workbench.snapshot(COLLECTION, config)
    dense_text, _ = route_text(trace, "dense")
    return trace, snapshot, workbench.embed_query(config.embedding.model, dense_text)


def test_multi_explains_each_text_s_share_of_the_route_scores(lab_workbench, fake_llm):
    fake_llm.script("Query: foo slow", "foo cache cold\nwarm the foo cache", purpose="query.multi")
    trace, snapshot, vector = _run(lab_workbench, "foo slow", **{"query.enhance": "multi", "query.variants": 2})
    top = trace.final.hits[0].chunk_id
    explanation = explain_hit(trace, snapshot, top, vector)
    assert [v.text for v in explanation.query.variants] == ["foo slow", "foo cache cold", "warm the foo cache"]
    assert explanation.query.calls[0].text == "foo cache cold\nwarm the foo cache"
    dense, bm25 = explanation.variants
    for route in (dense, bm25):
        score = trace.stage(route.terms[0].route.split(" ")[0]).ranked.score_map()[top]
        assert math.fsum(t.contribution for t in route.terms) == pytest.approx(score, abs=1e-12)
        assert [t.route.split(" (")[1] for t in route.terms] == ["query)", "multi 1)", "multi 2)"]
    # BM25 and cosine are explained against the lists of the query as typed
    assert explanation.bm25.stage_score == trace.stage("bm25 (query)").ranked.score_map().get(top)
    assert explanation.cosine.stage_score == pytest.approx(trace.stage("dense (query)").ranked.score_map()[top])


def test_hyde_cosine_is_checked_against_the_passage_s_list(lab_workbench, fake_llm):
    trace, snapshot, vector = _run(lab_workbench, "configuration file location", **{"query.enhance": "hyde"})
    text, stage = route_text(trace, "dense")
    assert stage == "dense" and text.startswith("configuration file location. This passage explains")
    for hit in trace.stage("dense").ranked.hits[:3]:
        cosine = explain_hit(trace, snapshot, hit.chunk_id, vector).cosine
        assert cosine.cosine == pytest.approx(hit.score, abs=1e-6)


def test_keywords_bm25_terms_sum_to_the_stage_score(lab_workbench, no_llm):
    trace, snapshot, vector = _run(
        lab_workbench, "why is my foo so slow today", **{"query.enhance": "keywords", "query.keywords": 2}
    )
    text, _ = route_text(trace, "bm25")
    assert text == trace.enhancement.for_route("bm25")[0].text and len(text.split()) == 2
    for hit in trace.stage("bm25").ranked.hits:
        bm25 = explain_hit(trace, snapshot, hit.chunk_id, vector).bm25
        assert bm25.total == pytest.approx(hit.score, rel=1e-12)


def test_llm_rerank_explains_the_score_with_its_call(lab_workbench, fake_llm):
    trace, snapshot, vector = _run(lab_workbench, "install foo on linux", **{"rerank.method": "llm", "rerank.top_m": 3})
    top = trace.final.hits[0].chunk_id
    rerank = explain_hit(trace, snapshot, top, vector).rerank
    assert rerank.model == "llm:fake-llm" and rerank.call.label == f"chunk {top}"
    assert rerank.score == float(rerank.call.text)
    assert "pointwise prompt rerank.pointwise@2" in rerank.formula and "tokens" in rerank.formula


def test_the_rank_flow_names_the_generated_texts(lab_workbench, fake_llm):
    fake_llm.script("Query: foo on windows", "foo installer windows admin", purpose="query.rewrite")
    trace, _, _ = _run(lab_workbench, "foo on windows", **{"query.enhance": "rewrite"})
    flow = rank_flow(trace)
    assert flow.searched_with == {"dense": "foo installer windows admin", "bm25": "foo installer windows admin"}
    figure = rank_flow_figure(flow)
    note = figure.layout.annotations[0].text
    assert note.startswith("searched with generated text —") and "dense: foo installer windows admin" in note
    assert any(
        "searched with: foo installer windows admin" in text for trace_ in figure.data for text in trace_.customdata
    )
