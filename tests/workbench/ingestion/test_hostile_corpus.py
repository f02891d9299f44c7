"""The hostile corpus in one ingest command, under the default limits.

Every bad file fails alone, with a reason that names its limit or its fix; the files that are
merely odd are ingested safely; the two control files are searchable afterwards. The timings
(the whole command, each file in its parser) are measured by ``bench/bench_hostile.py``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from tests.workbench.ingestion.hostile_corpus import CONTROLS, hostile_kinds, write_corpus

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def hostile_home(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess, float]:
    folder = tmp_path_factory.mktemp("hostile-corpus")
    home = tmp_path_factory.mktemp("hostile-home")
    write_corpus(folder)
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    for name in [n for n in env if n.startswith(("WORKBENCH_LLM_", "OPENAI_"))]:
        del env[name]  # the default setup: no vision endpoint
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "ingest", str(folder), "-c", "hostile", "--home", str(home)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    elapsed = time.monotonic() - started
    print(f"hostile corpus: {len(hostile_kinds())} kinds + {len(CONTROLS)} controls in {elapsed:.1f} s")
    return home, done, elapsed


def _documents(home: Path) -> dict[str, tuple]:
    with duckdb.connect(str(home / "catalog.duckdb"), read_only=True) as con:
        rows = con.execute("SELECT source, status, error, markdown FROM documents").fetchall()
    return {source: (status, error, markdown) for source, status, error, markdown in rows}


def test_the_corpus_has_at_least_25_kinds():
    kinds = hostile_kinds()
    assert len(kinds) >= 25
    assert len({kind.filename for kind in kinds}) == len(kinds)


@pytest.mark.slow
def test_every_bad_file_fails_alone_with_its_reason(hostile_home):
    home, done, _ = hostile_home
    assert done.returncode == 1, done.stderr  # 1: some files failed; the command itself completed
    documents = _documents(home)
    assert len(documents) == len(hostile_kinds()) + len(CONTROLS)  # one row per file, none duplicated
    for kind in hostile_kinds():
        status, error, markdown = documents[kind.filename]
        if kind.outcome == "failed":
            assert status == "failed", f"{kind.kind}: {kind.filename} was not refused"
            assert re.search(kind.reason, error), f"{kind.kind}: reason {error!r} does not match {kind.reason!r}"
            assert kind.filename in done.stdout  # the command lists it with its reason
        else:
            assert status == "success", f"{kind.kind}: {error}"
            assert kind.check(markdown), f"{kind.kind}: unexpected Markdown {markdown[:200]!r}"
    for name in CONTROLS:
        assert documents[name][0] == "success"


@pytest.mark.slow
def test_size_cap_refusal_states_what_raising_it_would_cost(hostile_home):
    home, _, _ = hostile_home
    _, error, _ = _documents(home)["huge.txt"]
    assert re.fullmatch(
        r"50\.0 MB, over the 20 MB limit \(ingest\.max_file_mb\)\. Raising it would cost about [\d,]+ chunks, "
        r"roughly \d+ (min|h|s) to embed (here|at a first guess of 25 chunks/s .*); to ingest it anyway: "
        r"--set ingest\.max_file_mb=51 --set ingest\.max_chunks=\d+",
        error,
    ), error


@pytest.mark.slow
def test_control_files_are_searchable_afterwards(hostile_home):
    from workbench.service import Workbench

    home, _, _ = hostile_home
    bench = Workbench(home)
    for mode in ("bm25", "hybrid"):
        config = bench.config_for("hostile", overrides=[f"retrieval.mode={mode}"])
        english = bench.query("keeper trims the lamp wick at dusk", "hostile", config)
        assert english.chunks[english.final.hits[0].chunk_id].source == "control-lighthouse.md"
        chinese = bench.query("龙井绿茶的采茶季节", "hostile", config)
        assert chinese.chunks[chinese.final.hits[0].chunk_id].source == "control-tea.txt"
