"""The real MCP server, started as ``python -m workbench mcp`` and driven over stdio.

One home is built per module with the real MiniLM model; one server process serves every test
through the SDK's stdio client (run on a blocking portal, so the tests stay synchronous). A raw
subprocess checks what the SDK client cannot send: lines that are not valid JSON-RPC.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import CallToolResult

REPO_ROOT = Path(__file__).resolve().parents[3]
SERVER_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(REPO_ROOT)}
TOOLS = {
    "query_knowledge_hub",
    "search_by_keyword",
    "search_by_semantic",
    "list_collections",
    "get_document_summary",
    "list_document_sections",
    "get_chunk",
}

KETTLE = """# Kettle descaling

Limescale builds up inside a kettle in hard-water areas and slows boiling.

## Vinegar method

Fill the kettle halfway with equal parts white vinegar and water, bring it to the boil and leave
it to soak for an hour before rinsing twice with fresh water.

## Citric acid method

Dissolve two tablespoons of citric acid powder in water, boil the solution, and pour it away.
"""
HANDBOOK = {
    "kettle.md": KETTLE,
    "bicycle.md": "# Bicycle chain care\n\n## Cleaning\n\nScrub the chain and cassette with degreaser and "
    "a stiff brush.\n\n## Lubrication\n\nApply one drop of chain oil per link, then wipe off "
    "the excess so the drivetrain does not attract grit.\n",
    "sourdough.md": "# Sourdough starter\n\nFeed the starter daily with equal weights of rye flour and water "
    "and keep it at room temperature until it doubles.\n",
    "tomatoes.md": "# Growing tomatoes\n\nPlant tomato seedlings deep, water at the base, and pinch out side "
    "shoots so the plant puts its energy into fruit.\n",
    "backups.md": "# Laptop backups\n\n## The 3-2-1 rule\n\nKeep three copies of your files on two kinds of "
    "storage, with one copy off site.\n",
    "manual.md": "# Field manual\n\n"
    + "\n\n".join(
        f"## Part {part}\n\n"
        + " ".join(f"Step {part}.{step}: inspect the {noun} and note its condition in the log." for step in range(16))
        for part, noun in enumerate(["valve", "gasket", "pump", "filter"], start=1)
    )
    + "\n",
}
NOTES = {"glossary.md": "# Glossary\n\nZanzibarite is a fictional blue mineral used in these notes as an example.\n"}
NEW_DOCUMENT = "# Airship notes\n\nThe quokkaflux regulator keeps the airship envelope at constant pressure.\n"


@dataclass
class Client:
    """Synchronous calls into one MCP session that lives on a portal's event loop."""

    portal: BlockingPortal
    session: ClientSession
    output_schemas: dict[str, dict] = field(default_factory=dict)

    def call(self, tool: str, **arguments) -> CallToolResult:
        return self.portal.call(self.session.call_tool, tool, arguments)

    def ok(self, tool: str, **arguments) -> CallToolResult:
        """Call a tool that must succeed; check its structured result against its output schema."""
        result = self.call(tool, **arguments)
        assert not result.is_error, result.content[0].text
        if not self.output_schemas:
            listed = self.portal.call(self.session.list_tools).tools
            self.output_schemas.update({listed_tool.name: listed_tool.output_schema for listed_tool in listed})
        jsonschema.validate(result.structured_content, self.output_schemas[tool])
        return result

    def error(self, tool: str, **arguments) -> str:
        result = self.call(tool, **arguments)
        assert result.is_error, f"{tool}({arguments}) should have failed"
        return result.content[0].text


@pytest.fixture(scope="module")
def home_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mcp-home")


@pytest.fixture(scope="module")
def server(home_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """The server, started on a still-empty home: it loads its model while the home is built."""
    log_path = tmp_path_factory.mktemp("mcp-log") / "server.log"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "workbench", "mcp", "--home", str(home_dir), "--collection", "handbook"],
        cwd=str(REPO_ROOT),
        env=SERVER_ENV,
    )
    with log_path.open("w") as errlog, start_blocking_portal() as portal:
        started = time.perf_counter()
        with portal.wrap_async_context_manager(stdio_client(params, errlog=errlog)) as (read, write):
            with portal.wrap_async_context_manager(ClientSession(read, write, read_timeout_seconds=120)) as session:
                portal.call(session.initialize)
                print(f"initialize round trip (spawn included): {time.perf_counter() - started:.2f} s")
                yield Client(portal, session)
    print("server log:\n" + log_path.read_text())


