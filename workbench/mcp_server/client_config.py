"""MCP client configuration for serving a workbench home and preset over stdio, or over streamable HTTP.

The server is ``python -m workbench mcp --home HOME --preset PRESET [--collection C]``. The
client starts it with this project's virtualenv Python by absolute path (so the right packages
load whatever the client's PATH is) and with the project folder on ``PYTHONPATH`` (so
``-m workbench`` resolves from any working directory: neither Claude Desktop nor VS Code's
``mcp.json`` lets a stdio server set its working directory). ``HF_HUB_OFFLINE=1`` keeps the
server's model loading from reaching the Hub: it loads what is on disk, as the app does.

Over HTTP the server is started once by hand (``http_command_line``: ``mcp --http``, loopback
only by default) and clients connect to its URL (``http_client_config``); a server on another
address needs ``WORKBENCH_TOKEN``, which the client sends as a bearer token: the configuration
holds a placeholder for it, never the token.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from workbench.llm.endpoint import API_KEY_VARS, BASE_URL_VARS, MODEL_VAR, LlmSettings
from workbench.mcp_server.http import DEFAULT_HOST, DEFAULT_PORT, MCP_PATH
from workbench.service.sharing import TOKEN_VAR

PROJECT_DIR = Path(__file__).resolve().parents[2]
DEFAULT_SERVER_NAME = "rag-workbench"

#: where each client reads its configuration (shown next to the JSON)
CLAUDE_DESKTOP_CONFIG_FILES = {
    "macOS": "~/Library/Application Support/Claude/claude_desktop_config.json",
    "Windows": "%APPDATA%\\Claude\\claude_desktop_config.json",
}
VSCODE_CONFIG_FILE = ".vscode/mcp.json in your workspace (or MCP: Open User Configuration)"
#: a configuration is shown on screen and saved to files: the key itself is never copied into it
API_KEY_PLACEHOLDER = "<your API key>"
EXAMPLE_BASE_URL = "http://localhost:11434/v1"
MODEL_PLACEHOLDER = "<model name>"


def venv_python() -> str:
    """The running interpreter's path, absolute but not resolved: resolving a virtualenv's
    ``python`` symlink would point at the base interpreter, which lacks the project's packages."""
    return str(Path(sys.executable).absolute())


@dataclass(frozen=True)
class McpLaunch:
    home: Path
    preset: str
    collection: str | None = None
    python: str = ""  # "" = the running interpreter
    project_dir: Path = PROJECT_DIR
    server_name: str = DEFAULT_SERVER_NAME
    #: more environment for the server, e.g. ``llm_env``'s endpoint settings
    extra_env: tuple[tuple[str, str], ...] = ()

    def command(self) -> str:
        return self.python or venv_python()

    def args(self) -> list[str]:
        args = ["-m", "workbench", "mcp", "--home", str(Path(self.home).absolute()), "--preset", self.preset]
        if self.collection:
            args += ["--collection", self.collection]
        return args

    def env(self) -> dict[str, str]:
        return {"PYTHONPATH": str(Path(self.project_dir).absolute()), "HF_HUB_OFFLINE": "1", **dict(self.extra_env)}

    def command_line(self, http: bool = False, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> str:
        """The same launch as one shell line, for trying the server by hand (``http``: the
        streamable HTTP server on ``host:port``, which stays running for clients to connect to)."""
        import shlex

        env = " ".join(f"{key}={shlex.quote(value)}" for key, value in self.env().items())
        args = self.args() + (["--http", "--host", host, "--port", str(port)] if http else [])
        return f"{env} {shlex.quote(self.command())} " + " ".join(shlex.quote(a) for a in args)


def llm_env(settings: LlmSettings | None) -> dict[str, str]:
    """The endpoint settings a server needs when its preset uses the LLM: this machine's endpoint and
    model, or placeholders to fill in; an API key only ever as a placeholder."""
    if settings is None:
        return {BASE_URL_VARS[0]: EXAMPLE_BASE_URL, MODEL_VAR: MODEL_PLACEHOLDER}
    env = {BASE_URL_VARS[0]: settings.base_url, MODEL_VAR: settings.model}
    if settings.api_key:
        env[API_KEY_VARS[0]] = API_KEY_PLACEHOLDER
    return env


def claude_desktop_config(launch: McpLaunch) -> dict:
    """The ``claude_desktop_config.json`` content (merge its ``mcpServers`` entry into yours)."""
    return {
        "mcpServers": {launch.server_name: {"command": launch.command(), "args": launch.args(), "env": launch.env()}}
    }


def vscode_config(launch: McpLaunch) -> dict:
    """The ``.vscode/mcp.json`` content: VS Code names the section ``servers`` and wants a type."""
    return {
        "servers": {
            launch.server_name: {
                "type": "stdio",
                "command": launch.command(),
                "args": launch.args(),
                "env": launch.env(),
            }
        }
    }


def http_url(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> str:
    return f"http://{host}:{port}{MCP_PATH}"


def http_client_config(launch: McpLaunch, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> dict:
    """The ``.vscode/mcp.json`` content for the server ``launch.command_line(http=True)`` started:
    its URL, and on an address other than loopback the bearer token's placeholder."""
    server: dict = {"type": "http", "url": http_url(host, port)}
    if host not in ("127.0.0.1", "localhost", "::1"):
        server["headers"] = {"Authorization": f"Bearer ${{env:{TOKEN_VAR}}}"}
    return {"servers": {launch.server_name: server}}


def to_json(config: dict) -> str:
    return json.dumps(config, indent=2, ensure_ascii=False) + "\n"
