"""The MCP server's query path on a collection that lives in Milvus Lite, and a collection whose
Milvus is down: the tool result names the URI and the fix, and the server keeps answering."""

from __future__ import annotations

import socket
import sys

import pytest
from anyio.from_thread import start_blocking_portal
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.workbench.mcp_server.test_mcp_stdio import HANDBOOK, REPO_ROOT, SERVER_ENV, Client


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


DOWN = f"http://127.0.0.1:{_free_port()}"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    """A home with ``handbook`` in Milvus Lite and ``offline`` in a Milvus nobody runs, served
    over stdio once this process has let go of the Milvus Lite file."""
    from store.milvus import MilvusUnavailable
    from workbench.ingestion.ingest import Source
    from workbench.service import Workbench

    home = tmp_path_factory.mktemp("mcp-milvus-home")
    bench = Workbench(home)
    report = bench.ingest(
        "handbook",
        [Source.from_markdown(name, text) for name, text in HANDBOOK.items()],
        bench.config_for(None, overrides=["index.backend=milvus"]),
    )
    assert not report.failures, report.summary()
    with pytest.raises(MilvusUnavailable):
        bench.ingest(
            "offline",
            [Source.from_markdown("note.md", "# Note\n\nKettles boil water.\n")],
            bench.config_for(None, overrides=["index.backend=milvus", f"milvus.uri={DOWN}", "milvus.timeout_s=2"]),
        )
    bench.release_backends()  # Milvus Lite serves one process: the server's

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "workbench", "mcp", "--home", str(home)], cwd=str(REPO_ROOT), env=SERVER_ENV
    )
    log_path = tmp_path_factory.mktemp("mcp-milvus-log") / "server.log"
    with log_path.open("w") as errlog, start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(stdio_client(params, errlog=errlog)) as (read, write):
            with portal.wrap_async_context_manager(ClientSession(read, write, read_timeout_seconds=120)) as session:
                portal.call(session.initialize)
                yield Client(portal, session)
    print("server log:\n" + log_path.read_text())


def test_query_knowledge_hub_on_milvus_returns_marked_passages_and_citations(client: Client):
    result = client.ok(
        "query_knowledge_hub", query="how do I descale a kettle with vinegar", top_k=3, collection="handbook"
    )
    data, markdown = result.structured_content, result.content[0].text
    citations = data["citations"]
    assert data["collection"] == "handbook" and 1 <= len(citations) <= 3
    top = citations[0]
    assert top["source"] == "kettle.md" and "vinegar" in top["text"]
    assert [c["score"] for c in citations] == sorted((c["score"] for c in citations), reverse=True)
    assert f"[1] **{top['source']}" in markdown

    keyword = client.ok("search_by_keyword", query="citric acid", top_k=2, collection="handbook").structured_content
    assert keyword["mode"] == "bm25" and keyword["citations"][0]["source"] == "kettle.md"
    assert keyword["citations"][0]["score"] > 0  # Milvus Lite's negated distance comes back as a positive score
    semantic = client.ok(
        "search_by_semantic", query="keeping a bike drivetrain running smoothly", top_k=2, collection="handbook"
    ).structured_content
    assert semantic["mode"] == "dense" and semantic["citations"][0]["source"] == "bicycle.md"


def test_a_collection_whose_milvus_is_down_is_a_tool_error_and_the_server_keeps_answering(client: Client):
    message = client.error("query_knowledge_hub", query="kettle", collection="offline")
    assert f"Milvus at {DOWN} is unavailable" in message and "docker compose up -d" in message
    listed = client.ok("list_collections").structured_content["collections"]
    assert {entry["name"]: entry["backend"] for entry in listed} == {
        "handbook": "milvus (indexes/milvus.db)",
        "offline": f"milvus ({DOWN})",
    }
    again = client.ok("search_by_keyword", query="sourdough starter", top_k=1, collection="handbook")
    assert again.structured_content["citations"][0]["source"] == "sourdough.md"
