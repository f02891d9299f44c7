"""kill -9 between the catalog commit and the Milvus push, then ``sync``: Milvus holds exactly the
catalog's chunk ids again (missing rows pushed, orphans deleted), with nothing re-embedded."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from store import documents as stored_documents
from store.catalog import Catalog
from store.milvus import CONNECTIONS, MilvusCollection
from workbench.backends.milvus.place import milvus_target
from workbench.cli import main as workbench_cli
from workbench.layout import Layout
from workbench.service import Workbench

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]
TOPICS = ["glacier", "volcano", "harbour", "orchard", "comet", "canyon", "lagoon", "prairie", "tundra", "reef"]
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}


def _notes(folder: Path, numbers: range) -> Path:
    folder.mkdir(parents=True)
    for number in numbers:
        topic = TOPICS[number % len(TOPICS)]
        (folder / f"note-{number:04d}.md").write_text(f"# Note {number}\n\nNote {number} is about the {topic}.\n")
    return folder


def _catalog_chunk_ids(home: Path) -> list[int]:
    with duckdb.connect(str(home / "catalog.duckdb"), read_only=True) as con:
        return [
            row[0]
            for row in con.execute(
                "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.status = 'success'"
                " ORDER BY c.id"
            ).fetchall()
        ]


def _milvus_ids(home: Path) -> list[int]:
    bench = Workbench(home)
    uri, name = milvus_target(home, "kb", Layout.of(bench.reach(bench.config_for("kb"))))
    try:
        return MilvusCollection.open(uri, name).ids().tolist()
    finally:
        CONNECTIONS.release(uri)  # the next subprocess opens the Lite file


def test_kill_9_between_catalog_commit_and_milvus_push_then_sync_repairs(tmp_path):
    home = tmp_path / "home"
    cli = [sys.executable, "-m", "workbench"]
    options = ["-c", "kb", "--home", str(home), "--set", "index.backend=milvus", "--set", "milvus.batch_size=4"]
    # the first ingest is the command's, in this process: a subprocess would pay once more for the
    # interpreter, the imports and the model (the kill below needs a process of its own)
    assert workbench_cli(["ingest", str(_notes(tmp_path / "first", range(0, 24))), *options]) == 0
    assert _milvus_ids(home) == _catalog_chunk_ids(home)  # and this process lets go of the Lite file

    # a deletion the catalog committed and Milvus never heard of: the process died right after it
    stored_documents.delete_document(Catalog.in_home(home), "kb", "note-0003.md")
    # an ingest killed once its documents are committed: the CLI says "indexing" as the push starts
    process = subprocess.Popen(
        [*cli, "ingest", str(_notes(tmp_path / "second", range(24, 48))), *options],
        cwd=REPO,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 300
    for line in process.stderr:
        if line.strip().startswith("indexing") or time.monotonic() > deadline:
            break
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL

    catalog = _catalog_chunk_ids(home)
    assert len(catalog) == 47  # 48 one-chunk notes, one deleted
    held = _milvus_ids(home)
    assert held != catalog, "the kill should land before the push finished"
    assert set(catalog) - set(held), "the second batch's chunks should be missing from Milvus"
    assert set(held) - set(catalog), "the deleted note's chunk should still be in Milvus"

    repaired = subprocess.run(
        [*cli, "sync", "-c", "kb", "--home", str(home)], cwd=REPO, env=ENV, capture_output=True, text=True, timeout=300
    )
    assert repaired.returncode == 0, repaired.stderr
    assert "47 chunks" in repaired.stdout
    assert _milvus_ids(home) == catalog
    # and a second sync finds nothing to do
    again = subprocess.run(
        [*cli, "sync", "-c", "kb", "--home", str(home)], cwd=REPO, env=ENV, capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 0 and "0 written, 0 removed" in again.stdout, again.stdout + again.stderr