@pytest.fixture(scope="module")
def client(server: Client, home_dir: Path) -> Client:
    """The running server, once the home holds two collections (written by this process)."""
    from workbench.ingestion.ingest import Source
    from workbench.service import Workbench

    bench = Workbench(home_dir)
    for collection, documents in (("handbook", HANDBOOK), ("notes", NOTES)):
        report = bench.ingest(collection, [Source.from_markdown(name, text) for name, text in documents.items()])
        assert not report.failures, report.summary()
    return server


@pytest.fixture(scope="module")
def home(client: Client, home_dir: Path) -> Path:
    return home_dir


def test_tools_declare_descriptions_bounded_inputs_and_output_schemas(client: Client):
    tools = {tool.name: tool for tool in client.portal.call(client.session.list_tools).tools}

    assert set(tools) == TOOLS
    for tool in tools.values():
        assert len(tool.description) > 80, tool.name
        assert tool.output_schema["type"] == "object", tool.name
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
    top_k = tools["query_knowledge_hub"].input_schema["properties"]["top_k"]
    # the configuration's range for retrieval.top_k, published as JSON schema
    assert (top_k["minimum"], top_k["maximum"], top_k["default"]) == (1, 1000, 5)
    assert tools["query_knowledge_hub"].input_schema["required"] == ["query"]
    neighbors = tools["get_chunk"].input_schema["properties"]["neighbors"]
    assert (neighbors["minimum"], neighbors["maximum"], neighbors["default"]) == (0, 5, 0)
    assert set(tools["query_knowledge_hub"].output_schema["required"]) >= {"query", "collection", "preset", "citations"}
    for name in ("query_knowledge_hub", "search_by_keyword", "search_by_semantic"):
        minimum = tools[name].input_schema["properties"]["min_confidence"]
        assert minimum["enum"] == ["no_answer", "ambiguous", "relevant", None]
        assert "confidence" in tools[name].output_schema["properties"]


def test_documents_are_listed_and_readable_as_markdown_resources(client: Client):
    listed = client.portal.call(client.session.list_resources).resources
    by_name = {resource.name: resource for resource in listed}
    templates = client.portal.call(client.session.list_resource_templates).resource_templates

    assert set(by_name) == set(HANDBOOK) | set(NOTES)
    assert [t.uri_template for t in templates] == ["workbench://{collection}/{doc_id}"]
    kettle = by_name["kettle.md"]
    assert str(kettle.uri).startswith("workbench://handbook/") and kettle.mime_type == "text/markdown"
    contents = client.portal.call(client.session.read_resource, kettle.uri).contents
    assert contents[0].text == KETTLE
    by_file_name = client.portal.call(client.session.read_resource, "workbench://notes/glossary.md").contents
    assert by_file_name[0].text == NOTES["glossary.md"]


def test_query_knowledge_hub_returns_marked_passages_and_matching_citations(client: Client):
    result = client.ok("query_knowledge_hub", query="how do I descale a kettle with vinegar", top_k=3)
    data, markdown = result.structured_content, result.content[0].text

    assert (data["query"], data["collection"], data["preset"]) == (
        "how do I descale a kettle with vinegar",
        "handbook",
        "default",
    )
    citations = data["citations"]
    assert 1 <= len(citations) <= 3
    assert [c["id"] for c in citations] == list(range(1, len(citations) + 1))
    top = citations[0]
    assert top["source"] == "kettle.md" and top["heading_path"][0] == "Kettle descaling"
    assert "vinegar" in top["text"] and top["page"] is None
    assert [c["score"] for c in citations] == sorted((c["score"] for c in citations), reverse=True)
    for citation in citations:
        assert f"[{citation['id']}] **{citation['source']}" in markdown
        assert f"[{citation['id']}] {citation['source']}" in markdown.split("Sources:", 1)[1]
    assert top["text"].splitlines()[0] in markdown


