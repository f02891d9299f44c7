"""The language guard: what it decides from a query and a model, and what it does in the pipeline.

The end-to-end tests save a tiny random-weight sentence-transformers model whose model card
declares Chinese (``language: zh``), ingest a bilingual corpus with it, and query it in both
languages, through ``Workbench`` and through the command line.
"""

from __future__ import annotations

import json

import pytest

from tests.workbench.corpus import DOCS
from workbench.config import WorkbenchConfig
from workbench.ingestion.ingest import Source
from workbench.retrieval.fusion import rrf
from workbench.retrieval.language_guard import LanguageCheck, check_language

CHINESE_DOCS = {
    "taiyang.md": "# 太阳能\n\n光伏电池板把阳光转化为电能。逆变器把直流电转换为交流电，送入电网。",
    "mianbao.md": "# 烤面包\n\n面粉、水、盐和酵母揉成面团。面团发酵以后放进烤箱，烤到表皮金黄。",
    "heliu.md": "# 河流\n\n河流把水从源头带到大海。暴雨使水位高过河岸时就会发生洪水。",
}


def test_an_english_model_gets_no_vote_on_a_chinese_query():
    check = check_language("光伏电池板怎样发电", "auto", "hybrid", "all-MiniLM-L6-v2")
    assert check.dense_votes is False
    assert check.note == (
        "dense route left out of fusion: all-MiniLM-L6-v2 covers en; the query is zh. To use it, "
        "pick a model that reads zh: paraphrase-multilingual-MiniLM-L12-v2 (471 MB) or "
        "BAAI/bge-small-zh-v1.5 (96 MB), on the Models page."
    )
    assert check.query.language == "zh" and check.embedding.covered is False


def test_a_chinese_question_with_more_latin_letters_than_han_is_chinese():
    # issue 48: 16 Latin letters against 11 Han characters once made it English, and the English
    # model voted; counted in units (3 English words, 11 Han characters) it is Chinese
    check = check_language("混合检索加 Cross-Encoder 重排的 NDCG@10 是多少？", "auto", "hybrid", "all-MiniLM-L6-v2")
    assert check.query.language == "zh" and check.embedding.covered is False
    assert check.dense_votes is False
    assert check_language("What is BM25?", "auto", "hybrid", "all-MiniLM-L6-v2").dense_votes is True


def test_off_keeps_the_vote_and_says_so():
    check = check_language("光伏电池板怎样发电", "off", "hybrid", "all-MiniLM-L6-v2")
    assert check.dense_votes is True
    assert check.note == (
        "all-MiniLM-L6-v2 covers en; the query is zh; the dense route still votes in fusion "
        "because retrieval.language_guard = off."
    )


def test_a_covered_query_or_a_multilingual_model_changes_nothing():
    for query, model in (
        ("how do solar panels work", "all-MiniLM-L6-v2"),
        ("光伏电池板怎样发电", "BAAI/bge-m3"),
        ("光伏电池板怎样发电", "intfloat/multilingual-e5-small"),
    ):
        check = check_language(query, "auto", "hybrid", model)
        assert (check.dense_votes, check.note) == (True, "")


def test_dense_mode_warns_instead_of_leaving_its_only_route_out():
    check = check_language("光伏电池板怎样发电", "auto", "dense", "all-MiniLM-L6-v2")
    assert check.dense_votes is True
    assert check.note.startswith(
        "dense route ranks a query its model cannot read: all-MiniLM-L6-v2 covers en; the query is zh."
    )


def test_bm25_mode_and_unknown_models_are_left_alone():
    assert check_language("光伏电池板", "auto", "bm25", "all-MiniLM-L6-v2").note == ""
    unknown = check_language("光伏电池板", "auto", "hybrid", "some-org/undeclared-model")
    assert unknown.embedding.covered is None and unknown.dense_votes is True


def test_the_reranker_is_checked_too_and_the_check_round_trips():
    check = check_language("光伏电池板", "auto", "hybrid", "BAAI/bge-m3", "cross-encoder/ms-marco-MiniLM-L-6-v2")
    assert check.rerank.covered is False and check.dense_votes is True
    assert LanguageCheck.from_dict(json.loads(json.dumps(check.to_dict()))) == check


