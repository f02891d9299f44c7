"""MCP client configuration for serving a workbench home and preset, over stdio and over HTTP.

The server is ``python -m workbench mcp --home HOME --preset PRESET [--collection C]``. The
client starts it with this project's virtualenv Python by absolute path (so the right packages
load whatever the client's PATH is) and with the project folder on ``PYTHONPATH`` (so
``-m workbench`` resolves from any working directory: neither Claude Desktop nor VS Code's
``mcp.json`` lets a stdio server set its working directory). ``HF_HUB_OFFLINE=1`` keeps the
server's model loading from reaching the Hub: it loads what is on disk, as the app does.

Over HTTP the client does not start the server: the user runs ``http_command_line`` (the same
launch plus ``--http --port P``), and the client connects to ``http_url``. With a token, the
server reads it from ``WORKBENCH_TOKEN`` in the shell that starts it, and the client sends it as
``Authorization: Bearer <token>``: VS Code asks for it once (a password input, kept in its secret
store), so the token is written in neither the configuration nor this page (docs/mcp.md).
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
#: the VS Code input the HTTP configuration asks the token with: ``${input:workbench-token}``
TOKEN_INPUT_ID = "workbench-token"
TOKEN_INPUT = "${input:" + TOKEN_INPUT_ID + "}"


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
    #: over HTTP: the port the server listens on (on this machine only) and whether it needs a token
    port: int = DEFAULT_PORT
    token: bool = True

    def command(self) -> str:
        return self.python or venv_python()

    def args(self) -> list[str]:
        args = ["-m", "workbench", "mcp", "--home", str(Path(self.home).absolute()), "--preset", self.preset]
        if self.collection:
            args += ["--collection", self.collection]
        return args

    def env(self) -> dict[str, str]:
        return {"PYTHONPATH": str(Path(self.project_dir).absolute()), "HF_HUB_OFFLINE": "1", **dict(self.extra_env)}

    def command_line(self) -> str:
        """The same launch as one shell line, for trying the server by hand."""
        return _shell_line(self.env(), [self.command(), *self.args()])

    def http_args(self) -> list[str]:
        return [*self.args(), "--http", "--port", str(self.port)]

    def http_command_line(self) -> str:
        """The shell line that starts the HTTP server (it reads ``WORKBENCH_TOKEN`` from the shell)."""
        return _shell_line(self.env(), [self.command(), *self.http_args()])

    @property
    def http_url(self) -> str:
        return f"http://{DEFAULT_HOST}:{self.port}{MCP_PATH}"

    def http_headers(self) -> dict[str, str]:
        """The headers a client sends: the token, as VS Code's input fills it in."""
        return {"Authorization": f"Bearer {TOKEN_INPUT}"} if self.token else {}


def _shell_line(env: dict[str, str], command: list[str]) -> str:
    import shlex

    return " ".join([*(f"{key}={shlex.quote(value)}" for key, value in env.items()), *map(shlex.quote, command)])


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


def vscode_http_config(launch: McpLaunch) -> dict:
    """``.vscode/mcp.json`` for the HTTP server: its URL and, with a token, the header VS Code fills
    in from a password input it asks once."""
    server: dict = {"type": "http", "url": launch.http_url}
    if not launch.token:
        return {"servers": {launch.server_name: server}}
    token_input = {"type": "promptString", "id": TOKEN_INPUT_ID, "description": "RAG Workbench token", "password": True}
    return {"inputs": [token_input], "servers": {launch.server_name: {**server, "headers": launch.http_headers()}}}


def claude_code_http_command(launch: McpLaunch) -> str:
    """Claude Code's one line for the HTTP server; the token comes from the shell's ``WORKBENCH_TOKEN``."""
    import shlex

    header = f' --header "Authorization: Bearer ${TOKEN_VAR}"' if launch.token else ""
    return f"claude mcp add --transport http {shlex.quote(launch.server_name)} {launch.http_url}{header}"


def to_json(config: dict) -> str:
    return json.dumps(config, indent=2, ensure_ascii=False) + "\n"
