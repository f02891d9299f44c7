"""kill -9 at random points during ingest and during re-chunking; every rerun completes the work.

Each of the 20 rounds gives a subprocess new work (new files, or a new chunking applied to the
collection as the Chunking lab's "apply" does), SIGKILLs it at a random moment, reruns the same
command to completion and checks the invariants:

* the catalog's chunk ids equal the BM25 ids and the HNSW ids, for every chunk set built;
* no document is duplicated;
* every document committed before the kill is still there, and every file is in after the rerun;
* nothing is embedded twice: the embedder appends every content hash it encodes to a ledger
  (fsynced before it returns), and no run ever encodes a hash the cache already held when that
  run started; the rerun's own counts agree (embedded + cached = requested, embedded = ledger).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import duckdb
import pytest

from store.index_set import Snapshot, read_current
from workbench.backends import open_snapshot_indexes
from workbench.ingestion.indexing import layout_dir
from workbench.layout import Layout

REPO = Path(__file__).resolve().parents[3]
TOPICS = ["glacier", "volcano", "harbour", "orchard", "comet", "canyon", "lagoon", "prairie", "tundra", "reef"]
MODEL = "ledger-hashing-embedder"
ROUNDS = 20

DRIVER = textwrap.dedent("""
    import json, os, sys, time
    sys.path.insert(0, {repo!r})
    from tests.conftest import registered_hashing_embedder
    from workbench.config import WorkbenchConfig
    from workbench.service import Workbench

    home, mode, size, ledger_path, corpus = sys.argv[1:6]
    with registered_hashing_embedder({model!r}) as embedder:
        original = embedder.embed

        def embed_and_log(texts):
            from workbench.embedding.base import content_hash
            time.sleep(0.0005 * len(texts))  # a model takes time; so kills land while vectors are in flight
            vectors = original(texts)
            with open(ledger_path, "a") as ledger:
                ledger.write("".join(content_hash(t) + "\\n" for t in texts))
                ledger.flush()
                os.fsync(ledger.fileno())
            return vectors

        embedder.embed = embed_and_log
        bench = Workbench(home)
        config = WorkbenchConfig().with_overrides(["embedding.model={model}", "chunking.size=200",
                                                   "chunking.overlap=20"])
        if mode == "ingest":
            files = sorted(p for p in __import__("pathlib").Path(corpus).iterdir())
            report = bench.ingest_paths("kb", files, config)
            print(json.dumps({{"embedded": report.embedded, "cached": report.cached,
                              "failed": report.count("failed")}}))
        else:  # apply a new chunking to the collection, as the Chunking lab does
            bench.snapshot("kb", config.with_overrides([f"chunking.size={{size}}", "chunking.overlap=10"]))
            print(json.dumps({{"applied": size}}))
""").format(repo=str(REPO), model=MODEL)


def _write_files(folder: Path, first: int, count: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(first, first + count):
        topic = TOPICS[number % len(TOPICS)]
        sentences = " ".join(
            f"Sentence {k} of note {number} is about the {topic} and marker{number}x{k}." for k in range(12)
        )
        (folder / f"note-{number:05d}.md").write_text(f"# Note {number}\n\n{sentences}\n", encoding="utf-8")


def _catalog(home: Path, sql: str, params=()) -> list[tuple]:
    with duckdb.connect(str(home / "catalog.duckdb"), read_only=True) as con:
        return con.execute(sql, list(params)).fetchall()


def _cached_hashes(home: Path) -> set[str]:
    if not (home / "catalog.duckdb").exists():
        return set()
    return {row[0] for row in _catalog(home, "SELECT content_hash FROM embeddings WHERE model = ?", [MODEL])}


def _run(arguments: list[str], kill_after: float | None) -> tuple[subprocess.CompletedProcess, float]:
    """Run the driver to completion, or SIGKILL it after ``kill_after`` seconds if it is still going."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-c", DRIVER, *arguments],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        process.wait(timeout=300 if kill_after is None else kill_after)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGKILL)
    out, err = process.communicate(timeout=60)
    if kill_after is None:
        assert process.returncode == 0, err
    return subprocess.CompletedProcess(process.args, process.returncode, out, err), time.monotonic() - started


