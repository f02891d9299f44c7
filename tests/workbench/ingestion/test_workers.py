"""Parse workers: the time and memory limits stop one file and name their settings; a large
text under a raised cap streams through in bounded memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.workbench.ingestion.hostile_corpus import _zip_bomb_docx
from workbench.config import ChunkingConfig, IngestConfig
from workbench.ingestion.estimates import estimate_chunks
from workbench.ingestion.workers import (
    MAX_DEFAULT_WORKERS,
    ChunkPlan,
    ParsePool,
    ParseTask,
    default_worker_count,
    worker_count,
)

REPO = Path(__file__).resolve().parents[3]


def _csv(rows: int) -> bytes:
    return ("id,name,value\n" + "".join(f"{i},name{i},{i * 7}\n" for i in range(rows))).encode()


def test_the_pool_is_sized_to_the_machine():
    cores = len(os.sched_getaffinity(0))
    assert default_worker_count() == max(1, min(MAX_DEFAULT_WORKERS, cores))
    assert worker_count(IngestConfig()) == default_worker_count()
    assert worker_count(IngestConfig(workers=3)) == 3


def test_time_limit_stops_one_file_and_names_its_setting():
    limits = IngestConfig(parse_timeout_s=1.0)
    tasks = [
        ParseTask(1, "rows.csv", limits, data=_csv(150_000)),
        ParseTask(2, "note.md", limits, data=b"# Note\n\nstill parsed", plans=(ChunkPlan("k", ChunkingConfig()),)),
    ]
    with ParsePool(limits, size=1) as pool:  # one worker: the note waits for the slow file, then gets a fresh one
        outcomes = {outcome.name: outcome for outcome in pool.outcomes(tasks)}
    slow = outcomes["rows.csv"]
    assert not slow.ok and 1.0 <= slow.elapsed_s < 10
    assert slow.reason == (
        "parsing took longer than 1 s (ingest.parse_timeout_s) and was stopped; if the file is "
        "genuine, raise it with --set ingest.parse_timeout_s=4"
    )
    assert outcomes["note.md"].ok and [c.text for c in outcomes["note.md"].chunks["k"]] == ["# Note\n\nstill parsed"]


def test_memory_limit_stops_one_file_and_names_its_setting():
    limits = IngestConfig(parse_memory_mb=250, max_file_mb=100)
    document = json.dumps([{"k": i, "v": "x" * 8, "w": [i, i + 1, i + 2]} for i in range(400_000)]).encode()
    with ParsePool(limits, size=1) as pool:
        (outcome,) = pool.outcomes([ParseTask(1, "big.json", limits, data=document)])
    assert not outcome.ok
    assert outcome.reason.startswith("parsing needed more than 250 MB of memory (ingest.parse_memory_mb)")
    assert outcome.peak_rss_mb > 250


def test_zip_bomb_fails_fast_naming_its_limit(tmp_path):
    path = tmp_path / "bomb.docx"
    _zip_bomb_docx(path)
    assert path.stat().st_size < 400 * 1024
    limits = IngestConfig()
    with ParsePool(limits, size=1) as pool:
        (outcome,) = pool.outcomes([ParseTask(1, path.name, limits, path=str(path))])
    assert not outcome.ok and "(ingest.max_unzipped_mb)" in outcome.reason
    assert outcome.peak_rss_mb < limits.parse_memory_mb


def test_too_many_chunks_is_refused_with_the_cost():
    limits = IngestConfig(max_chunks=10)
    text = ("lantern harbour granite " * 2000).encode()
    with ParsePool(limits, size=1) as pool:
        (outcome,) = pool.outcomes(
            [ParseTask(1, "long.txt", limits, data=text, chunk_rate=40.0, plans=(ChunkPlan("k", ChunkingConfig()),))]
        )
    characters = len(text)  # canonical text: the trailing space becomes the final newline
    expected = estimate_chunks(characters, ChunkingConfig())
    assert outcome.reason == (
        f"{characters:,} characters of text would make about {expected:,} chunks, roughly "
        f"{max(expected / 40, 1):.0f} s to embed here, over the limit of 10 chunks per file "
        f"(ingest.max_chunks); to ingest it anyway: --set ingest.max_chunks={expected + expected // 10}"
    )


STREAM_DRIVER = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, {repo!r})
    from pathlib import Path
    from tests.conftest import registered_hashing_embedder
    from workbench.config import WorkbenchConfig
    from workbench.service import Workbench

    def status_mb(field):
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith(field + ":")) / 1024

    home, path = sys.argv[1:3]
    with registered_hashing_embedder("stream-embedder"):
        bench = Workbench(home)
        config = WorkbenchConfig().with_overrides(["embedding.model=stream-embedder", "ingest.max_file_mb=8",
                                                   "ingest.max_chunks=20000"])
        bench.create_collection("big", config)
        small = Path(home) / "small.txt"
        small.write_text("A small warm-up file, so every library is loaded before the measurement.")
        bench.ingest_paths("big", [small], config)
        before = status_mb("VmRSS")
        report = bench.ingest_paths("big", [Path(path)], config)
        # VmHWM, not ru_maxrss: Linux carries ru_maxrss across exec, so it would report the memory
        # of the pytest process this one was forked from
        peak = status_mb("VmHWM")
        print(json.dumps({{"before_mb": before, "peak_mb": peak, "failures": [f.reason for f in report.failures],
                          "embedded": report.embedded, "worker_peak_mb": report.peak_parse_rss_mb}}))
""").format(repo=str(REPO))


