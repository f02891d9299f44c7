"""Presets & MCP: save the current configuration as a named preset, and get the exact MCP client
configuration that serves this home and preset to Claude Desktop or VS Code (stdio), or the command
that serves it over HTTP and the configuration that connects to it."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.config import DEFAULT_PRESET, overrides_between
from workbench.mcp_server.client_config import (
    CLAUDE_DESKTOP_CONFIG_FILES,
    DEFAULT_SERVER_NAME,
    VSCODE_CONFIG_FILE,
    McpLaunch,
    claude_desktop_config,
    llm_env,
    to_json,
    vscode_config,
)
from workbench.mcp_server.http import DEFAULT_PORT
from workbench.retrieval.llm_cost import endpoint_uses
from workbench.service.sharing import TOKEN_VAR
from workbench.text import preset_label
from workbench.ui import session
from workbench.ui.access import hidden_in_read_only
from workbench.ui.mcp_snippets import http_panel
from workbench.ui.preset_record import preset_record_view
from workbench.ui.text import md_escape
from workbench.ui.widgets import config_editor, require_collection

#: the confirmation of the preset just saved, shown beside the button on the next run
SAVED_KEY = "preset_saved_note"


def preset_editor(collection: str, preset: str) -> None:
    st.subheader("Current configuration")
    st.caption(
        f"Collection **{md_escape(collection)}** with preset **{md_escape(preset)}**. Change any value, "
        "then save the result as a preset. Query-time keys apply instantly; index-time keys (chunking, "
        "model, index build) get their chunks and indexes built the first time the preset is used."
    )
    edited = config_editor(session.current_config(), prefix=f"preset_editor.{collection}.{preset}")
    base = session.current_config(collection, DEFAULT_PRESET)
    overrides = overrides_between(base, edited.config)
    st.markdown("**What the preset stores** (the keys that differ from the collection's own settings):")
    st.code(
        "\n".join(f"{key}={value}" for key, value in sorted(overrides.items()))
        or "(nothing: the collection's own settings)",
        language=None,
    )

    if hidden_in_read_only("Saving presets"):
        return
    name_column, description_column = st.columns([1, 2])
    name = name_column.text_input(
        "Preset name",
        value="" if preset == DEFAULT_PRESET else preset,
        key=f"preset_save_name.{preset}",
        placeholder="e.g. hybrid-mmr",
    )
    description = description_column.text_input(
        "Description", key="preset_save_description", placeholder="what this configuration is for"
    )
    make_default = st.checkbox(f"Make it the default preset of {md_escape(collection)}", key="preset_make_default")
    button_column, said_column = st.columns([1, 3], vertical_alignment="center")
    if button_column.button("Save preset", key="preset_save", type="primary", icon=":material/save:"):
        with said_column:
            save(collection, name.strip(), description.strip(), overrides, edited.errors, make_default)
    saved = st.session_state.pop(SAVED_KEY, None)
    if saved:  # said beside the button, on the run that shows the saved preset selected
        said_column.success(saved, icon=":material/check:")


def save(collection: str, name: str, description: str, overrides: dict, errors: dict, make_default: bool) -> None:
    if errors:
        st.error(f"Fix {len(errors)} value(s) first: {md_escape(', '.join(errors))}.")
        return
    if not name:
        st.error("Give the preset a name, e.g. hybrid-mmr.")
        return
    if name == DEFAULT_PRESET:
        st.error("“default” always means the built-in defaults; pick another name for this preset.")
        return
    bench = session.workbench()
    bench.save_preset(name, overrides, description)
    if make_default:
        bench.set_default_preset(collection, name)
    session.request_preset(name)
    st.session_state[SAVED_KEY] = f"Saved preset **{md_escape(name)}** ({len(overrides)} settings) and selected it."
    st.rerun()


def preset_table() -> None:
    st.subheader("Saved presets")
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "preset": preset_label(preset.name, preset.forced),
                    "settings": " ".join(f"{key}={value}" for key, value in sorted(preset.overrides.items()))
                    or "(built-in defaults)",
                    "description": preset.description,
                }
                for preset in session.preset_records()
            ]
        ),
        hide_index=True,
        width="stretch",
    )
    preset_record_view(session.preset_records())


def mcp_panel(collection: str, preset: str) -> None:
    st.subheader("Connect an AI assistant over MCP")
    st.caption(
        "Over stdio the assistant starts the workbench's MCP server itself, with this project's Python, and "
        "gets search, document and citation tools over this home with the preset above. Over HTTP you start "
        "the server and the assistant connects to it; it also gets the evaluation loop's tools (evaluate, "
        "tune, check) and runs long ones as tasks."
    )
    name_column, pin_column = st.columns([2, 1])
    server_name = name_column.text_input("Server name", value=DEFAULT_SERVER_NAME, key="mcp_server_name").strip()
    pin = pin_column.checkbox(
        f"Only collection {md_escape(collection)}",
        key="mcp_pin_collection",
        help="Pass --collection so the server searches this collection by default.",
    )
    uses = endpoint_uses(session.current_config())
    llm = session.workbench().llm()
    port_column, token_column = st.columns([1, 2], vertical_alignment="bottom")
    port = port_column.number_input(
        "HTTP port", min_value=1024, max_value=65535, value=DEFAULT_PORT, step=1, key="mcp_http_port"
    )
    token = token_column.checkbox(
        "HTTP: require a token",
        value=True,
        key="mcp_http_token",
        help=f"The server listens on 127.0.0.1, where any user of this machine can reach it; with {TOKEN_VAR} "
        "set, every request must carry it.",
    )
    launch = McpLaunch(
        home=session.home_path(),
        preset=preset,
        collection=collection if pin else None,
        server_name=server_name or DEFAULT_SERVER_NAME,
        extra_env=tuple(llm_env(llm.settings).items()) if uses else (),
        port=int(port),
        token=token,
    )
    if uses:
        source = (
            "this app's endpoint and model"
            if llm.available
            else "placeholders: fill in your endpoint and model (this app has no endpoint configured)"
        )
        st.info(
            f"This preset uses the LLM endpoint ({md_escape(', '.join(uses))}), so the configuration passes "
            f"its settings to the server: {source}. An API key is never copied here; where one is needed, "
            "replace the placeholder with yours.",
            icon=":material/key:",
        )
    claude_tab, vscode_tab, shell_tab, http_tab = st.tabs(["Claude Desktop", "VS Code", "Command line", "HTTP"])
    with claude_tab:
        claude_json = to_json(claude_desktop_config(launch))
        st.code(claude_json, language="json")
        st.caption(
            "Merge the `mcpServers` entry into claude_desktop_config.json ("
            + "; ".join(f"{os}: `{path}`" for os, path in CLAUDE_DESKTOP_CONFIG_FILES.items())
            + "), then restart Claude Desktop."
        )
        st.download_button(
            "Download claude_desktop_config.json",
            claude_json,
            file_name="claude_desktop_config.json",
            mime="application/json",
            key="mcp_download_claude",
        )
    with vscode_tab:
        vscode_json = to_json(vscode_config(launch))
        st.code(vscode_json, language="json")
        st.caption(f"Save as {VSCODE_CONFIG_FILE}; VS Code lists the server under MCP: List Servers.")
        st.download_button(
            "Download mcp.json", vscode_json, file_name="mcp.json", mime="application/json", key="mcp_download_vscode"
        )
    with shell_tab:
        st.code(launch.command_line(), language="bash")
        st.caption("The same server by hand: it speaks MCP over stdin/stdout, so it waits silently for a client.")
    with http_tab:
        http_panel(launch)


st.title("Presets & MCP")
current = require_collection("configure")
chosen_preset = session.current_preset() or DEFAULT_PRESET
preset_editor(current, chosen_preset)
preset_table()
mcp_panel(current, chosen_preset)
