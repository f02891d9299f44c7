"""The evaluation loop over HTTP: tools with schemas, tune as a task (progress, disconnect, result
by id, equal to the CLI's), cancel and resume, and search answers equal to stdio's.

The lexicon home (``tests/workbench/tuning_fixtures.py``): BM25 truly beats dense on ``codes``,
nothing beats anything on ``noise``.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import jsonschema
import pytest

from tests.workbench.mcp_server.http_fixtures import connect, http_server
from tests.workbench.tuning_fixtures import lexicon_template, tune_embedder  # noqa: F401
from workbench.cli import main
from workbench.mcp_server.task_client import TasksClient, cancel_task, get_task, wait_for

SPACE = "retrieval.mode,fusion.k,mmr.enabled,mmr.lambda"
# one holdout: 60 queries would default to 5-fold (tuning.folds_below), six studies instead of one
TUNE = {"collection": "lex", "golden": "codes", "keys": SPACE, "seed": 1, "settings": ["retrieval.mode=dense"]}
TUNE_HOLDOUT = {**TUNE, "holdout": 0.3}


@pytest.fixture(scope="module")
def home(tmp_path_factory, lexicon_template) -> Path:  # noqa: F811
    copy = tmp_path_factory.mktemp("mcp-http-loop") / "home"
    shutil.copytree(lexicon_template, copy)
    return copy


@pytest.fixture(scope="module")
def server(home):
    with http_server(home, collection="lex") as running:
        yield running


@pytest.fixture(scope="module")
def tune_home(tmp_path_factory, lexicon_template) -> Path:  # noqa: F811
    """A home and server of their own, so the server's study starts from the state the CLI's does:
    the hashing embedder's vector of a text depends on its place in the batch (``row %
    dimension``), so query vectors kept from an earlier ``evaluate`` of all 60 queries would score
    the starting configuration slightly differently from the ones ``tune`` embeds in its own batches."""
    copy = tmp_path_factory.mktemp("mcp-http-tune") / "home"
    shutil.copytree(lexicon_template, copy)
    return copy


@pytest.fixture(scope="module")
def tune_server(tune_home):
    with http_server(tune_home, collection="lex") as running:
        yield running


def ok(client, tool: str, arguments: dict) -> dict:
    """A call that must succeed, its structured result valid against the tool's output schema."""
    result = client.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    schema = next(t.output_schema for t in client.list_tools().tools if t.name == tool)
    jsonschema.validate(result.structured_content, schema)
    return result.structured_content


def test_evaluate_compare_check_and_save_as_tools(server, home):
    from workbench.evaluation.intervals import bootstrap_interval
    from workbench.evaluation.runs import load_run
    from workbench.service import Workbench

    with connect(server.url) as client:
        sets = ok(client, "list_golden_sets", {})["golden_sets"]
        assert {(s["name"], s["queries"]) for s in sets} == {("codes", 60), ("noise", 60)}
        progress: list[tuple[float, float | None, str | None]] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append((done, total, message))

        bm25 = client.call_tool(
            "evaluate",
            {"golden": "codes", "settings": ["retrieval.mode=bm25"], "metrics": "ndcg@10"},
            progress_callback=on_progress,
        ).structured_content
        assert progress and progress[-1][:2] == (60, 60)  # notifications/progress on the call's own stream
        dense = ok(client, "evaluate", {"golden": "codes", "settings": ["retrieval.mode=dense"], "metrics": "ndcg@10"})
        stored = load_run(Workbench(home).catalog, bm25["run_id"]).per_query_values("ndcg@10")
        metric = bm25["metrics"][0]
        assert metric["queries"] == 60 == len(stored)
        assert metric["mean"] == pytest.approx(sum(stored.values()) / 60)
        expected = bootstrap_interval(list(stored.values()), seed=0)
        assert (metric["interval"]["low"], metric["interval"]["high"]) == pytest.approx((expected.low, expected.high))
        assert metric["interval"]["low"] <= metric["mean"] <= metric["interval"]["high"]
        assert bm25["per_query_resource"] == f"workbench://runs/{bm25['run_id']}/queries"
        table = json.loads(client.read_resource(bm25["per_query_resource"]).contents[0].text)
        assert (
            len(table["queries"]) == 60 and {q["query_id"]: q["metrics"]["ndcg@10"] for q in table["queries"]} == stored
        )
        document = client.read_resource("workbench://lex/note-07.md").contents[0].text  # documents still resolve
        assert "zq07hx" in document
        missing = client.call_tool("list_runs", {"limit": 1})
        assert not missing.is_error

        compared = ok(client, "compare_runs", {"run_a": dense["run_id"], "run_b": bm25["run_id"], "permutations": 2000})
        assert compared["queries"] == 60 and compared["wins"] > compared["losses"] and compared["p_value"] < 0.05
        listed = ok(client, "list_runs", {"golden": "codes"})["runs"]
        assert {bm25["run_id"], dense["run_id"]} <= {r["run_id"] for r in listed}

        saved = ok(client, "save_preset", {"name": "densy", "settings": ["retrieval.mode=dense"]})
        assert saved["saved"] and saved["settings"] == {"retrieval.mode": "dense"}
        failed = ok(client, "check", {"preset": "densy", "baseline": str(bm25["run_id"]), "golden": "codes"})
        assert (failed["exit_code"], failed["status"], failed["passed"]) == (1, "fail", False)
        assert failed["difference"] == pytest.approx(dense["metrics"][0]["mean"] - metric["mean"])
        problem = ok(client, "check", {"preset": "densy", "baseline": str(bm25["run_id"]), "golden": "noise"})
        assert problem["exit_code"] == 2 and "golden set" in problem["reason"]
        unknown = client.call_tool("compare_runs", {"run_a": 999, "run_b": bm25["run_id"]})
        assert unknown.is_error and "999" in unknown.content[0].text


