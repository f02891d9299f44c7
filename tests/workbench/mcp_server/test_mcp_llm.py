"""The LLM stages through the real MCP server (``python -m workbench mcp``, stdio), with a preset
that enables them and the fake OpenAI-compatible endpoint the server process is pointed at."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import jsonschema
import pytest
from anyio.from_thread import start_blocking_portal

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.fake_openai import FakeOpenAI

REPO_ROOT = Path(__file__).resolve().parents[3]
DOCUMENTS = {
    "kettle.md": "# Kettle descaling\n\nLimescale builds up inside a kettle in hard-water areas.\n\n## Vinegar\n\n"
    "Boil equal parts white vinegar and water in the kettle, soak for an hour, rinse twice.\n",
    "bicycle.md": "# Bicycle chain care\n\nScrub the chain with degreaser, then apply one drop of oil per link.\n",
    "茶.md": "# 泡茶\n\n绿茶用八十度的水冲泡，红茶用沸水冲泡。茶叶放入茶壶，浸泡三分钟后倒出。\n",
}
LLM_PRESET = {"query.enhance": "multi", "query.variants": 2, "rerank.method": "llm", "rerank.top_m": 4}


@pytest.fixture(scope="module")
def fake():
    server = FakeOpenAI().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def home(tmp_path_factory, fake) -> Path:
    """A home whose chunks are enriched by the fake endpoint, with the preset ``llm``."""
    from workbench.ingestion.ingest import Source
    from workbench.service import Workbench

    home = tmp_path_factory.mktemp("mcp-llm-home")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in fake.env().items():
            patch.setenv(name, value)
        bench = Workbench(home)
        config = bench.config_for(None).with_overrides(["chunking.enrich=all"])
        report = bench.ingest("handbook", [Source.from_markdown(n, t) for n, t in DOCUMENTS.items()], config)
        assert not report.failures and len(report.llm_calls) >= 3, report.summary()
        bench.save_preset("llm", LLM_PRESET, "query enhancement and LLM rerank")
    return home


@pytest.fixture(scope="module")
def client(home: Path, fake: FakeOpenAI, tmp_path_factory):
    env = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(REPO_ROOT), **fake.env()}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "workbench", "mcp", "--home", str(home)], cwd=str(REPO_ROOT), env=env
    )
    log_path = tmp_path_factory.mktemp("mcp-llm-log") / "server.log"
    with log_path.open("w") as errlog, start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(stdio_client(params, errlog=errlog)) as (read, write):
            with portal.wrap_async_context_manager(ClientSession(read, write, read_timeout_seconds=120)) as session:
                portal.call(session.initialize)
                schemas = {tool.name: tool.output_schema for tool in portal.call(session.list_tools).tools}

                def call(tool: str, **arguments):
                    result = portal.call(session.call_tool, tool, arguments)
                    assert not result.is_error, result.content[0].text
                    jsonschema.validate(result.structured_content, schemas[tool])
                    return result

                yield call
    print("server log:\n" + log_path.read_text())


def test_the_preset_runs_query_enhancement_and_llm_rerank_with_texts_tokens_and_ms(client, fake):
    fake.script(
        "Query: descale a kettle", "remove limescale from a kettle\nkettle cleaning with vinegar", purpose="query.multi"
    )
    result = client("query_knowledge_hub", query="descale a kettle", top_k=2, preset="llm")
    data, markdown = result.structured_content, result.content[0].text
    assert data["preset"] == "llm" and data["citations"][0]["source"] == "kettle.md"
    llm = data["llm"]
    assert llm["query_enhancement"] == "multi"
    assert [v["text"] for v in llm["query_variants"]] == [
        "descale a kettle",
        "remove limescale from a kettle",
        "kettle cleaning with vinegar",
    ]
    stages = [c["stage"] for c in llm["calls"]]
    assert stages == ["query"] + ["rerank"] * 3  # three documents of one chunk each (rerank.top_m is 4)
    assert all(c["prompt_tokens"] > 0 and c["completion_tokens"] > 0 and c["ms"] > 0 for c in llm["calls"])
    assert llm["calls"][0]["reply"] == "remove limescale from a kettle\nkettle cleaning with vinegar"
    assert "Query enhancement (multi) searched with:" in markdown
    assert "- multi 1 (dense+bm25): remove limescale from a kettle" in markdown
    assert "LLM: 4 calls (4 to the endpoint, 0 cached)" in markdown

    before = fake.count()
    again = client("query_knowledge_hub", query="descale a kettle", top_k=2, preset="llm").structured_content
    assert fake.count() == before and again["llm"]["cached_calls"] == 4


def test_chinese_through_the_llm_preset(client):
    data = client("query_knowledge_hub", query="绿茶怎么泡", top_k=1, preset="llm").structured_content
    assert data["citations"][0]["source"] == "茶.md"
    assert [v["origin"] for v in data["llm"]["query_variants"]] == ["query", "multi 1", "multi 2"]


def test_get_chunk_shows_the_enrichment(client):
    cited = client("query_knowledge_hub", query="bicycle chain oil", top_k=1).structured_content["citations"][0]
    result = client("get_chunk", chunk_id=cited["chunk_id"])
    enrichment = result.structured_content["chunk"]["enrichment"]
    assert enrichment["title"].startswith("Bicycle chain care")
    assert enrichment["summary"] and enrichment["tags"]
    assert "LLM enrichment: title: Bicycle chain care" in result.content[0].text


def test_single_route_tools_leave_the_llm_stages_out(client, fake):
    before = fake.count()
    data = client("search_by_keyword", query="vinegar kettle", top_k=2).structured_content
    assert data["llm"] is None and fake.count() == before


def test_a_failing_endpoint_keeps_the_order_and_says_so(client, fake):
    plain = client("query_knowledge_hub", query="soak the kettle in vinegar", top_k=2).structured_content
    fake.behaviour = "garbage"
    try:
        result = client("query_knowledge_hub", query="soak the kettle in vinegar", top_k=2, preset="llm")
    finally:
        fake.behaviour = "ok"
    data, markdown = result.structured_content, result.content[0].text
    assert [c["chunk_id"] for c in data["citations"]] == [c["chunk_id"] for c in plain["citations"]]
    assert "_Note: query enhancement (multi) fell back to the query as typed: unusable reply" in markdown
    assert "_Note: rerank fell back to the previous order ('fusion')" in markdown
    assert not any(c["ok"] for c in data["llm"]["calls"])
