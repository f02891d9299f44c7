"""Presets & MCP under AppTest: saving a preset, and the MCP client JSON for this home."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from workbench.service import Workbench

PAGE = "app_pages/presets_mcp.py"
PROJECT_DIR = Path(__file__).resolve().parents[2]


def plain(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", re.sub(r"(?<!\\)\*\*", "", markdown))


def json_blocks(app) -> list[dict]:
    return [json.loads(code.value) for code in app.code if code.language == "json"]


def test_save_the_edited_configuration_as_a_preset(demo_home_copy: Path, open_app):
    app = open_app(demo_home_copy, page=PAGE)
    editor = "preset_editor.demo.default"
    # retrieval and fusion start open; a folded section draws nothing until it is opened
    assert not [box for box in app.checkbox if box.key == f"{editor}.mmr.enabled"]
    app.session_state[f"{editor}::mmr"] = True
    app.run()
    app.checkbox(key=f"{editor}.mmr.enabled").check()
    app.number_input(key=f"{editor}.fusion.k").set_value(20).run()
    assert app.code[0].value == "fusion.k=20\nmmr.enabled=True"  # exactly what the preset will store
    app.session_state[f"{editor}::mmr"] = False  # folded again, its edit still stands
    app.run()
    assert not [box for box in app.checkbox if box.key == f"{editor}.mmr.enabled"]
    assert app.code[0].value == "fusion.k=20\nmmr.enabled=True"
    app.text_input(key="preset_save_name.default").input("diverse")
    app.text_input(key="preset_save_description").input("MMR on, sharper RRF")
    app.checkbox(key="preset_make_default").check()
    app.button(key="preset_save").click().run()
    assert not app.exception, app.exception

    assert [plain(s.value) for s in app.success] == ["Saved preset diverse (2 settings) and selected it."]
    assert app.session_state["preset"] == "diverse"
    bench = Workbench(demo_home_copy)
    assert bench.preset_overrides("diverse") == {"fusion.k": 20, "mmr.enabled": True}
    assert bench.collections()[0].default_preset == "diverse"
    table = app.dataframe[0].value
    assert dict(zip(table["preset"], table["settings"], strict=False))["diverse"] == "fusion.k=20 mmr.enabled=True"
    # the editor now starts from the saved preset: nothing left to store beyond it
    app.session_state["preset_editor.demo.diverse::mmr"] = True
    app.run()
    assert app.checkbox(key="preset_editor.demo.diverse.mmr.enabled").value is True


def test_a_bad_value_or_name_is_refused_with_the_fix(demo_home: Path, open_app):
    app = open_app(demo_home, page=PAGE)
    app.text_input(key="preset_editor.demo.default.fusion.weights").input("0.5, lots").run()
    assert any("fusion.weights: cannot use '0.5, lots'" in plain(error.value) for error in app.error)
    app.button(key="preset_save").click().run()
    assert any("Fix 1 value(s) first: fusion.weights." in plain(error.value) for error in app.error)

    app.text_input(key="preset_editor.demo.default.fusion.weights").input("0.7, 0.3")
    app.text_input(key="preset_save_name.default").input("default").run()
    app.button(key="preset_save").click().run()
    assert any("“default” always means the built-in defaults" in plain(error.value) for error in app.error)
    assert [preset.name for preset in Workbench(demo_home).presets()] == ["default"]


def test_mcp_json_serves_this_home_and_preset(demo_home: Path, open_app):
    app = open_app(demo_home, page=PAGE)
    assert not app.exception, app.exception
    claude, vscode, http = json_blocks(app)
    server = {
        "command": sys.executable,
        "args": ["-m", "workbench", "mcp", "--home", str(demo_home), "--preset", "default"],
        "env": {"PYTHONPATH": str(PROJECT_DIR), "HF_HUB_OFFLINE": "1"},  # as README shows it
    }
    assert claude == {"mcpServers": {"rag-workbench": server}}
    assert vscode == {"servers": {"rag-workbench": {"type": "stdio", **server}}}
    # over HTTP: the command that starts the same server, and the client that connects with the token
    commands = [code.value for code in app.code if code.language == "bash"]
    assert commands[1] == (
        f"PYTHONPATH={PROJECT_DIR} HF_HUB_OFFLINE=1 {sys.executable} -m workbench mcp --home {demo_home} "
        "--preset default --http --port 8765"
    )
    assert http["servers"]["rag-workbench"] == {
        "type": "http",
        "url": "http://127.0.0.1:8765/mcp",
        "headers": {"Authorization": "Bearer ${input:workbench-token}"},
    }
    app.number_input(key="mcp_http_port").set_value(8801)
    app.checkbox(key="mcp_http_token").uncheck().run()
    assert json_blocks(app)[2] == {"servers": {"rag-workbench": {"type": "http", "url": "http://127.0.0.1:8801/mcp"}}}

    app.checkbox(key="mcp_pin_collection").check()
    app.text_input(key="mcp_server_name").input("papers").run()
    claude, vscode, _http = json_blocks(app)
    assert claude["mcpServers"]["papers"]["args"][-2:] == ["--collection", "demo"]
    assert vscode["servers"]["papers"]["args"] == claude["mcpServers"]["papers"]["args"]


def _llm_preset_home(home: Path) -> None:
    bench = Workbench(home)
    bench.save_preset("llm", {"query.enhance": "multi", "rerank.method": "llm"}, "query enhancement and LLM rerank")
    bench.set_default_preset("demo", "llm")


def test_a_preset_using_the_llm_passes_the_endpoint_but_never_the_key(
    demo_home_copy: Path, open_app, fake_llm, monkeypatch
):
    _llm_preset_home(demo_home_copy)
    monkeypatch.setenv("WORKBENCH_LLM_API_KEY", "sk-very-secret")
    app = open_app(demo_home_copy, page=PAGE)
    assert not app.exception, app.exception
    claude, vscode, _http = json_blocks(app)
    env = claude["mcpServers"]["rag-workbench"]["env"]
    assert env == {
        "PYTHONPATH": str(PROJECT_DIR),
        "HF_HUB_OFFLINE": "1",
        "WORKBENCH_LLM_BASE_URL": fake_llm.base_url,
        "WORKBENCH_LLM_MODEL": "fake-llm",
        "WORKBENCH_LLM_API_KEY": "<your API key>",
    }
    assert vscode["servers"]["rag-workbench"]["env"] == env
    assert claude["mcpServers"]["rag-workbench"]["args"][-2:] == ["--preset", "llm"]
    assert not any("sk-very-secret" in code.value for code in app.code)
    infos = [plain(info.value) for info in app.info]
    assert any(
        text.startswith("This preset uses the LLM endpoint (query.enhance=multi, rerank.method=llm)")
        and "this app's endpoint and model" in text
        for text in infos
    ), infos


def test_without_an_endpoint_a_preset_using_the_llm_gets_placeholders(demo_home_copy: Path, open_app, no_llm):
    _llm_preset_home(demo_home_copy)
    app = open_app(demo_home_copy, page=PAGE)
    claude = json_blocks(app)[0]
    env = claude["mcpServers"]["rag-workbench"]["env"]
    assert env["WORKBENCH_LLM_BASE_URL"] == "http://localhost:11434/v1" and env["WORKBENCH_LLM_MODEL"] == "<model name>"
    assert any("fill in your endpoint and model" in plain(info.value) for info in app.info)


FORCED_DESCRIPTION = (
    "tune demo-demo-d9783613: held-out ndcg@10 +0.0714 [+0.0000, +0.1769] on 7 queries (30% held out, "
    "seed 0); saved with --force although the interval does not lie above zero"
)
FORCED_PROVENANCE = {
    "tool": "tune",
    "study": "demo-demo-d9783613",
    "collection": "demo",
    "golden": "demo",
    "split": {"holdout": 0.3},
    "seed": 0,
    "metric": "ndcg@10",
    "level": "doc",
    "held_out": {
        "metric": "ndcg@10",
        "queries": 7,
        "base": 0.8758,
        "winner": 0.9473,
        "gain": 0.0714,
        "interval": {"low": 0.0, "high": 0.1769, "confidence": 0.95},
        "verdict": "not distinguishable",
    },
    "forced": True,
    "based_on": "default",
    "varied": ["fusion.k", "mmr.enabled"],
    "trials": 40,
}


def test_a_forced_preset_is_marked_wherever_listed_and_its_whole_record_opens(demo_home_copy: Path, open_app):
    bench = Workbench(demo_home_copy)
    bench.save_preset("tuned", {"fusion.k": 20}, FORCED_DESCRIPTION, FORCED_PROVENANCE)
    bench.save_preset("chinese-notes", {"mmr.enabled": True}, "中文笔记的配置")
    app = open_app(demo_home_copy, page=PAGE)
    assert not app.exception, app.exception
    assert "tuned (forced)" in app.sidebar.selectbox(key="preset").options
    assert "chinese-notes" in app.sidebar.selectbox(key="preset").options
    assert "tuned (forced)" in list(app.dataframe[0].value["preset"])

    record = app.selectbox(key="preset_record_pick")
    assert record.value == "tuned" and "tuned (forced)" in record.options  # the tuned one opens first
    assert any(w.value.startswith("Forced: saved with force") for w in app.warning)
    texts = [plain(block.value) for block in app.markdown]
    assert f"Description: {FORCED_DESCRIPTION}" in texts  # whole, not cut
    assert any(
        "Held-out ndcg@10: 0.8758 -> 0.9473, gain +0.0714, 95% interval [+0.0000, +0.1769] over 7 queries: "
        "not distinguishable." in text
        for text in texts
    ), texts
    assert [json.loads(block.value) for block in app.json] == [FORCED_PROVENANCE]

    record.set_value("chinese-notes").run()
    assert "Description: 中文笔记的配置" in [plain(block.value) for block in app.markdown]
    assert any("No provenance: saved by hand" in caption.value for caption in app.caption)
    assert not app.json