def test_an_unknown_setting_is_refused():
    with pytest.raises(ValueError, match="retrieval.language_guard must be one of auto, off"):
        check_language("q", "always", "hybrid", "all-MiniLM-L6-v2")
    with pytest.raises(ValueError, match="retrieval.language_guard"):
        WorkbenchConfig().with_overrides(["retrieval.language_guard=sometimes"])


# -- end to end, with a tiny local model that declares Chinese ------------------------------------


@pytest.fixture
def bilingual(bench, tiny_chinese_model_dir):
    config = WorkbenchConfig().with_overrides(
        [f"embedding.model={tiny_chinese_model_dir}", "chunking.size=300", "chunking.overlap=30"]
    )
    sources = [Source(name=n, data=t.encode()) for n, t in {**DOCS, **CHINESE_DOCS}.items()]
    report = bench.ingest("mixed", sources, config)
    assert not report.failures
    return bench, config


def test_the_guard_leaves_a_chinese_model_out_of_english_queries(bilingual, tiny_chinese_model_dir):
    bench, config = bilingual
    trace = bench.query("solar panels turn sunlight into electricity", "mixed", config)
    assert trace.language.dense_votes is False
    note = (
        f"dense route left out of fusion: {tiny_chinese_model_dir} covers zh; the query is en. To use it, "
        "pick a model that reads en: all-MiniLM-L6-v2 (bundled) or paraphrase-multilingual-MiniLM-L12-v2 "
        "(471 MB), on the Models page."
    )
    assert note in trace.notes and note in trace.stage("fusion").notes
    # the dense list is still there to look at, but fusion is BM25's order alone
    assert len(trace.stage("dense").ranked) > 0
    assert trace.stage("fusion").ranked.chunk_ids() == trace.stage("bm25").ranked.chunk_ids()
    assert trace.chunks[trace.final.hits[0].chunk_id].source == "solar.md"
    # the dense signal does not count in the verdict either
    assert trace.confidence.signal("dense").used is False


def test_the_same_model_votes_on_chinese_queries(bilingual):
    bench, config = bilingual
    trace = bench.query("光伏电池板把阳光转化为电能", "mixed", config)
    assert trace.language.dense_votes is True and trace.language.note == ""
    dense, bm25 = trace.stage("dense").ranked, trace.stage("bm25").ranked
    assert trace.stage("fusion").ranked.chunk_ids() == rrf([dense, bm25], k=60).chunk_ids()
    assert trace.chunks[trace.final.hits[0].chunk_id].source == "taiyang.md"


def test_guard_off_restores_the_dense_vote(bilingual):
    bench, config = bilingual
    trace = bench.query(
        "solar panels turn sunlight into electricity", "mixed", config.with_overrides(["retrieval.language_guard=off"])
    )
    dense, bm25 = trace.stage("dense").ranked, trace.stage("bm25").ranked
    assert trace.language.dense_votes is True
    assert trace.stage("fusion").ranked.chunk_ids() == rrf([dense, bm25], k=60).chunk_ids()
    assert any("retrieval.language_guard = off" in note for note in trace.notes)


def test_the_trace_json_carries_language_and_confidence(bilingual):
    from workbench.retrieval.trace import Trace

    bench, config = bilingual
    trace = bench.query("solar panels", "mixed", config)
    restored = Trace.from_dict(json.loads(trace.to_json()))
    assert restored.language == trace.language
    assert restored.confidence == trace.confidence


def test_a_pickled_trace_carries_its_measured_verdict(bilingual):
    import pickle

    bench, config = bilingual
    trace = bench.query("光伏电池板", "mixed", config)
    assert callable(trace.confidence_source)  # not measured until read
    restored = pickle.loads(pickle.dumps(trace))
    assert restored.confidence == trace.confidence and restored.language == trace.language


def test_the_command_line_shows_the_guard(bilingual, capsys, tiny_chinese_model_dir):
    from workbench.cli import main

    bench, _config = bilingual
    code = main(
        ["query", "solar panels turn sunlight into electricity", "-c", "mixed", "--home", str(bench.home), "--json"]
    )
    assert code == 0
    trace = json.loads(capsys.readouterr().out)
    assert trace["language"]["dense_votes"] is False
    assert trace["language"]["embedding"] == {
        "model": str(tiny_chinese_model_dir),
        "model_languages": "zh",
        "text_language": "en",
        "uncovered_share": 1.0,
        "covered": False,
    }
    assert trace["confidence"]["verdict"] in ("relevant", "ambiguous", "no_answer")