def _check_invariants(home: Path, expected_files: set[str], committed_before: set[str]) -> int:
    """Checks every invariant; returns how many chunk sets were compared with their indexes."""
    duplicates = _catalog(home, "SELECT source, count(*) FROM documents GROUP BY source HAVING count(*) > 1")
    assert duplicates == []
    present = {row[0] for row in _catalog(home, "SELECT source FROM documents WHERE status = 'success'")}
    assert committed_before <= present, "a document committed before the kill is gone"
    assert present == expected_files
    compared = 0
    for target in sorted((home / "indexes" / "kb").iterdir()):
        pointer = read_current(target)
        if pointer is None:
            continue
        chunkset = target.name.rsplit("-", 1)[0]  # a layout folder is its chunk set key + a build digest
        snapshot = Snapshot(target / pointer["version"], open_snapshot_indexes)
        catalog_ids = [
            row[0]
            for row in _catalog(
                home,
                "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id"
                " WHERE d.status = 'success' AND c.chunkset = ? ORDER BY c.id",
                [chunkset],
            )
        ]
        assert catalog_ids, chunkset
        assert catalog_ids == sorted(snapshot.sparse.chunk_ids.tolist()) == sorted(snapshot.dense.ids().tolist())
        compared += 1
    return compared


@pytest.mark.slow
def test_kill_9_at_20_random_points_during_ingest_and_rechunking(tmp_path):
    seed = int(os.environ.get("KILL_TEST_SEED", "20251123"))
    rng = random.Random(seed)
    home, corpus, ledger = tmp_path / "home", tmp_path / "corpus", tmp_path / "ledger.txt"
    ledger.touch()
    files_so_far = 0
    window = {"ingest": 4.0, "rechunk": 3.0}
    kills_that_landed = 0
    log = []
    for round_number in range(ROUNDS):
        mode = "ingest" if round_number % 2 == 0 else "rechunk"
        if mode == "ingest":
            _write_files(corpus, files_so_far, 60)
            files_so_far += 60
        size = 150 + 10 * round_number
        arguments = [str(home), mode, str(size), str(ledger), str(corpus)]

        cache_before_kill = _cached_hashes(home)
        ledger_mark = len(ledger.read_text().splitlines())
        kill_after = rng.uniform(0.3, window[mode])
        killed_run, lived = _run(arguments, kill_after)
        killed_hashes = ledger.read_text().splitlines()[ledger_mark:]
        assert not set(killed_hashes) & cache_before_kill, "the killed run encoded texts the cache already had"

        committed = (
            {row[0] for row in _catalog(home, "SELECT source FROM documents WHERE status = 'success'")}
            if (home / "catalog.duckdb").exists()
            else set()
        )
        cache_before_rerun = _cached_hashes(home)
        ledger_mark = len(ledger.read_text().splitlines())
        rerun, took = _run(arguments, None)
        window[mode] = max(1.0, took)
        rerun_hashes = ledger.read_text().splitlines()[ledger_mark:]
        assert not set(rerun_hashes) & cache_before_rerun, "the rerun encoded texts the cache already had"
        assert len(rerun_hashes) == len(set(rerun_hashes)), "the rerun encoded a text twice"
        result = json.loads(rerun.stdout.strip().splitlines()[-1])
        if mode == "ingest":
            assert result["embedded"] == len(rerun_hashes)
            assert result["failed"] == 0
        kills_that_landed += int(killed_run.returncode == -signal.SIGKILL)
        log.append((round_number, mode, round(kill_after, 2), len(committed), len(killed_hashes), len(rerun_hashes)))
        compared = _check_invariants(home, {f"note-{n:05d}.md" for n in range(files_so_far)}, committed)
        assert compared == 1 + (round_number + 1) // 2  # the default chunking, plus one per chunking applied
    print(
        f"seed {seed}; (round, mode, kill at s, docs committed at kill, texts encoded before kill, "
        f"texts encoded by rerun): {log}"
    )
    assert kills_that_landed >= ROUNDS // 2, f"most kills should land mid-run: {log}"


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
    stale = Snapshot(target / read_current(target)["version"], open_snapshot_indexes)
    assert {d.source for d in stale.documents.values()} == {"solar.md"}
    report = bench.ingest("kb", [Source(name="bread.md", data=DOCS["bread.md"].encode())], fake_config)
    assert report.count("skipped") == 1
    fresh = bench.snapshot("kb", fake_config)
    assert {d.source for d in fresh.documents.values()} == {"solar.md", "bread.md"}
    assert sorted(fresh.chunks) == sorted(fresh.sparse.chunk_ids.tolist()) == sorted(fresh.dense.ids().tolist())
