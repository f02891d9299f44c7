"""MCP client configuration JSON for Claude Desktop and VS Code."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from workbench.mcp_server.client_config import McpLaunch, claude_desktop_config, to_json, venv_python, vscode_config

LAUNCH = McpLaunch(
    home=Path("/data/my home"), preset="hybrid-mmr", python="/opt/rag/.venv/bin/python", project_dir=Path("/opt/rag")
)


def test_claude_desktop_config():
    assert claude_desktop_config(LAUNCH) == {
        "mcpServers": {
            "rag-workbench": {
                "command": "/opt/rag/.venv/bin/python",
                "args": ["-m", "workbench", "mcp", "--home", "/data/my home", "--preset", "hybrid-mmr"],
                "env": {"PYTHONPATH": "/opt/rag", "HF_HUB_OFFLINE": "1"},
            }
        }
    }


def test_vscode_config_names_the_section_servers_and_the_type_stdio():
    server = vscode_config(LAUNCH)["servers"]["rag-workbench"]
    assert server["type"] == "stdio"
    assert server["args"] == ["-m", "workbench", "mcp", "--home", "/data/my home", "--preset", "hybrid-mmr"]


def test_a_pinned_collection_and_server_name():
    launch = McpLaunch(home=Path("/h"), preset="default", collection="papers", python="/p", server_name="papers-kb")
    assert claude_desktop_config(launch)["mcpServers"]["papers-kb"]["args"][-2:] == ["--collection", "papers"]


def test_the_shell_line_quotes_paths_with_spaces():
    assert LAUNCH.command_line() == (
        "PYTHONPATH=/opt/rag HF_HUB_OFFLINE=1 /opt/rag/.venv/bin/python -m workbench mcp "
        "--home '/data/my home' --preset hybrid-mmr"
    )


def test_the_default_command_is_the_running_interpreter_unresolved():
    # a virtualenv's python is a symlink to the base interpreter; resolving it would lose the venv
    assert McpLaunch(home=Path("/h"), preset="default").command() == venv_python() == os.path.abspath(sys.executable)


def test_json_text_round_trips():
    text = to_json(vscode_config(LAUNCH))
    assert text.endswith("}\n") and json.loads(text) == vscode_config(LAUNCH)


def test_llm_env_copies_endpoint_and_model_but_only_a_placeholder_for_the_key():
    from workbench.llm.endpoint import LlmSettings
    from workbench.mcp_server.client_config import llm_env

    assert llm_env(LlmSettings("http://gpu-box:8000/v1", "qwen2.5", api_key="sk-secret")) == {
        "WORKBENCH_LLM_BASE_URL": "http://gpu-box:8000/v1",
        "WORKBENCH_LLM_MODEL": "qwen2.5",
        "WORKBENCH_LLM_API_KEY": "<your API key>",
    }
    assert llm_env(LlmSettings("http://localhost:11434/v1", "llama3")) == {
        "WORKBENCH_LLM_BASE_URL": "http://localhost:11434/v1",
        "WORKBENCH_LLM_MODEL": "llama3",
    }
    assert llm_env(None) == {
        "WORKBENCH_LLM_BASE_URL": "http://localhost:11434/v1",
        "WORKBENCH_LLM_MODEL": "<model name>",
    }
    launch = McpLaunch(home=Path("/h"), preset="llm", python="/p", extra_env=(("WORKBENCH_LLM_MODEL", "llama3"),))
    assert claude_desktop_config(launch)["mcpServers"]["rag-workbench"]["env"]["WORKBENCH_LLM_MODEL"] == "llama3"


def test_the_http_server_command_is_the_stdio_launch_plus_http_and_a_port():
    launch = McpLaunch(home=Path("/data/my home"), preset="kw", python="/p", project_dir=Path("/opt/rag"), port=8800)
    assert launch.http_args() == [*launch.args(), "--http", "--port", "8800"]
    assert launch.http_command_line() == (
        "PYTHONPATH=/opt/rag HF_HUB_OFFLINE=1 /p -m workbench mcp --home '/data/my home' --preset kw --http --port 8800"
    )
    assert launch.http_url == "http://127.0.0.1:8800/mcp"


def test_the_http_client_config_asks_for_the_token_and_never_holds_it():
    from workbench.mcp_server.client_config import claude_code_http_command, vscode_http_config

    assert vscode_http_config(LAUNCH) == {
        "inputs": [
            {"type": "promptString", "id": "workbench-token", "description": "RAG Workbench token", "password": True}
        ],
        "servers": {
            "rag-workbench": {
                "type": "http",
                "url": "http://127.0.0.1:8765/mcp",
                "headers": {"Authorization": "Bearer ${input:workbench-token}"},
            }
        },
    }
    assert claude_code_http_command(LAUNCH) == (
        "claude mcp add --transport http rag-workbench http://127.0.0.1:8765/mcp "
        '--header "Authorization: Bearer $WORKBENCH_TOKEN"'
    )
    open_launch = McpLaunch(home=Path("/h"), preset="default", python="/p", token=False, server_name="my kb")
    assert vscode_http_config(open_launch) == {
        "servers": {"my kb": {"type": "http", "url": "http://127.0.0.1:8765/mcp"}}
    }
    assert claude_code_http_command(open_launch) == "claude mcp add --transport http 'my kb' http://127.0.0.1:8765/mcp"