def test_keyword_and_semantic_search_use_one_route_each(client: Client):
    keyword = client.ok("search_by_keyword", query="citric acid", top_k=2).structured_content
    semantic = client.ok(
        "search_by_semantic", query="keeping a bike drivetrain running smoothly", top_k=2
    ).structured_content

    assert keyword["mode"] == "bm25" and keyword["citations"][0]["source"] == "kettle.md"
    assert keyword["citations"][0]["score"] > 0
    assert semantic["mode"] == "dense" and semantic["citations"][0]["source"] == "bicycle.md"
    assert 0 < semantic["citations"][0]["score"] <= 1.0


def test_search_results_carry_the_confidence_verdict_and_its_evidence(client: Client):
    for tool, arguments in (
        ("query_knowledge_hub", {"query": "how do I descale a kettle with vinegar"}),
        ("search_by_keyword", {"query": "citric acid kettle"}),
        ("search_by_semantic", {"query": "removing limescale from a kettle"}),
    ):
        data = client.ok(tool, top_k=3, **arguments).structured_content
        confidence = data["confidence"]
        assert confidence["verdict"] in ("relevant", "ambiguous"), (tool, confidence)
        assert [e["signal"] for e in confidence["evidence"]] == ["terms", "dense", "rerank"]
        assert not any(c["low_confidence"] for c in data["citations"])
    keyword = client.ok("search_by_keyword", query="citric acid kettle", top_k=3).structured_content
    assert {e["signal"]: e["used"] for e in keyword["confidence"]["evidence"]} == {
        "terms": True,
        "dense": False,
        "rerank": False,
    }


def test_a_chinese_question_on_an_english_collection_is_not_presented_as_answered(client: Client):
    result = client.ok("query_knowledge_hub", query="咖啡机应该怎样除垢？", top_k=3)
    data, markdown = result.structured_content, result.content[0].text
    assert data["confidence"]["verdict"] == "no_answer"
    assert markdown.startswith("No passage in collection `handbook` looks relevant to “咖啡机应该怎样除垢？”")
    assert "dense route left out of fusion: all-MiniLM-L6-v2 covers en; the query is zh." in markdown


def test_off_topic_candidates_follow_marked_low_confidence(client: Client):
    query = "who won the football world cup final in 2014"
    result = client.ok("query_knowledge_hub", query=query, top_k=3)
    data, markdown = result.structured_content, result.content[0].text
    assert data["confidence"]["verdict"] == "no_answer", data["confidence"]
    assert markdown.startswith(f"No passage in collection `handbook` looks relevant to “{query}”")
    assert data["citations"] and all(c["low_confidence"] for c in data["citations"])
    assert "[1] (LOW CONFIDENCE) **" in markdown

    dropped = client.ok("query_knowledge_hub", query=query, top_k=3, min_confidence="ambiguous")
    assert dropped.structured_content["citations"] == []
    assert dropped.structured_content["withheld"] == len(data["citations"])
    assert dropped.content[0].text.startswith("No passage in collection `handbook` looks relevant")
    assert f"{len(data['citations'])} passage" in dropped.content[0].text
    kept = client.ok("query_knowledge_hub", query="descale a kettle with vinegar", min_confidence="ambiguous")
    assert kept.structured_content["citations"] and kept.structured_content["withheld"] == 0
    assert client.error("search_by_keyword", query="kettle", min_confidence="sure") == (
        "min_confidence must be one of no_answer, ambiguous, relevant (or omitted); got 'sure'"
    )


def test_the_server_refuses_to_start_with_a_model_that_is_not_here(tmp_path: Path):
    started = time.perf_counter()
    finished = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench",
            "mcp",
            "--home",
            str(tmp_path / "home"),
            "--set",
            "embedding.model=BAAI/bge-small-zh-v1.5",
        ],
        cwd=REPO_ROOT,
        env={**os.environ, **SERVER_ENV, "HF_HUB_CACHE": str(tmp_path / "hub")},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode == 2 and finished.stdout == ""
    assert finished.stderr.strip().splitlines()[-1] == (
        "error: embedding model 'BAAI/bge-small-zh-v1.5' is not available offline: it must be downloaded once "
        f"while online (about 96 MB). It will be cached in {tmp_path / 'hub'}. Download it with: "
        "python -m workbench models download BAAI/bge-small-zh-v1.5"
    )
    print(f"refused in {time.perf_counter() - started:.2f} s")