@pytest.mark.slow
def test_a_raised_cap_streams_a_large_text_in_bounded_memory(tmp_path):
    path = tmp_path / "long-report.txt"
    words = ["harbour", "lantern", "granite", "meadow", "compass", "orchard", "beacon", "tidal", "ember", "quarry"]
    with path.open("w", encoding="utf-8") as out:
        for paragraph in range(5000):  # about 4 MB: over the default 3,000 chunks, under the raised cap
            out.write(
                f"Paragraph {paragraph}: "
                + " ".join(words[(paragraph + k) % 10] + str(k % 7) for k in range(110))
                + ".\n\n"
            )
    size_mb = path.stat().st_size / 2**20
    done = subprocess.run(
        [sys.executable, "-c", STREAM_DRIVER, str(tmp_path / "home"), str(path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    print(
        f"{size_mb:.1f} MB text, {result['embedded']} chunks: ingesting process {result['before_mb']:.0f} MB "
        f"after a warm-up ingest, peak RSS {result['peak_mb']:.0f} MB; parse worker peak "
        f"{result['worker_peak_mb']:.0f} MB"
    )
    assert result["failures"] == [] and result["embedded"] > 3000
    assert result["peak_mb"] - result["before_mb"] < 60 * size_mb, result  # tens of bytes per byte of text, not more
    assert result["worker_peak_mb"] < IngestConfig().parse_memory_mb


def test_a_worker_that_cannot_start_stops_the_pool_with_the_fix(monkeypatch):
    import workbench.ingestion.workers as workers

    monkeypatch.setattr(workers, "REPO_ROOT", Path("/nonexistent"))
    monkeypatch.setenv("PYTHONPATH", "/nonexistent")
    # the interpreter the virtualenv was made from: it has neither the packages nor an installed
    # workbench (the venv's editable install would otherwise find the code from anywhere)
    monkeypatch.setattr(workers.sys, "executable", sys._base_executable)
    limits = IngestConfig()
    pool = ParsePool(limits, size=1)
    monkeypatch.chdir("/")  # outside the repository: the worker cannot import workbench
    with pytest.raises(workers.WorkerStartError, match="not with your files"):
        list(pool.outcomes([ParseTask(1, "a.md", limits, data=b"# a")]))
    pool.close()


def test_the_estimate_counts_loading_the_embedding_model(tmp_path):
    """Regression: the demo said "roughly 3 s to embed", then sat at 0/83 for 20 s while the model loaded."""
    from types import SimpleNamespace

    from workbench.ingestion.estimates import FALLBACK_LOAD_S, describe_estimate, pending_load_s, remember_load

    cold = SimpleNamespace(name="all-MiniLM-L6-v2", loaded=False)
    assert pending_load_s(tmp_path, cold) == FALLBACK_LOAD_S
    remember_load(tmp_path, "all-MiniLM-L6-v2", 17.4)
    assert pending_load_s(tmp_path, cold) == 17.4
    assert pending_load_s(tmp_path, SimpleNamespace(name="all-MiniLM-L6-v2", loaded=True)) is None
    assert describe_estimate(83, 30.0, 17.4) == (
        "about 83 chunks, roughly 3 s to embed here, after about 17 s to load the embedding model"
    )
    assert describe_estimate(83, 30.0) == "about 83 chunks, roughly 3 s to embed here"


def test_a_sentence_transformer_embedder_says_whether_and_how_long_it_loaded():
    from workbench.embedding.sentence_transformer import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder("all-MiniLM-L6-v2")
    assert not embedder.loaded and embedder.load_seconds is None
    embedder.dimension  # noqa: B018 -- loads the weights
    assert embedder.loaded and embedder.load_seconds > 0


def test_an_estimate_uses_the_models_rate_measured_on_another_runtime(tmp_path):
    import json

    from workbench.ingestion.estimates import chunk_rate, describe_estimate, measured_rate

    (tmp_path / "ingest_rates.json").write_text(
        json.dumps({"m": 3.25, "m@onnx-int8": 9.0, "other": 50.0, "load_s": {"m": 4.0}}), encoding="utf-8"
    )
    assert measured_rate(tmp_path, "m@onnx-int8") == (9.0, "m@onnx-int8")  # its own, first
    assert measured_rate(tmp_path, "m@openvino-bf16") == (3.25, "m")  # else the same model elsewhere
    assert chunk_rate(tmp_path, "m@openvino-bf16") == 3.25
    assert measured_rate(tmp_path, "unmeasured") is None and measured_rate(tmp_path / "nowhere", "m") is None
    assert describe_estimate(26, 3.25, measured_for="m") == (
        "about 26 chunks, roughly 8 s to embed at the 3.2 chunks/s this home measured for m"
    )


def test_a_task_with_nothing_to_parse_fails_alone_naming_what_it_lacks():
    from workbench.ingestion.workers import run_task

    outcome = run_task(ParseTask(7, "lost.pdf", IngestConfig()))
    assert not outcome.ok
    assert outcome.reason.startswith("could not be read (ValueError: parse task 'lost.pdf' carries no markdown")