def _cli_tune(home: Path, capsys, *extra: str) -> dict:
    argv = ["tune", "-c", "lex", "--golden", "codes", "--keys", SPACE, "--seed", "1", "--set", "retrieval.mode=dense"]
    argv += ["--holdout", "0.3"]
    code = main([*argv, *extra, "--json", "--home", str(home)])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def test_tune_runs_as_a_task_another_client_reads_it_and_it_equals_the_cli(tune_server, tune_home, capsys):
    server, home = tune_server, tune_home
    seen: list[str] = []
    with connect(server.url, extensions=[TasksClient()]) as first:
        arguments = {**TUNE_HOLDOUT, "trials": 20, "study": "over-mcp"}
        handle = first.run(lambda: first.client.session.call_tool("tune", arguments, allow_claimed=True))
        assert handle.result_type == "task" and handle.status == "working"
        deadline = time.monotonic() + 60
        while not any("best ndcg@10" in s for s in seen) and time.monotonic() < deadline:
            polled = first.run(get_task, first.client.session, handle.task_id)
            seen.append(polled.status_message or "")
            assert polled.status == "working", polled
            time.sleep(0.05)
    assert any("[holdout, study 1/1] trial" in s and "best ndcg@10" in s for s in seen), seen  # progress
    with connect(server.url, extensions=[TasksClient()]) as second:  # the first client is gone
        state = second.run(wait_for, second.client.session, handle.task_id)
    assert state.status == "completed", state
    result = state.tool_result()
    over_mcp = result.structured_content
    assert over_mcp["trials"] == 20 and over_mcp["trials_resource"] == "workbench://studies/over-mcp/trials"
    assert over_mcp["verdict"] == "better than your current configuration" and over_mcp["interval"]["low"] > 0
    with connect(server.url) as reader:
        trials = json.loads(reader.read_resource(over_mcp["trials_resource"]).contents[0].text)
    assert sum(len(part["trials"]) for part in trials["parts"]) == 20
    cli = _cli_tune(home, capsys, "--trials", "20", "--study", "over-cli")
    report = over_mcp["report"]
    for key in ("held_out", "changes", "split", "space", "studies", "metric", "level"):
        assert report[key] == cli[key], key
    plan, cli_plan = over_mcp["plan"], cli["plan"]  # one function plans for both (issue 47)
    for key in ("level", "split", "queries", "held_out_queries", "base_mean", "saturation", "grow"):
        assert plan[key] == cli_plan[key], key
    assert plan["level"]["level"] == "doc" and plan["held_out_queries"] == 18
    assert [p["winner"] for p in report["parts"]] == [p["winner"] for p in cli["parts"]]
    assert over_mcp["winner"] == cli["changes"] and over_mcp["gain"] == cli["held_out"]["gain"]


def test_a_cancelled_tune_task_ends_cancelled_and_its_study_resumes(tune_server, tune_home, capsys):
    server = tune_server
    with connect(server.url, extensions=[TasksClient()]) as client:
        session = client.client.session
        arguments = {**TUNE_HOLDOUT, "trials": 500, "study": "to-cancel"}
        handle = client.run(lambda: session.call_tool("tune", arguments, allow_claimed=True))
        message = ""
        while "trial 3" not in message:
            polled = client.run(get_task, session, handle.task_id)
            assert polled.status == "working", polled
            message = polled.status_message or ""
            time.sleep(0.05)
        client.run(cancel_task, session, handle.task_id)
        state = client.run(wait_for, session, handle.task_id)
        assert state.status == "cancelled" and state.result is None
        resumed = client.call_tool("tune", {**arguments, "trials": 6, "resume": True})
    assert not resumed.is_error, resumed.content[0].text
    study = resumed.structured_content["report"]["studies"][0]
    assert study["resumed"] >= 3 and study["trials"] >= 6  # completed trials were kept, none repeated
    # the study is the CLI's own: tune --resume continues it, as after a server killed mid-study
    cli = _cli_tune(tune_home, capsys, "--trials", str(study["trials"] + 2), "--study", "to-cancel", "--resume")
    assert cli["studies"][0]["resumed"] == study["trials"] and cli["studies"][0]["trials"] == study["trials"] + 2


def test_chinese_and_unanswerable_questions_answer_over_http_as_over_stdio(server, home):
    from workbench.mcp_server.defaults import ServerDefaults
    from workbench.mcp_server.tools import KnowledgeHub
    from workbench.service import Workbench

    hub = KnowledgeHub(Workbench(home), ServerDefaults(collection="lex"))  # what the stdio server runs
    with connect(server.url) as client:
        for query in ("如何给水壶除垢？", "zq07hx 河流 石头", "the boiling point of liquid helium on Jupiter"):
            over_http = client.call_tool("query_knowledge_hub", {"query": query, "top_k": 3}).structured_content
            direct = hub.query_knowledge_hub(query, 3, None, None, None).result.model_dump(mode="json")
            assert over_http["citations"] == direct["citations"], query
            assert over_http["confidence"]["verdict"] == direct["confidence"]["verdict"], query


def test_synthesizing_a_golden_set_without_an_llm_endpoint_says_what_to_set(server, no_llm):
    with connect(server.url, extensions=[TasksClient()]) as client:
        result = client.call_tool("synthesize_golden_set", {"out": "written", "n": 3})
    assert result.is_error  # as a task too: the task completes with the tool's error result
    assert "golden synth" in result.content[0].text and "WORKBENCH_LLM_BASE_URL" in result.content[0].text
