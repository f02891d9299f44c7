"""MCP Inspector's CLI (the official TypeScript client) over HTTP: lists the tools and calls
``query_knowledge_hub``, ``evaluate`` and ``tune``.

The Inspector CLI is an npm package. The test uses ``$MCP_INSPECTOR_CLI`` (its ``build/index.js``)
when set, else the copy in ``~/.cache/rag-workbench/mcp-inspector``, installing it there with
npm the first time (a download on a fresh CI machine, once; later runs reuse it). Without node
and npm it is skipped. It speaks the 2025 handshake revision, so it also covers the server's
stateless path for clients older than 2026-07-28.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.workbench.mcp_server.http_fixtures import http_server
from tests.workbench.tuning_fixtures import lexicon_template, tune_embedder  # noqa: F401

INSPECTOR_VERSION = "0.15.0"
CACHE = Path.home() / ".cache" / "rag-workbench" / "mcp-inspector"
ENTRY = Path("node_modules/@modelcontextprotocol/inspector-cli/build/index.js")


def inspector_cli() -> Path:
    given = os.environ.get("MCP_INSPECTOR_CLI")
    if given:
        return Path(given)
    if (CACHE / ENTRY).is_file():
        return CACHE / ENTRY
    if not shutil.which("node") or not shutil.which("npm"):
        pytest.skip("MCP Inspector CLI not available: no node/npm on this machine (set MCP_INSPECTOR_CLI)")
    CACHE.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["npm", "install", "--prefix", str(CACHE), f"@modelcontextprotocol/inspector-cli@{INSPECTOR_VERSION}"],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return CACHE / ENTRY


def inspect(cli: Path, url: str, *arguments: str) -> dict:
    done = subprocess.run(["node", str(cli), url, *arguments], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr + done.stdout
    return json.loads(done.stdout[done.stdout.index("{") :])


def test_the_inspector_cli_lists_the_tools_and_calls_search_evaluate_and_tune(tmp_path, lexicon_template):  # noqa: F811
    cli = inspector_cli()
    home = tmp_path / "home"
    shutil.copytree(lexicon_template, home)
    with http_server(home, collection="lex") as server:
        listed = inspect(cli, server.url, "--method", "tools/list")
        names = {tool["name"] for tool in listed["tools"]}
        assert {"query_knowledge_hub", "evaluate", "tune", "check", "compare_runs", "save_preset"} <= names
        assert all(tool.get("outputSchema") for tool in listed["tools"] if tool["name"] in ("evaluate", "tune"))

        def call(tool: str, *pairs: str) -> dict:
            result = inspect(cli, server.url, "--method", "tools/call", "--tool-name", tool, "--tool-arg", *pairs)
            assert not result.get("isError"), result
            return result["structuredContent"]

        hit = call("query_knowledge_hub", "query=zq07hx river stone", "top_k=3")
        assert hit["collection"] == "lex" and len(hit["citations"]) == 3
        evaluated = call("evaluate", "golden=codes", "metrics=ndcg@10")
        assert evaluated["queries"] == 60 and evaluated["metrics"][0]["queries"] == 60
        tuned = call("tune", "golden=codes", "keys=retrieval.mode", "trials=3", "seed=1", "holdout=0.3")
        assert tuned["trials"] == 3 and tuned["verdict"] is not None
