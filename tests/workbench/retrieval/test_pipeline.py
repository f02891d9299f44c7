"""The traced pipeline: which stages run in which mode, and what each records."""

from __future__ import annotations

import json

import pytest

from tests.workbench.corpus import DOCS
from workbench.ingestion.ingest import Source
from workbench.retrieval.pipeline import QueryError
from workbench.retrieval.trace import Trace


@pytest.fixture
def kb(bench, fake_embedder, fake_config):
    bench.ingest("kb", [Source(name=n, data=t.encode()) for n, t in DOCS.items()], fake_config)
    return bench


def _names(trace: Trace) -> list[str]:
    return trace.stage_names()


@pytest.mark.parametrize(
    "overrides, stages",
    [
        (["retrieval.mode=dense"], ["dense", "final"]),
        (["retrieval.mode=bm25"], ["bm25", "final"]),
        (["retrieval.mode=hybrid"], ["dense", "bm25", "fusion", "final"]),
        (["retrieval.mode=hybrid", "mmr.enabled=true"], ["dense", "bm25", "fusion", "mmr", "final"]),
        (["retrieval.mode=bm25", "filters.doc_types=md"], ["bm25", "filter", "final"]),
    ],
)
def test_stages_follow_the_configuration(kb, fake_config, overrides, stages):
    trace = kb.query("solar panels electricity", "kb", fake_config.with_overrides(overrides))
    assert _names(trace) == stages
    assert all(stage.elapsed_ms >= 0 for stage in trace.stages)


def test_hybrid_fusion_is_rrf_of_the_two_routes(kb, fake_config):
    trace = kb.query("bake bread in the oven", "kb", fake_config.with_overrides(["fusion.k=60"]))
    dense, bm25, fusion = trace.stage("dense").ranked, trace.stage("bm25").ranked, trace.stage("fusion").ranked
    for hit in fusion.hits:
        expected = sum(1 / (60 + r.rank_of(hit.chunk_id)) for r in (dense, bm25) if r.rank_of(hit.chunk_id))
        assert hit.score == pytest.approx(expected, abs=1e-12)
    assert trace.chunks[trace.final.hits[0].chunk_id].source == "bread.md"


def test_top_k_cuts_the_final_list(kb, fake_config):
    trace = kb.query("water", "kb", fake_config.with_overrides(["retrieval.top_k=2"]))
    assert len(trace.final) == 2 and [h.rank for h in trace.final.hits] == [1, 2]


def test_document_filter_keeps_only_that_document(kb, fake_config):
    trace = kb.query("water electricity dough", "kb", fake_config.with_overrides(["filters.documents=rivers.md"]))
    assert {trace.chunks[h.chunk_id].source for h in trace.final.hits} == {"rivers.md"}
    assert any("pre-filtered" in note for note in trace.notes)


def test_exact_and_hnsw_dense_agree_on_a_small_collection(kb, fake_config):
    query = "river floods after heavy rain"
    graph = kb.query(query, "kb", fake_config.with_overrides(["retrieval.mode=dense"]))
    exact = kb.query(query, "kb", fake_config.with_overrides(["retrieval.mode=dense", "dense.exact=true"]))
    assert graph.final.chunk_ids() == exact.final.chunk_ids()


def test_rerank_with_a_missing_model_falls_back_and_says_so(kb, fake_config, tmp_path):
    missing = tmp_path / "no-such-cross-encoder"
    config = fake_config.with_overrides([f"rerank.model={missing}", "rerank.timeout_s=20"])
    trace = kb.query("chess openings", "kb", config)
    rerank = trace.stage("rerank")
    assert rerank is not None and rerank.ranked.chunk_ids() == trace.stage("fusion").ranked.chunk_ids()
    assert any("fell back" in note for note in rerank.notes)


def test_rerank_with_a_real_tiny_cross_encoder(kb, fake_config, tiny_cross_encoder_dir):
    config = fake_config.with_overrides([f"rerank.model={tiny_cross_encoder_dir}", "rerank.top_m=3"])
    trace = kb.query("solar storage batteries", "kb", config)
    rerank = trace.stage("rerank")
    assert not any("fell back" in note for note in rerank.notes)
    head = rerank.ranked.hits[:3]
    scores = [rerank.details[h.chunk_id]["rerank_score"] for h in head]
    assert scores == sorted(scores, reverse=True)


def test_trace_round_trips_through_json(kb, fake_config):
    trace = kb.query("knights and bishops", "kb", fake_config.with_overrides(["mmr.enabled=true"]))
    again = Trace.from_dict(json.loads(trace.to_json()))
    assert again == trace


def test_empty_query_is_a_clear_error(kb, fake_config):
    with pytest.raises(QueryError, match="empty"):
        kb.query("   ", "kb", fake_config)


def test_unknown_collection_names_the_known_ones(kb, fake_config):
    with pytest.raises(LookupError, match="collection 'nope' not found; known: kb"):
        kb.query("x", "nope", fake_config)


def test_new_chunking_builds_its_own_layout_from_cached_markdown(kb, fake_config, fake_embedder):
    small = fake_config.with_overrides(["chunking.size=80", "chunking.overlap=0"])
    trace = kb.query("photovoltaic", "kb", small)
    assert all(len(v.text) <= 80 for v in trace.chunks.values())
    assert len(kb.snapshot("kb", small).chunks) > len(kb.snapshot("kb", fake_config).chunks)


def test_views_and_breakdowns_are_built_only_when_read(kb, fake_config):
    trace = kb.query("bake bread in the oven", "kb", fake_config)  # hybrid
    fusion = trace.stage("fusion")
    assert not fusion.details.built
    stage_chunks = {chunk_id for stage in trace.stages for chunk_id in stage.ranked.ids}
    assert set(trace.chunks) == stage_chunks
    view = trace.chunks[trace.final.ids[0]]
    assert view.source == "bread.md" and view.text in kb.markdown(view.doc_id)[0]
    with pytest.raises(KeyError):
        trace.chunks[-1]  # only chunks of the trace's lists have views
    for hit in fusion.ranked:
        assert sum(entry["contribution"] for entry in fusion.details[hit.chunk_id].values()) == pytest.approx(
            hit.score, abs=1e-15
        )
    assert fusion.details.built


def test_a_trace_pickles_as_plain_values(kb, fake_config):
    import pickle

    trace = kb.query("knights and bishops", "kb", fake_config)
    again = pickle.loads(pickle.dumps(trace))
    assert again == trace and type(again.chunks) is dict and type(again.stage("fusion").details) is dict


def test_an_index_in_a_stale_format_is_rebuilt_from_the_catalog(kb, fake_config):
    from store.index_set import read_current
    from workbench.ingestion.indexing import layout_dir
    from workbench.layout import Layout
    from workbench.service import Workbench

    before = kb.query("river floods after heavy rain", "kb", fake_config)
    target = layout_dir(kb.home, "kb", Layout.of(fake_config))
    params_path = target / read_current(target)["version"] / "dense" / "params.json"
    params = json.loads(params_path.read_text())
    params_path.write_text(json.dumps({**params, "format": params["format"] + 1}))

    fresh = Workbench(kb.home)  # a process that has not loaded the snapshot yet
    after = fresh.query("river floods after heavy rain", "kb", fake_config)
    assert after.final.chunk_ids() == before.final.chunk_ids()
    rebuilt = target / read_current(target)["version"] / "dense" / "params.json"
    assert rebuilt != params_path and json.loads(rebuilt.read_text())["format"] == params["format"]
