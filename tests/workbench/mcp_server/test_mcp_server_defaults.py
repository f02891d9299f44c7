"""Issue 48: every tool takes the server's --collection and --preset when a call leaves them out,
errors name tool arguments (not CLI flags), check and evaluate take `level`, an unknown argument
is refused by name, and a keyword search does not wait for the embedding model's warm-up.

The lexicon home (``tests/workbench/tuning_fixtures.py``) plus a second collection, ``other``, so
that "the only collection" no longer decides, and the BM25-only preset ``kw``: on the golden set
``codes`` BM25 ranks every query's note first and the collection's default (hybrid) does not.
"""

from __future__ import annotations

import random
import shutil
import threading
from pathlib import Path

import pytest

from tests.workbench.mcp_server.http_fixtures import connect, http_server
from tests.workbench.tuning_fixtures import lexicon_template, note_text, tune_config, tune_embedder  # noqa: F401
from workbench.mcp_server.defaults import ServerDefaults
from workbench.mcp_server.task_client import TasksClient

KW = {"retrieval.mode": "bm25"}


@pytest.fixture(scope="module")
def home(tmp_path_factory, lexicon_template) -> Path:  # noqa: F811
    from workbench.ingestion.ingest import Source
    from workbench.service import Workbench

    copy = tmp_path_factory.mktemp("mcp-defaults") / "home"
    shutil.copytree(lexicon_template, copy)
    bench = Workbench(copy)
    rng = random.Random(3)
    notes = [Source.from_markdown(f"other-{n}.md", note_text(100 + n, rng)) for n in range(3)]
    assert not bench.ingest("other", notes, tune_config()).failures
    bench.save_preset("kw", KW, "BM25 only")
    return copy


@pytest.fixture(scope="module")
def pinned(home):
    """Started as ``mcp --http --collection lex --preset kw``."""
    with http_server(home, defaults=ServerDefaults(collection="lex", preset="kw")) as running:
        yield running


@pytest.fixture(scope="module")
def unpinned(home):
    """Started without --collection on a home of two collections."""
    with http_server(home) as running:
        yield running


def ok(client, tool: str, arguments: dict) -> dict:
    result = client.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    return result.structured_content


def error(client, tool: str, arguments: dict) -> str:
    result = client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    return result.content[0].text


def test_evaluate_scores_what_query_knowledge_hub_serves(pinned, home):
    from workbench.evaluation import golden as golden_sets
    from workbench.evaluation.runner import evaluate_collection
    from workbench.service import Workbench

    with connect(pinned.url) as client:
        served = ok(client, "query_knowledge_hub", {"query": "zq07hx river"})
        scored = ok(client, "evaluate", {"golden": "codes", "metrics": "ndcg@10"})
        hybrid = ok(client, "evaluate", {"golden": "codes", "metrics": "ndcg@10", "preset": "default"})
    assert (served["collection"], served["preset"], served["mode"]) == ("lex", "kw", "bm25")
    assert (scored["collection"], scored["mode"], scored["queries"]) == ("lex", "bm25", 60)
    bench = Workbench(home)
    direct = evaluate_collection(
        bench, "lex", golden_sets.find("codes", home), bench.config_for("lex", "kw"), metric_names=("ndcg@10",)
    )
    assert scored["metrics"][0]["mean"] == pytest.approx(direct.metrics["ndcg@10"])
    assert hybrid["mode"] == "hybrid"  # the collection's default, named


def test_check_takes_the_servers_preset_and_a_level(pinned):
    with connect(pinned.url) as client:
        bm25 = ok(client, "evaluate", {"golden": "codes", "metrics": "ndcg@10", "level": "doc"})
        checked = ok(client, "check", {"baseline": "default", "golden": "codes", "level": "doc"})
        assert checked["candidate"] == pytest.approx(bm25["metrics"][0]["mean"])  # preset kw, unnamed
        assert "`max_drop=0.01`" in checked["reason"] and "--" not in checked["reason"]
        stored = ok(client, "check", {"baseline": str(bm25["run_id"]), "golden": "codes", "level": "span"})
        assert stored["exit_code"] == 2  # a doc-level run is no baseline at span level; said in tool terms
        assert 'pass `level="doc"`' in stored["reason"] and "--" not in stored["reason"], stored["reason"]
        assert error(client, "evaluate", {"golden": "codes", "level": "chunk"}) == (
            "level must be one of doc, span (default: the level the golden set was judged at); got 'chunk'"
        )


