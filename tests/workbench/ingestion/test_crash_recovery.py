"""A crash mid-ingest (kill -9) leaves a state the next run completes, with catalog and indexes agreeing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from store.index_set import Snapshot, read_current
from workbench.ingestion.indexing import layout_dir
from workbench.ingestion.layout import Layout
from workbench.service import Workbench

REPO = Path(__file__).resolve().parents[3]
TOPICS = ["glacier", "volcano", "harbour", "orchard", "comet", "canyon", "lagoon", "prairie", "tundra", "reef"]


def _write_corpus(folder: Path, count: int) -> list[Path]:
    folder.mkdir(parents=True)
    paths = []
    for number in range(count):
        topic = TOPICS[number % len(TOPICS)]
        path = folder / f"note-{number:04d}.md"
        path.write_text(f"# Note {number}\n\nThis note number {number} is about the {topic} and code{number}x.\n")
        paths.append(path)
    return paths


def _agreement(home: Path, collection: str) -> tuple[list[int], list[int], list[int], int]:
    bench = Workbench(home)
    config = bench.config_for(collection)
    bench.sync(collection)
    target = layout_dir(home, collection, Layout.of(config))
    snapshot = Snapshot(target / read_current(target)["version"])
    with duckdb.connect(str(home / "catalog.duckdb"), read_only=True) as con:
        catalog_ids = [row[0] for row in con.execute(
            "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id"
            " WHERE d.status = 'success' AND c.chunkset = ? ORDER BY c.id", [Layout.of(config).chunkset_key]
        ).fetchall()]
        duplicates = con.execute(
            "SELECT count(*) FROM (SELECT source FROM documents GROUP BY source HAVING count(*) > 1)"
        ).fetchone()[0]
    return catalog_ids, sorted(snapshot.sparse.chunk_ids.tolist()), sorted(snapshot.dense.ids().tolist()), duplicates


def test_kill_9_during_ingest_then_rerun_finishes_and_agrees(tmp_path):
    home = tmp_path / "home"
    paths = _write_corpus(tmp_path / "corpus", 450)
    command = [sys.executable, "-m", "workbench", "ingest", str(tmp_path / "corpus"), "--collection", "kb",
               "--home", str(home)]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen_batches = 0
    deadline = time.monotonic() + 120
    # the CLI commits 200 documents per transaction; kill while the second batch is being embedded,
    # after the first batch is in the catalog but before any index was written
    for line in process.stderr:
        if "embedding" in line:
            seen_batches += 1
        if seen_batches >= 2 or time.monotonic() > deadline:
            break
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL

    with duckdb.connect(str(home / "catalog.duckdb"), read_only=True) as con:
        committed = con.execute("SELECT count(*) FROM documents WHERE status = 'success'").fetchone()[0]
    assert 0 < committed < len(paths), "the kill should land mid-ingest"

    rerun = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert f"{committed} unchanged" in rerun.stdout
    catalog_ids, sparse_ids, dense_ids, duplicates = _agreement(home, "kb")
    assert duplicates == 0
    assert catalog_ids == sparse_ids == dense_ids
    assert len(Workbench(home).documents("kb")) == len(paths)


def test_crash_between_catalog_commit_and_index_write_is_repaired(bench, fake_embedder, fake_config, monkeypatch):
    from tests.workbench.corpus import DOCS
    from workbench.ingestion.ingest import Source

    bench.ingest("kb", [Source(name="solar.md", data=DOCS["solar.md"].encode())], fake_config)

    def crash(*_args, **_kwargs):
        raise KeyboardInterrupt("simulated crash before the indexes were written")

    import workbench.ingestion.indexing as indexing

    monkeypatch.setattr(indexing, "sync_layout", crash)
    with pytest.raises(KeyboardInterrupt):
        bench.ingest("kb", [Source(name="bread.md", data=DOCS["bread.md"].encode())], fake_config)
    monkeypatch.undo()
    # the catalog has bread.md, the published indexes do not: a reader sees a stale snapshot
    target = layout_dir(bench.home, "kb", Layout.of(fake_config))
    stale = Snapshot(target / read_current(target)["version"])
    assert {d.source for d in stale.documents.values()} == {"solar.md"}
    report = bench.ingest("kb", [Source(name="bread.md", data=DOCS["bread.md"].encode())], fake_config)
    assert report.count("skipped") == 1
    fresh = bench.snapshot("kb", fake_config)
    assert {d.source for d in fresh.documents.values()} == {"solar.md", "bread.md"}
    assert sorted(fresh.chunks) == sorted(fresh.sparse.chunk_ids.tolist()) == sorted(fresh.dense.ids().tolist())
