"""Issue 48: the Presets & MCP page's client configurations, followed literally, get an answer.

In Chromium, on a copy of the demo home whose default preset is BM25-only (``kw``): the test reads
the snippets off the page, then

- stdio: starts the server as VS Code's ``mcp.json`` says (its command, args and env, from a
  folder outside the project) with the ``mcp`` SDK's client, and asks ``query_knowledge_hub``;
- HTTP: runs the page's server command in a shell (with ``WORKBENCH_TOKEN`` set, as the page asks)
  and connects to the URL of the page's ``mcp.json`` with its headers, the token filled in where
  VS Code would ask for it; a request without the header is refused.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import anyio
import pytest

from tests.browser.app_server import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, NEEDS_CHROMIUM, STEP_S, serve, settle

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not CHROMIUM.exists(), reason=NEEDS_CHROMIUM)]

QUERY = "How does reciprocal rank fusion combine rankings?"
CHINESE_QUERY = "倒数排名融合的分数是怎么计算的？"
TOKEN = "snippet-token-0123456789abcdef"
START_S = 120


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def snippets(demo_home: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The page's snippets, as Chromium shows them, with the HTTP port set to a free one."""
    from playwright.sync_api import expect, sync_playwright

    from workbench.service import Workbench

    home = tmp_path_factory.mktemp("browser-mcp") / "home"
    shutil.copytree(demo_home, home)
    bench = Workbench(home)
    bench.save_preset("kw", {"retrieval.mode": "bm25"}, "keyword search only")
    bench.set_default_preset("demo", "kw")
    port = free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with serve(home, "streamlit-server-mcp-snippets.log") as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{url}/presets_mcp")
        expect(page.get_by_role("heading", name="Presets & MCP")).to_be_visible(timeout=STEP_S * 1000)
        settle(page)
        http_tab = page.get_by_role("tab", name="HTTP")
        expect(http_tab).to_be_visible(timeout=STEP_S * 1000)  # the panel draws after the editor above it
        http_tab.click()
        port_input = page.locator(".st-key-mcp_http_port input")
        port_input.fill(str(port))
        port_input.press("Enter")
        expect(page.get_by_text(f"http://127.0.0.1:{port}/mcp", exact=False).first).to_be_visible(timeout=STEP_S * 1000)
        settle(page)
        page.screenshot(path=str(ARTIFACTS / "mcp-snippets-http.png"), full_page=True)
        texts = [code.text_content() or "" for code in page.locator("[data-testid=stCode] code").all()]
        browser.close()
    blocks = [json.loads(text) for text in texts if text.lstrip().startswith("{")]
    return {
        "stdio": next(b for b in blocks if b.get("servers", {}).get("rag-workbench", {}).get("type") == "stdio"),
        "http": next(b for b in blocks if b.get("servers", {}).get("rag-workbench", {}).get("type") == "http"),
        "http_command": next(text.strip() for text in texts if " --http " in f"{text} "),
        "port": port,
    }


def _status_without_headers(url: str) -> int:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


async def _ask(target, query: str) -> dict:
    from mcp.client.client import Client

    async with Client(target) as client:
        result = await client.call_tool("query_knowledge_hub", {"query": query})
    assert not result.is_error, result.content[0].text
    return result.structured_content


def test_the_stdio_configuration_starts_a_server_that_answers(snippets, tmp_path):
    from mcp.client.stdio import StdioServerParameters

    server = snippets["stdio"]["servers"]["rag-workbench"]
    assert server["args"][-2:] == ["--preset", "kw"]
    parameters = StdioServerParameters(
        command=server["command"], args=server["args"], env=server["env"], cwd=str(tmp_path)
    )
    answer = anyio.run(_ask, parameters, QUERY)
    assert (answer["collection"], answer["preset"], answer["mode"]) == ("demo", "kw", "bm25")
    assert answer["citations"] and "fusion" in answer["citations"][0]["text"].lower()


def test_the_http_command_and_configuration_connect_and_answer(snippets, tmp_path):
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    command, port = snippets["http_command"], snippets["port"]
    assert f"--http --port {port}" in command
    server = snippets["http"]["servers"]["rag-workbench"]
    assert snippets["http"]["inputs"][0]["password"] is True  # the token is asked for, not written
    # the shell the page's command runs in, with WORKBENCH_TOKEN set as the page says
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"} | {"WORKBENCH_TOKEN": TOKEN}
    log = (ARTIFACTS / "mcp-snippets-http-server.log").open("w")
    # a session of its own: the shell and the server it starts are stopped together
    process = subprocess.Popen(
        ["bash", "-c", command], cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        deadline = time.monotonic() + START_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None, f"the server exited: {process.returncode}"
                assert time.monotonic() < deadline, "the HTTP server did not listen"
                time.sleep(0.2)
        headers = {name: value.replace("${input:workbench-token}", TOKEN) for name, value in server["headers"].items()}
        assert _status_without_headers(server["url"]) == 401  # the header is what lets a client in
        transport = streamable_http_client(server["url"], http_client=create_mcp_http_client(headers=headers))
        answer = anyio.run(_ask, transport, QUERY)
        assert (answer["collection"], answer["preset"], answer["mode"]) == ("demo", "kw", "bm25")
        assert answer["citations"] and "fusion" in answer["citations"][0]["text"].lower()
        transport = streamable_http_client(server["url"], http_client=create_mcp_http_client(headers=headers))
        chinese = anyio.run(_ask, transport, CHINESE_QUERY)
        assert chinese["query"] == CHINESE_QUERY and chinese["confidence"]["verdict"] in {"no_answer", "ambiguous"}
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(30)
        log.close()