def test_tune_starts_from_the_servers_collection_and_preset(pinned, home):
    from workbench.service import Workbench

    with connect(pinned.url) as client:
        tuned = ok(client, "tune", {"golden": "codes", "keys": "retrieval.candidates", "trials": 2, "study": "from-kw"})
        assert tuned["report"]["collection"] == "lex"
        saved = ok(client, "save_preset", {"name": "kw-tuned", "study": "from-kw", "force": True})
    assert saved["saved"]
    preset = next(p for p in Workbench(home).presets() if p.name == "kw-tuned")
    assert preset.provenance["based_on"] == "preset kw"
    assert preset.overrides["retrieval.mode"] == "bm25"  # the starting preset's keys are kept


def test_synthesize_uses_the_servers_collection(pinned, unpinned, no_llm):
    with connect(pinned.url, extensions=[TasksClient()]) as client:
        pinned_error = error(client, "synthesize_golden_set", {"out": "written", "n": 3})
    assert "WORKBENCH_LLM_BASE_URL" in pinned_error and "collections" not in pinned_error
    with connect(unpinned.url, extensions=[TasksClient()]) as client:
        unpinned_error = error(client, "synthesize_golden_set", {"out": "written", "n": 3})
    assert unpinned_error == "this home has 2 collections (lex, other); pick one with the `collection` argument"


def test_errors_name_tool_arguments_not_flags(unpinned):
    with connect(unpinned.url) as client:
        pick = "this home has 2 collections (lex, other); pick one with the `collection` argument"
        assert error(client, "evaluate", {"golden": "codes"}) == pick
        assert error(client, "tune", {"golden": "codes", "trials": 2}) == pick
        unpicked = ok(client, "check", {"baseline": "default", "preset": "kw"})
        assert (unpicked["exit_code"], unpicked["reason"]) == (2, pick)  # check's "cannot compare" status
        no_preset = ok(client, "check", {"baseline": "default", "collection": "lex", "golden": "codes"})
        assert (
            no_preset["reason"] == "check needs the `preset` argument: the configuration to test against the baseline"
        )
        resumed = error(
            client,
            "tune",
            {"collection": "lex", "golden": "codes", "keys": "fusion.k", "trials": 2, "study": "x", "resume": True},
        )
        assert resumed.startswith("no study 'x' to resume") and "--" not in resumed
        ok(client, "tune", {"collection": "lex", "golden": "codes", "keys": "fusion.k", "trials": 1, "study": "twice"})
        again = error(
            client, "tune", {"collection": "lex", "golden": "codes", "keys": "fusion.k", "trials": 1, "study": "twice"}
        )
        assert "add `resume=true` to continue it, or the `study` argument to start another" in again, again
        assert "--" not in again


def test_unknown_arguments_are_refused_by_name(unpinned):
    with connect(unpinned.url) as client:
        refused = error(client, "check", {"baseline": "default", "preset": "kw", "levl": "span"})
        assert refused == (
            "unknown argument 'levl' for tool 'check'; known: alpha, baseline, collection, golden, "
            "held_out_only, level, max_drop, metric, permutations, preset"
        )
        assert error(client, "query_knowledge_hub", {"query": "zq07hx", "topk": 3, "colection": "lex"}) == (
            "unknown arguments 'topk', 'colection' for tool 'query_knowledge_hub'; known: collection, "
            "min_confidence, preset, query, top_k"
        )
        assert error(client, "list_golden_sets", {"golden": "codes"}) == (
            "unknown argument 'golden' for tool 'list_golden_sets'; known: none (call it without arguments)"
        )


def test_a_keyword_search_does_not_wait_for_the_warm_up_of_the_model(home, tune_embedder):  # noqa: F811
    """The warm-up loads the indexes, then encodes with the model under the pipeline's lock; a
    BM25 search answers while that encoding is still running (it ran after it before)."""
    from workbench.mcp_server.tools import KnowledgeHub
    from workbench.service import Workbench

    hub = KnowledgeHub(Workbench(home), ServerDefaults(collection="lex", preset="kw"))
    encoding, release = threading.Event(), threading.Event()
    embed = tune_embedder.embed

    def slow_first_encoding(texts):
        if texts == ["warm-up"]:
            encoding.set()
            assert release.wait(60), "the test never released the warm-up"
        return embed(texts)

    tune_embedder.embed = slow_first_encoding
    warm = threading.Thread(target=hub.warm_up, daemon=True)
    try:
        warm.start()
        assert encoding.wait(60), "the warm-up did not reach the model"
        answered: list = []
        search = threading.Thread(target=lambda: answered.append(hub.query_knowledge_hub("zq07hx river", 3)))
        search.start()
        search.join(60)
        assert answered, "the BM25 search waited for the model's warm-up"
        citations = answered[0].result.citations
        assert answered[0].result.mode == "bm25" and citations[0].source == "note-07.md"
    finally:
        release.set()
        warm.join(60)
        tune_embedder.embed = embed
