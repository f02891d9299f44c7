"""The command line, run in-process with the deterministic fake embedder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import FAKE_MODEL
from workbench.cli import main

CORPUS = [
    {"_id": "d1", "title": "Solar panels", "text": "Photovoltaic cells turn sunlight into electricity."},
    {"_id": "d2", "title": "Bread", "text": "Yeast makes the dough rise before baking."},
    {"_id": "d3", "title": "Rivers", "text": "Heavy rain raises rivers until they flood."},
]
QUERIES = [{"_id": "q1", "text": "sunlight electricity"}, {"_id": "q2", "text": "dough yeast"}]


@pytest.fixture
def beir_folder(tmp_path) -> Path:
    folder = tmp_path / "tiny"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in CORPUS))
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUERIES))
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n")
    (folder / "qrels" / "test_spans.jsonl").write_text(
        json.dumps({"query-id": "q1", "corpus-id": "d1", "start": 0, "end": 18, "text": "Photovoltaic cells"}) + "\n"
    )
    return folder


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_import_beir_then_again_does_nothing(beir_folder, tmp_path, capsys, fake_embedder):
    home = tmp_path / "home"
    args = ["import-beir", beir_folder, "--home", home, "--set", f"embedding.model={FAKE_MODEL}"]
    code, out, _ = _run(capsys, *args)
    assert code == 0 and "3 new" in out and "golden set 'tiny': 2 queries, 1 span judgements" in out
    golden_lines = (home / "golden_sets" / "tiny.jsonl").read_text().splitlines()
    first = json.loads(golden_lines[0])
    span = next(item for item in first["relevant"] if "start" in item)
    markdown = "# Solar panels\n\nPhotovoltaic cells turn sunlight into electricity.\n"
    assert markdown[span["start"] : span["end"]] == "Photovoltaic cells"

    embedded = len(fake_embedder.embedded_texts)
    code, out, _ = _run(capsys, *args)
    assert code == 0 and "3 unchanged" in out and "parsed 0" in out and "embedded 0 new chunk texts" in out
    assert len(fake_embedder.embedded_texts) == embedded


def test_eval_json_has_the_documented_shape(beir_folder, tmp_path, capsys, fake_embedder):
    home = tmp_path / "home"
    _run(capsys, "import-beir", beir_folder, "--home", home, "--set", f"embedding.model={FAKE_MODEL}")
    code, out, _ = _run(
        capsys, "eval", "--collection", "tiny", "--home", home, "--json", "--set", "retrieval.mode=bm25"
    )
    assert code == 0
    result = json.loads(out)
    assert set(result["metrics"]) >= {"ndcg@10", "recall@10", "recall@100", "mrr@10", "hit@10"}
    assert result["metrics"]["ndcg@10"] == pytest.approx(1.0)
    assert result["config"]["retrieval"]["mode"] == "bm25"
    assert [q["query_id"] for q in result["per_query"]] == ["q1", "q2"]
    assert result["per_query"][0]["ranked_doc_ids"][0] == "d1"
    assert set(result["per_query"][0]["metrics"]) == set(result["metrics"])


def test_query_json_is_a_trace(beir_folder, tmp_path, capsys, fake_embedder):
    home = tmp_path / "home"
    _run(capsys, "import-beir", beir_folder, "--home", home, "--set", f"embedding.model={FAKE_MODEL}")
    code, out, _ = _run(capsys, "query", "rain and floods", "--collection", "tiny", "--home", home, "--json")
    trace = json.loads(out)
    assert code == 0 and [s["stage"] for s in trace["stages"]] == ["dense", "bm25", "fusion", "final"]
    top = trace["stages"][-1]["ranked"]["hits"][0]["chunk_id"]
    assert trace["chunks"][str(top)]["external_id"] == "d3"


def test_presets_save_and_apply(beir_folder, tmp_path, capsys, fake_embedder):
    home = tmp_path / "home"
    _run(capsys, "import-beir", beir_folder, "--home", home, "--set", f"embedding.model={FAKE_MODEL}")
    code, out, _ = _run(
        capsys, "save-preset", "keywords", "--home", home, "--set", "retrieval.mode=bm25", "--set", "retrieval.top_k=2"
    )
    assert code == 0 and "retrieval.mode=bm25" in out
    code, out, _ = _run(capsys, "presets", "--home", home)
    assert "keywords" in out and "default" in out
    code, out, _ = _run(capsys, "query", "dough", "-c", "tiny", "--home", home, "--preset", "keywords", "--json")
    assert [s["stage"] for s in json.loads(out)["stages"]] == ["bm25", "final"]


def test_errors_name_the_problem_and_the_fix(tmp_path, capsys):
    code, _, err = _run(capsys, "query", "x", "--collection", "missing", "--home", tmp_path / "h")
    assert code == 2 and "collection 'missing' not found; known: none yet" in err
    code, _, err = _run(capsys, "save-preset", "p", "--home", tmp_path / "h", "--set", "retrieval.mode=psychic")
    assert code == 2 and "retrieval.mode: 'psychic' is not one of dense, bm25, hybrid" in err
    code, _, err = _run(capsys, "save-preset", "p", "--home", tmp_path / "h", "--set", "nope=1")
    assert code == 2 and "unknown config key 'nope'" in err


def test_set_refuses_values_outside_the_configured_range(beir_folder, tmp_path, capsys, fake_embedder):
    home = tmp_path / "h"
    _run(capsys, "import-beir", beir_folder, "--home", home, "--set", f"embedding.model={FAKE_MODEL}")
    code, out, err = _run(capsys, "query", "rain", "-c", "tiny", "--home", home, "--set", "retrieval.top_k=5000")
    assert (code, out) == (2, "")
    assert err == "error: retrieval.top_k: 5000 is above the maximum 1000 (default 10); allowed: 1 to 1000\n"
    code, _, err = _run(capsys, "save-preset", "p", "--home", home, "--set", "mmr.lambda=-0.5")
    assert code == 2 and "mmr.lambda: -0.5 is below the minimum 0 (default 0.7); allowed: 0 to 1" in err
    code, _, err = _run(capsys, "sweep", "--collection", "tiny", "--home", home, "--grid", "fusion.k=10,20000")
    assert code == 2 and "fusion.k: 20000 is above the maximum 10000 (default 60); allowed: 0 to 10000" in err


def test_migrate_backend_and_sync_move_a_collection_to_milvus_and_back(beir_folder, tmp_path, capsys, fake_embedder):
    from store.milvus import CONNECTIONS

    home = tmp_path / "h"
    _run(capsys, "import-beir", beir_folder, "--home", home, "--set", f"embedding.model={FAKE_MODEL}")
    embedded = len(fake_embedder.embedded_texts)
    try:
        code, out, _ = _run(capsys, "migrate-backend", "-c", "tiny", "--to", "milvus", "--home", home)
        assert code == 0 and "moved tiny to milvus at indexes/milvus.db: 3 chunks in 1 layout(s)" in out
        assert "removed " + str(home / "indexes" / "tiny") in out
        code, out, _ = _run(capsys, "collections", "--home", home)
        assert "backend=milvus (indexes/milvus.db)" in out
        code, out, _ = _run(capsys, "sync", "-c", "tiny", "--home", home)
        assert code == 0 and "3 chunks at generation" in out and "0 written, 0 removed" in out
        code, out, _ = _run(capsys, "query", "dough yeast", "-c", "tiny", "--home", home, "--json")
        trace = json.loads(out)
        top = trace["stages"][-1]["ranked"]["hits"][0]["chunk_id"]
        assert code == 0 and trace["chunks"][str(top)]["external_id"] == "d2"
        code, out, err = _run(capsys, "migrate-backend", "-c", "tiny", "--to", "milvus", "--home", home)
        assert code == 2 and "collection 'tiny' already lives there (milvus at indexes/milvus.db)" in err
        code, out, _ = _run(capsys, "migrate-backend", "-c", "tiny", "--to", "local", "--home", home)
        assert code == 0 and "moved tiny to local index files" in out and "removed Milvus collection" in out
        # the cache supplied every chunk vector; only the query was embedded
        assert fake_embedder.embedded_texts[embedded:] == ["dough yeast"]
    finally:
        CONNECTIONS.release()


def test_an_unreachable_milvus_is_one_line_with_the_uri_and_the_fix(beir_folder, tmp_path, capsys, fake_embedder):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        down = f"http://127.0.0.1:{probe.getsockname()[1]}"
    home = tmp_path / "h"
    _run(capsys, "import-beir", beir_folder, "--home", home, "--set", f"embedding.model={FAKE_MODEL}")
    code, out, err = _run(capsys, "migrate-backend", "-c", "tiny", "--to", "milvus", "--uri", down, "--home", home)
    assert code == 2 and out == ""
    assert err.startswith(f"error: Milvus at {down} is unavailable: ") and "docker compose up -d" in err
    assert len(err.splitlines()) == 1
    code, out, _ = _run(capsys, "collections", "--home", home)
    assert "backend=local" in out  # a failed move leaves the collection where it was


def test_the_only_collection_needs_no_name_and_several_must_be_named(beir_folder, tmp_path, capsys, fake_embedder):
    home = tmp_path / "home"
    code, _, err = _run(capsys, "query", "sunlight", "--home", home)
    assert code == 2 and err.startswith(
        "error: this home has no collections yet; create one with: python -m workbench ingest FILES --collection NAME"
    )
    _run(capsys, "import-beir", beir_folder, "--home", home, "--set", f"embedding.model={FAKE_MODEL}")
    code, out, _ = _run(capsys, "query", "sunlight electricity", "--home", home, "--set", "retrieval.mode=bm25")
    assert code == 0 and "[d1.md" in out.split("== final")[1].splitlines()[1]
    code, out, _ = _run(capsys, "eval", "--home", home, "--no-store")  # golden set: the collection's name
    assert code == 0 and out.startswith("tiny / tiny: level=doc")

    _run(
        capsys,
        "import-beir",
        beir_folder,
        "--collection",
        "other",
        "--home",
        home,
        "--set",
        f"embedding.model={FAKE_MODEL}",
    )
    for command in (["query", "sunlight"], ["eval"], ["sweep", "--grid", "fusion.k=10,60"], ["calibrate"]):
        code, _, err = _run(capsys, *command, "--home", home)
        assert code == 2, command
        assert err.startswith("error: this home has 2 collections (other, tiny); pick one with --collection NAME"), err
