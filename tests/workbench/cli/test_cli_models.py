"""The model catalogue on the command line, and a model that is not on this machine.

A catalogue model that is not in the Hugging Face cache must stop a command before it writes
anything, with one line that names the model, says it must be downloaded once while online,
where it will be cached, and the command that does it.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import FAKE_MODEL
from workbench.cli import main


@pytest.fixture
def empty_hub_cache(tmp_path, monkeypatch):
    from huggingface_hub import constants

    cache = tmp_path / "hub-cache"
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    return cache


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _expected_error(name: str, size: str, cache) -> str:
    return (
        f"error: embedding model '{name}' is not available offline: it must be downloaded once while online "
        f"(about {size}). It will be cached in {cache}. Download it with: "
        f"python -m workbench models download {name}\n"
    )


def test_models_lists_the_catalogue_and_what_is_here(capsys, empty_hub_cache, tmp_path):
    code, out, _ = _run(capsys, "models", "--home", tmp_path / "home")
    assert code == 0
    assert "all-MiniLM-L6-v2" in out and "bundled" in out
    assert "BAAI/bge-small-zh-v1.5" in out and "not downloaded" in out
    assert "cross-encoder/ms-marco-MiniLM-L-6-v2" in out
    assert f"downloaded models live in {empty_hub_cache}" in out
    code, out, _ = _run(capsys, "models", "--json", "--home", tmp_path / "home")
    listed = {entry["name"]: entry for entry in json.loads(out)}
    assert listed["all-MiniLM-L6-v2"]["available"] is True
    assert listed["intfloat/multilingual-e5-small"]["available"] is False
    assert listed["intfloat/multilingual-e5-small"]["query_prefix"] == "query: "


def test_models_download_needs_a_name(capsys, tmp_path):
    code, _, err = _run(capsys, "models", "download", "--home", tmp_path / "home")
    assert code == 2 and "name the model to download" in err


def test_ingest_with_an_uncached_model_changes_nothing(capsys, empty_hub_cache, tmp_path, fake_embedder):
    home = tmp_path / "home"
    doc = tmp_path / "note.md"
    doc.write_text("# 笔记\n\n检索增强生成把检索和生成结合起来。\n", encoding="utf-8")
    assert _run(capsys, "ingest", doc, "-c", "kept", "--home", home, "--set", f"embedding.model={FAKE_MODEL}")[0] == 0

    def state():
        from workbench.service import Workbench

        bench = Workbench(home)
        return (
            [(i.name, i.documents, i.chunks, i.config) for i in bench.collections()],
            sorted(p.relative_to(home).as_posix() for p in home.rglob("*") if "catalog.duckdb" not in p.name),
        )

    before = state()
    code, out, err = _run(
        capsys, "ingest", doc, "-c", "chinese", "--home", home, "--set", "embedding.model=BAAI/bge-small-zh-v1.5"
    )
    assert code == 2 and out == ""
    assert err == _expected_error("BAAI/bge-small-zh-v1.5", "96 MB", empty_hub_cache)
    assert state() == before  # no collection, no document, no index file


def test_query_with_an_uncached_reranker_names_the_download(capsys, empty_hub_cache, tmp_path, fake_embedder):
    home = tmp_path / "home"
    doc = tmp_path / "note.md"
    doc.write_text("# Note\n\nHybrid search fuses BM25 and dense rankings.\n", encoding="utf-8")
    _run(capsys, "ingest", doc, "-c", "notes", "--home", home, "--set", f"embedding.model={FAKE_MODEL}")
    code, out, err = _run(
        capsys, "query", "hybrid search", "-c", "notes", "--home", home, "--set", "rerank.model=BAAI/bge-reranker-base"
    )
    assert code == 2 and out == ""
    assert err.startswith("error: rerank model 'BAAI/bge-reranker-base' is not available offline")
    assert "python -m workbench models download BAAI/bge-reranker-base" in err


def test_mcp_refuses_to_start_with_an_uncached_model(capsys, empty_hub_cache, tmp_path):
    code, out, err = _run(capsys, "mcp", "--home", tmp_path / "home", "--set", "embedding.model=BAAI/bge-m3")
    assert code == 2 and out == ""
    assert err == _expected_error("BAAI/bge-m3", "2.3 GB", empty_hub_cache)