def test_collection_argument_searches_another_collection(client: Client):
    data = client.ok("query_knowledge_hub", query="blue mineral", collection="notes").structured_content

    assert data["collection"] == "notes"
    assert {c["source"] for c in data["citations"]} == {"glossary.md"}


def test_list_collections_reports_counts_model_and_default(client: Client):
    data = client.ok("list_collections").structured_content
    entries = {entry["name"]: entry for entry in data["collections"]}

    assert data["default_collection"] == "handbook"
    assert entries["notes"]["documents"] == 1 and entries["notes"]["chunks"] == 1
    assert entries["handbook"]["documents"] >= len(HANDBOOK)
    assert entries["handbook"]["embedding_model"] == "all-MiniLM-L6-v2"
    assert entries["handbook"]["default_preset"] == "default"


def test_document_summary_by_file_name_and_by_id(client: Client):
    by_name = client.ok("get_document_summary", doc_id="kettle.md").structured_content
    by_id = client.ok("get_document_summary", doc_id=by_name["doc_id"]).structured_content

    assert by_id == by_name
    assert by_name["title"] == "Kettle descaling" and by_name["collection"] == "handbook"
    assert [(h["level"], h["title"]) for h in by_name["outline"]] == [
        (1, "Kettle descaling"),
        (2, "Vinegar method"),
        (2, "Citric acid method"),
    ]
    assert by_name["excerpt"].startswith("# Kettle descaling") and len(by_name["excerpt"]) <= 501
    assert by_name["size_bytes"] == len(KETTLE.encode()) and by_name["chunk_count"] >= 1
    assert by_name["resource_uri"] == f"workbench://handbook/{by_name['doc_id']}"


def test_sections_and_chunk_navigation(client: Client):
    sections = client.ok("list_document_sections", doc_id="manual.md").structured_content["sections"]

    assert [s["title"] for s in sections] == ["Field manual", "Part 1", "Part 2", "Part 3", "Part 4"]
    assert sections[2]["heading_path"] == ["Field manual", "Part 2"]
    chunk_ids = sorted({cid for s in sections for cid in s["chunk_ids"]})
    assert len(chunk_ids) >= 3, "the manual should span several chunks"

    middle = chunk_ids[1]
    data = client.ok("get_chunk", chunk_id=middle, neighbors=1).structured_content
    assert data["chunk"]["chunk_id"] == middle and data["source"] == "manual.md"
    assert [c["chunk_id"] for c in data["before"]] == [chunk_ids[0]]
    assert [c["chunk_id"] for c in data["after"]] == [chunk_ids[2]]
    assert data["before"][0]["ordinal"] + 1 == data["chunk"]["ordinal"] == data["after"][0]["ordinal"] - 1
    alone = client.ok("get_chunk", chunk_id=middle).structured_content
    assert (alone["before"], alone["after"], alone["chunk"]) == ([], [], data["chunk"])


def test_bad_inputs_come_back_as_tool_errors_and_the_server_keeps_answering(client: Client):
    assert "collection 'nowhere' not found; known: handbook, notes" in client.error(
        "query_knowledge_hub", query="kettle", collection="nowhere"
    )
    assert "document 'missing.pdf' not found" in client.error("get_document_summary", doc_id="missing.pdf")
    assert "document '424242' not found" in client.error("list_document_sections", doc_id=424242)
    assert "chunk 987654 not found" in client.error("get_chunk", chunk_id=987654)
    assert "query is empty" in client.error("query_knowledge_hub", query="   ")
    assert (
        client.error("query_knowledge_hub", query="kettle", top_k=0)
        == "top_k: 0 is below the minimum 1 (default 5); allowed: 1 to 1000"
    )
    assert (
        client.error("search_by_keyword", query="kettle", top_k=5000)
        == "top_k: 5000 is above the maximum 1000 (default 5); allowed: 1 to 1000"
    )
    assert (
        client.error("get_chunk", chunk_id=1, neighbors=6)
        == "neighbors: 6 is above the maximum 5 (default 0); allowed: 0 to 5"
    )
    assert "preset 'turbo' not found" in client.error("query_knowledge_hub", query="kettle", preset="turbo")

    assert client.ok("list_collections").structured_content["default_collection"] == "handbook"


