"""What a person pastes to serve a preset over MCP's streamable HTTP: the command that starts the
server and the client configuration that connects to it. The Presets & MCP page and the Tune flow's
saved preset show the same, so a browser test that follows one follows both."""

from __future__ import annotations

import streamlit as st

from workbench.mcp_server.client_config import McpLaunch, claude_code_http_command, to_json, vscode_http_config
from workbench.service.sharing import MIN_TOKEN_CHARS, TOKEN_VAR


def http_panel(launch: McpLaunch, key: str = "mcp_download_http") -> None:
    st.markdown("**1. Start the server** (it serves until you stop it with Ctrl-C):")
    if launch.token:
        st.caption(
            f"First set {TOKEN_VAR} in that shell to a secret of {MIN_TOKEN_CHARS}+ characters, e.g. "
            f"`read -rs {TOKEN_VAR} && export {TOKEN_VAR}` (typed, not echoed, not kept in the shell's history). "
            "It is never written into a configuration."
        )
    st.code(launch.http_command_line(), language="bash")
    st.markdown(f"**2. Connect the assistant** to {launch.http_url}. VS Code (`.vscode/mcp.json`):")
    vscode_json = to_json(vscode_http_config(launch))
    st.code(vscode_json, language="json")
    if launch.token:
        st.caption("VS Code asks for the token once and keeps it in its secret store.")
    st.download_button("Download mcp.json", vscode_json, file_name="mcp.json", mime="application/json", key=key)
    st.markdown("Claude Code:")
    st.code(claude_code_http_command(launch), language="bash")
