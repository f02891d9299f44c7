"""Who may reach the HTTP MCP server: the token, Origin, a wide bind, read-only, the ingest root."""

from __future__ import annotations

import json
import logging
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.workbench.mcp_server.http_fixtures import connect, http_server
from tests.workbench.tuning_fixtures import lexicon_template, tune_embedder  # noqa: F401
from workbench.cli import main
from workbench.mcp_server.http import http_settings
from workbench.service.sharing import SharingError

TOKEN = "s3cret-token-for-the-mcp-tests-0123456789"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


def post(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    request = urllib.request.Request(
        url,
        data=json.dumps(INITIALIZE).encode(),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **(headers or {}),
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.fixture(scope="module")
def home(tmp_path_factory, lexicon_template) -> Path:  # noqa: F811
    copy = tmp_path_factory.mktemp("mcp-http-security") / "home"
    shutil.copytree(lexicon_template, copy)
    return copy


def test_the_token_is_required_checked_and_never_logged(home, caplog):
    caplog.set_level(logging.DEBUG)
    with http_server(home, token=TOKEN) as server:
        status, body = post(server.url)
        assert status == 401
        assert "no token" in body and "Authorization: Bearer <token>" in body and "WORKBENCH_TOKEN" in body
        status, body = post(server.url, {"Authorization": "Bearer not-the-token-at-all-000000"})
        assert status == 401 and "wrong token" in body
        status, _ = post(server.url, {"Authorization": f"Basic {TOKEN}"})
        assert status == 401
        status, body = post(server.url, {"Authorization": f"Bearer {TOKEN}"})
        assert status == 200 and '"serverInfo"' in body
        with connect(server.url, token=TOKEN) as client:
            hit = client.call_tool("search_by_keyword", {"query": "zq07hx river", "collection": "lex"})
            assert not hit.is_error and hit.structured_content["citations"][0]["source"] == "note-07.md"
    assert "refused a request: wrong token" in caplog.text  # the log was captured...
    assert TOKEN not in caplog.text  # ...and holds no token


def test_a_wide_bind_without_a_token_refuses_to_start(capsys):
    with pytest.raises(SharingError, match="--host 0.0.0.0 listens beyond this machine.*WORKBENCH_TOKEN"):
        http_settings(host="0.0.0.0", env={})
    with pytest.raises(SharingError, match="use at least 16"):
        http_settings(host="0.0.0.0", env={"WORKBENCH_TOKEN": "short"})
    assert http_settings(host="0.0.0.0", env={"WORKBENCH_TOKEN": TOKEN}).token == TOKEN
    assert TOKEN not in repr(http_settings(host="0.0.0.0", env={"WORKBENCH_TOKEN": TOKEN}))
    code = main(["mcp", "--http", "--host", "192.0.2.10", "--home", "/nonexistent-home"])
    assert code == 2 and "listens beyond this machine" in capsys.readouterr().err
    assert main(["mcp", "--read-only"]) == 2 and "apply to the HTTP server only; add --http" in capsys.readouterr().err


def test_a_foreign_origin_is_refused_and_this_machines_allowed(home):
    with http_server(home) as server:
        status, body = post(server.url, {"Origin": "http://evil.example"})
        assert status == 403 and "origin http://evil.example" in body and "--allow-origin" in body
        status, _ = post(server.url, {"Origin": f"http://localhost:{server.settings.port}"})
        assert status == 200
        status, _ = post(server.url, {"Host": "evil.example"})  # DNS rebinding by Host: the SDK's check
        assert status == 421


def test_read_only_hides_and_refuses_every_tool_that_writes(home, tmp_path):
    with http_server(home, read_only=True, ingest_root=tmp_path) as server, connect(server.url) as client:
        names = {tool.name for tool in client.list_tools().tools}
        assert {"evaluate", "check", "compare_runs", "list_runs", "query_knowledge_hub"} <= names
        assert not names & {"save_preset", "ingest", "tune"}
        refused = client.call_tool("save_preset", {"name": "x", "settings": ["retrieval.mode=bm25"]})
        assert refused.is_error and "Unknown tool" in refused.content[0].text
        refused = client.call_tool("ingest", {"paths": ["a.md"], "collection": "lex"})
        assert refused.is_error and "Unknown tool" in refused.content[0].text
        evaluated = client.call_tool("evaluate", {"collection": "lex", "golden": "codes"})
        assert not evaluated.is_error and evaluated.structured_content["run_id"] is None  # nothing stored


def test_ingest_reads_under_its_root_only(home, tmp_path):
    root = tmp_path / "inbox"
    root.mkdir()
    (root / "airship.md").write_text("# Airship\n\nThe quokkaflux regulator keeps the envelope at pressure.\n")
    (tmp_path / "secret.md").write_text("# Secret\n\nnot for the server\n")
    (root / "link.md").symlink_to(tmp_path / "secret.md")
    with http_server(home, ingest_root=root) as server, connect(server.url) as client:
        for outside in ("../secret.md", str(tmp_path / "secret.md"), "link.md"):
            refused = client.call_tool("ingest", {"paths": [outside], "collection": "lex"})
            assert refused.is_error and "outside the ingest root" in refused.content[0].text, outside
        done = client.call_tool("ingest", {"paths": ["airship.md"], "collection": "lex"})
        assert not done.is_error, done.content[0].text
        assert done.structured_content["files"] == 1 and "1 new" in done.structured_content["summary"]
        hit = client.call_tool("search_by_keyword", {"query": "quokkaflux", "collection": "lex"})
        assert hit.structured_content["citations"][0]["source"] == "airship.md"


def test_the_real_servers_log_holds_no_token(home, tmp_path):
    """``python -m workbench mcp --http`` as a process: its whole stderr (start-up lines, uvicorn's
    access log, refusals) after good and bad requests."""
    import os
    import subprocess
    import sys
    import time

    from tests.workbench.mcp_server.http_fixtures import free_port

    port = free_port()
    env = {**os.environ, "WORKBENCH_TOKEN": TOKEN, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    log_path = tmp_path / "server.log"
    with log_path.open("w") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "workbench", "mcp", "--http", "--port", str(port), "--home", str(home)],
            stderr=log,
            stdout=log,
            env=env,
        )
        try:
            url = f"http://127.0.0.1:{port}/mcp"
            deadline = time.monotonic() + 60
            while "Uvicorn running" not in log_path.read_text():
                assert server.poll() is None and time.monotonic() < deadline, log_path.read_text()
                time.sleep(0.1)
            assert post(url)[0] == 401
            assert post(url, {"Authorization": f"Bearer {TOKEN[:-1]}x"})[0] == 401
            assert post(f"{url}?token={TOKEN}")[0] == 401  # a token in the URL is not accepted
            assert post(url, {"Authorization": f"Bearer {TOKEN}"})[0] == 200
        finally:
            server.terminate()
            server.wait(30)
    text = log_path.read_text()
    assert "token required" in text and "POST /mcp" in text and "refused a request: wrong token" in text
    assert TOKEN not in text and TOKEN[:-1] not in text