def test_unreadable_and_malformed_requests_get_json_rpc_errors(home: Path):
    process = subprocess.Popen(
        [sys.executable, "-m", "workbench", "mcp", "--home", str(home), "--collection", "handbook"],
        cwd=REPO_ROOT,
        env={**os.environ, **SERVER_ENV},
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )

    def send(line) -> None:
        process.stdin.write((line if isinstance(line, str) else json.dumps(line)) + "\n")
        process.stdin.flush()

    def answer() -> dict:
        return json.loads(process.stdout.readline())

    def error_answer() -> tuple:
        reply = answer()
        return reply["id"], reply["error"]["code"]

    try:
        started = time.perf_counter()
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"},
                },
            }
        )
        assert answer()["result"]["serverInfo"]["name"] == "rag-workbench"
        print(f"initialize round trip (spawn included): {time.perf_counter() - started:.2f} s")
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})

        send("{this is not json")
        assert error_answer() == (None, -32700)
        send({"jsonrpc": "2.0", "id": 2, "method": 5})
        assert error_answer() == (2, -32600)
        send({"jsonrpc": "2.0", "id": 3, "method": "no/such/method"})
        assert error_answer() == (3, -32601)
        send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"arguments": {}}})
        assert error_answer() == (4, -32602)
        send({"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {"uri": "workbench://handbook/999999"}})
        assert error_answer() == (5, -32602)

        send(
            {"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "list_collections", "arguments": {}}}
        )
        still_answering = answer()
        assert still_answering["id"] == 6 and still_answering["result"]["isError"] is False
    finally:
        process.stdin.close()
        exit_code = process.wait(timeout=30)
    assert exit_code == 0  # a clean exit even if the warm-up thread was still loading the model


def test_a_document_ingested_by_another_process_becomes_searchable(client: Client, home: Path, tmp_path: Path):
    new_file = tmp_path / "airship.md"
    new_file.write_text(NEW_DOCUMENT, encoding="utf-8")
    ingest = subprocess.Popen(
        [sys.executable, "-m", "workbench", "ingest", str(new_file), "--collection", "handbook", "--home", str(home)],
        cwd=REPO_ROOT,
        env={**os.environ, **SERVER_ENV},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    queries_during_ingest = 0
    while ingest.poll() is None:
        result = client.call("query_knowledge_hub", query="kettle vinegar", top_k=2)
        assert not result.is_error, result.content[0].text  # never a lock error while the writer works
        queries_during_ingest += 1
        time.sleep(0.2)  # a reader's pace: back to back, the queries starve the writer on 2 cores
    output = ingest.stdout.read()
    assert ingest.returncode == 0, output
    print(f"{queries_during_ingest} queries answered while the other process ingested")

    ingest_done, sources = time.monotonic(), set()
    while time.monotonic() < ingest_done + 30:
        data = client.ok("query_knowledge_hub", query="quokkaflux regulator", top_k=3).structured_content
        sources = {c["source"] for c in data["citations"]}
        if "airship.md" in sources:
            break
        time.sleep(0.5)
    assert "airship.md" in sources, f"not searchable within 30 s; got {sources}"
    print(f"searchable {time.monotonic() - ingest_done:.2f} s after the ingest process exited")
    assert queries_during_ingest >= 1


def test_mcp_queries_show_in_the_query_log(client: Client, home: Path, capsys):
    from workbench.cli import main

    asked = ["kettle vinegar soak", "chain oil per link", "rye flour starter", "tomato side shoots", "三二一备份"]
    for text in asked:
        client.ok("query_knowledge_hub", query=text, top_k=2)
    assert main(["log", "list", "--home", str(home), "--source", "mcp", "--json", "--limit", "1000"]) == 0
    logged = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert set(asked) <= {entry["query"] for entry in logged}
    mine = [entry for entry in logged if entry["query"] in asked]
    assert all(entry["collection"] == "handbook" and len(entry["chunks"]) <= 2 for entry in mine)
