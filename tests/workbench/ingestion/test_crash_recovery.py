"""kill -9 at each phase of ingest and of re-chunking; every rerun completes the work.

Each round gives a subprocess new work (new files, or a new chunking applied to the collection as
the Chunking lab's "apply" does) and names one point of that work where the process SIGKILLs
itself: mid-encoding, with vectors stored but their documents not committed, with documents
committed but not indexed, with a chunk set half built, before the index files are built, before
they are published, after publishing but before old versions are collected. Each distinct phase is
hit once (which call of it, seeded), exactly there rather than at a random moment that may fall
in the same phase twice and miss another. Then the same command reruns to completion and the
invariants are checked:

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

#: where a run kills itself: the function, and whether before it runs or after it returns
KILL_POINTS = {
    # ingest: the writer thread stores vectors, then commits documents; then each layout is synced
    "vectors stored, documents not committed": ("workbench.ingestion.writer:store_vectors", "after"),
    "documents committed, not indexed": ("store.documents:commit_documents", "after"),
    # re-chunking: each batch of documents chunked, embedded and committed, then the index built
    "chunk set half built": ("store.documents:add_chunks", "after"),
    # both: an index sync begins, its files are written, then published, then old versions dropped
    "index sync begins": ("workbench.backends.local:LocalBackend.sync", "before"),
    "index files written, not published": ("workbench.backends.local:publish", "before"),
    "published, old versions not collected": ("store.index_set:_collect_garbage", "before"),
}
#: mid-encoding is the embedder's own: inside its call, before the vectors exist
ENCODING = "mid-encoding"
# (mode, kill point, the calls of it that may be picked): each phase of each mode once; the call
# is seeded from calls every such run makes
ROUNDS = [
    ("ingest", ENCODING, (1, 2)),
    ("rechunk", ENCODING, (1, 2)),
    ("ingest", "vectors stored, documents not committed", (1,)),
    ("rechunk", "chunk set half built", (1,)),
    ("ingest", "documents committed, not indexed", (1,)),
    ("rechunk", "index sync begins", (1,)),
    ("ingest", "index sync begins", (1, 2)),
    ("rechunk", "index files written, not published", (1,)),
    ("ingest", "published, old versions not collected", (1, 2)),
]

#: files the first ingest writes: the first re-chunking (round 1) then encodes over 256 texts (two
#: of the cache's write batches, so its mid-encoding call 2 exists) and the second (round 3) chunks
#: over 64 documents (two chunk-set batches, so after the first one the set is half built)
FIRST_FILES = 60
#: files each later ingest adds: about 80 texts, two encode calls of 64 (its mid-encoding call 2).
#: Fewer than the first: every later round re-chunks or re-indexes all the files so far
MORE_FILES = 20

DRIVER = textwrap.dedent("""
    import functools, importlib, json, os, signal, sys, time
    sys.path.insert(0, {repo!r})
    from tests.conftest import registered_hashing_embedder
    from workbench.config import WorkbenchConfig
    from workbench.service import Workbench

    home, mode, size, ledger_path, corpus, kill_at, kill_call, kill_when = sys.argv[1:9]
    kill_call = int(kill_call)

    def die():  # a real kill -9: no handler, no cleanup, no flush
        os.kill(os.getpid(), signal.SIGKILL)

    if kill_at not in ("-", {encoding!r}):
        module_name, qualname = kill_at.split(":")
        owner = importlib.import_module(module_name)
        *path, name = qualname.split(".")
        for part in path:
            owner = getattr(owner, part)
        target, calls = getattr(owner, name), [0]

        @functools.wraps(target)
        def killing(*args, **kwargs):
            calls[0] += 1
            if calls[0] == kill_call and kill_when == "before":
                die()
            result = target(*args, **kwargs)
            if calls[0] == kill_call:
                die()
            return result

        setattr(owner, name, killing)

    with registered_hashing_embedder({model!r}) as embedder:
        original, encodes = embedder.embed, [0]

        def embed_and_log(texts):
            from workbench.embedding.base import content_hash
            encodes[0] += 1
            time.sleep(0.0005 * len(texts))  # a model takes time
            if kill_at == {encoding!r} and encodes[0] == kill_call:
                die()  # while the vectors are in flight
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
""").format(repo=str(REPO), model=MODEL, encoding=ENCODING)


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


def _run(arguments: list[str]) -> subprocess.CompletedProcess:
    """Run the driver until it ends: done, or killed at the point its arguments name."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}
    return subprocess.run(
        [sys.executable, "-c", DRIVER, *arguments],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


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
def test_kill_9_at_each_phase_of_ingest_and_rechunking(tmp_path):
    seed = int(os.environ.get("KILL_TEST_SEED", "20251123"))
    rng = random.Random(seed)
    home, corpus, ledger = tmp_path / "home", tmp_path / "corpus", tmp_path / "ledger.txt"
    ledger.touch()
    files_so_far = chunkings_applied = 0
    log = []
    for round_number, (mode, point, calls) in enumerate(ROUNDS):
        if mode == "ingest":
            count = MORE_FILES if files_so_far else FIRST_FILES
            _write_files(corpus, files_so_far, count)
            files_so_far += count
        size = 150 + 10 * round_number
        arguments = [str(home), mode, str(size), str(ledger), str(corpus)]
        kill_at, kill_when = KILL_POINTS.get(point, (ENCODING, "before"))
        kill_call = rng.choice(calls)

        cache_before_kill = _cached_hashes(home)
        ledger_mark = len(ledger.read_text().splitlines())
        killed_run = _run([*arguments, kill_at, str(kill_call), kill_when])
        assert killed_run.returncode == -signal.SIGKILL, (
            f"round {round_number} ({mode}) was to be killed at {point!r}, call {kill_call}, but it "
            f"exited {killed_run.returncode}: {killed_run.stderr[-2000:]}"
        )
        killed_hashes = ledger.read_text().splitlines()[ledger_mark:]
        assert not set(killed_hashes) & cache_before_kill, "the killed run encoded texts the cache already had"

        committed = (
            {row[0] for row in _catalog(home, "SELECT source FROM documents WHERE status = 'success'")}
            if (home / "catalog.duckdb").exists()
            else set()
        )
        cache_before_rerun = _cached_hashes(home)
        ledger_mark = len(ledger.read_text().splitlines())
        rerun = _run([*arguments, "-", "0", "-"])
        assert rerun.returncode == 0, rerun.stderr[-3000:]
        rerun_hashes = ledger.read_text().splitlines()[ledger_mark:]
        assert not set(rerun_hashes) & cache_before_rerun, "the rerun encoded texts the cache already had"
        assert len(rerun_hashes) == len(set(rerun_hashes)), "the rerun encoded a text twice"
        result = json.loads(rerun.stdout.strip().splitlines()[-1])
        if mode == "ingest":
            assert result["embedded"] == len(rerun_hashes)
            assert result["failed"] == 0
        else:
            chunkings_applied += 1
        log.append((round_number, mode, point, kill_call, len(committed), len(killed_hashes), len(rerun_hashes)))
        compared = _check_invariants(home, {f"note-{n:05d}.md" for n in range(files_so_far)}, committed)
        assert compared == 1 + chunkings_applied  # the default chunking, plus one per chunking applied
    print(
        f"seed {seed}; (round, mode, killed at, call, docs committed at kill, texts encoded before kill, "
        f"texts encoded by rerun): {log}"
    )
    assert {point for _, point, _ in ROUNDS} == {ENCODING, *KILL_POINTS}  # every phase is hit


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
