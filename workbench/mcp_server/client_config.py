"""MCP client configuration for serving a workbench home and preset over stdio.

The server is ``python -m workbench mcp --home HOME --preset PRESET [--collection C]``. The
client starts it with this project's virtualenv Python by absolute path (so the right packages
load whatever the client's PATH is) and with the project folder on ``PYTHONPATH`` (so
``-m workbench`` resolves from any working directory: neither Claude Desktop nor VS Code's
``mcp.json`` lets a stdio server set its working directory).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]
DEFAULT_SERVER_NAME = "rag-workbench"

#: where each client reads its configuration (shown next to the JSON)
CLAUDE_DESKTOP_CONFIG_FILES = {
    "macOS": "~/Library/Application Support/Claude/claude_desktop_config.json",
    "Windows": "%APPDATA%\\Claude\\claude_desktop_config.json",
}
VSCODE_CONFIG_FILE = ".vscode/mcp.json in your workspace (or MCP: Open User Configuration)"


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

    def command(self) -> str:
        return self.python or venv_python()

    def args(self) -> list[str]:
        args = ["-m", "workbench", "mcp", "--home", str(Path(self.home).absolute()), "--preset", self.preset]
        if self.collection:
            args += ["--collection", self.collection]
        return args

    def env(self) -> dict[str, str]:
        return {"PYTHONPATH": str(Path(self.project_dir).absolute())}

    def command_line(self) -> str:
        """The same launch as one shell line, for trying the server by hand."""
        import shlex

        env = " ".join(f"{key}={shlex.quote(value)}" for key, value in self.env().items())
        return f"{env} {shlex.quote(self.command())} " + " ".join(shlex.quote(a) for a in self.args())


def claude_desktop_config(launch: McpLaunch) -> dict:
    """The ``claude_desktop_config.json`` content (merge its ``mcpServers`` entry into yours)."""
    return {"mcpServers": {launch.server_name: {"command": launch.command(), "args": launch.args(),
                                                "env": launch.env()}}}


def vscode_config(launch: McpLaunch) -> dict:
    """The ``.vscode/mcp.json`` content: VS Code names the section ``servers`` and wants a type."""
    return {"servers": {launch.server_name: {"type": "stdio", "command": launch.command(), "args": launch.args(),
                                             "env": launch.env()}}}


def to_json(config: dict) -> str:
    return json.dumps(config, indent=2, ensure_ascii=False) + "\n"
