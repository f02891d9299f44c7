"""Every bench script's smoke run: what it is given, the table it must print, and how it is run.

Each ``bench/bench_*.py`` takes ``--smoke``: its whole path (set up, time, compare, print the
table) on a small slice of data every checkout has (the demo, the tests' tiny models and
corpora). The test files beside this one run each in its own process, as ``make bench`` does,
and check that it exits 0 and prints its table's header with at least one row under it.
``SMOKE`` names every bench once; tests/bench/test_bench_smoke_coverage.py fails when a bench
script has no entry, so a new bench cannot go untested.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]
BENCH_DIR = PROJECT_DIR / "bench"
#: one smoke run may take this long on a loaded 2-core machine before the test gives up on it
TIMEOUT_S = 420


@dataclass(frozen=True)
class Smoke:
    """How one bench's smoke run is made, and the header its main table prints."""

    group: str  # the test file that runs it: files run on different workers, in parallel
    header: tuple[str, ...]  # the first columns of the table it must print
    demo_home: bool = False  # given --home, a copy of the suite's demo home
    arguments: tuple[str, ...] = ()
    chromium: bool = False  # drives Debian's Chromium


SMOKE: dict[str, Smoke] = {
    # encoder and cross-encoder runtimes: the tests' tiny models, the demo's abstracts
    "bench_encode": Smoke("runtimes", ("runtime-precision", "texts/s", "vs torch fp32", "query ms p50")),
    "bench_rerank": Smoke("runtimes", ("runtime-precision", "pairs/s", "vs torch fp32")),
    "bench_query_embedding": Smoke("runtimes", ("forward", "busy threads", "queries", "p50 ms", "p95 ms")),
    # import and parsing: the demo's abstracts, the tests' corpora
    "bench_ingest": Smoke("ingestion", ("round", "order", "chunk texts", "import s")),
    "bench_hostile": Smoke("ingestion", ("file", "kind", "outcome", "stopped by", "worker s")),
    "bench_pdf": Smoke("ingestion", ("set", "lang", "extractor", "paragraphs whole", "heading R")),
    "bench_picture_text": Smoke("ingestion", ("picture", "pixels", "text lines", "check says", "check ms")),
    # indexes built from the demo's abstracts, queried in process and over MCP
    "bench_backends": Smoke("indexes", ("mode", "backend", "queries", "p50", "p95", "mean", "raw p50")),
    "bench_core": Smoke("indexes", ("pipeline", "queries", "p50", "p95", "max")),
    # memory and scale: synthetic chunks
    "bench_chunk_memory": Smoke("memory", ("part", "disk B/chunk", "RSS open B/chunk", "RSS queried B/chunk")),
    "bench_scale": Smoke("memory", ("mode", "p50", "p95", "mean")),
    "bench_query_log": Smoke("query_log", ("server", "queries", "p50 ms", "p90 ms")),
    # on a copy of the demo home: evaluation and the LLM stages
    "bench_bm25_stopwords": Smoke("evaluation", ("mode", "stopwords", "queries", "ndcg@10"), demo_home=True),
    "bench_confidence": Smoke("evaluation", ("queries", "n", "relevant", "ambiguous", "no_answer"), demo_home=True),
    "bench_chunk_window": Smoke(
        "evaluation", ("collection", "golden set", "level", "fit_window", "mode", "chunks", "queries"), demo_home=True
    ),
    "bench_golden": Smoke("evaluation", ("run", "pairs", "recorded", "endpoint calls"), demo_home=True),
    "bench_llm": Smoke(
        "evaluation", ("setting", "calls/q", "tokens/q", "first ms"), demo_home=True, arguments=("--collection", "demo")
    ),
    # each of the three longest smoke runs (a minute or two) has a file of its own, so that xdist,
    # which deals whole files, can put them on different workers rather than one after another
    "bench_mcp": Smoke("mcp", ("transport", "clients", "calls", "errors", "p50 ms", "p95 ms"), demo_home=True),
    "bench_new_collection": Smoke("new_collection", ("step", "seconds", "load average")),
    "bench_own_collection": Smoke("own_collection", ("step", "s", "load")),
    # on a copy of the demo home: the query path and tuning
    "bench_fold": Smoke(
        "queries",
        ("setting", "top_k", "queries", "final p50 ms", "final p95 ms", "final mean ms"),
        demo_home=True,
        arguments=("--collection", "demo"),
    ),
    "bench_lab_fairness": Smoke("queries", ("query", "stage", "A ms", "B ms", "A/B"), demo_home=True),
    "bench_query": Smoke(
        "queries", ("mode", "queries", "pipeline", "raw index", "ratio"), True, ("--collection", "demo")
    ),
    "bench_retrieval_lab": Smoke("queries", ("change", "query", "A ms", "B ms", "analysis", "total"), demo_home=True),
    "bench_tune": Smoke(
        "queries",
        ("layouts", "trials", "estimated", "embedded", "distinct"),
        demo_home=True,
        arguments=("--collection", "demo", "--golden", "demo"),
    ),
    # the app: AppTest, and Chromium against `make app`
    "bench_app_rerender": Smoke("app", ("scenario", "median ms", "p90 ms", "max ms"), demo_home=True),
    "bench_app_elements": Smoke("app", ("element", "round trip ms", "ms per element"), chromium=True),
    "bench_app_speed": Smoke("app", ("goal", "target", "p50", "p90", "n", "result"), demo_home=True, chromium=True),
}


def bench_scripts() -> list[str]:
    """The bench scripts in bench/, by name (``bench_encode``)."""
    return sorted(path.stem for path in BENCH_DIR.glob("bench_*.py"))


def in_group(group: str) -> list[str]:
    return [name for name, smoke in SMOKE.items() if smoke.group == group]


def tables(stdout: str) -> list[tuple[tuple[str, ...], list[str]]]:
    """The tables ``bench.printing.table`` printed: each header's columns and the rows under it."""
    lines = stdout.splitlines()
    found = []
    for position in range(1, len(lines)):
        rule = lines[position]
        if rule.strip() and re.fullmatch(r"-+( {2}-+)*", rule.strip()):
            header = tuple(re.split(r" {2,}", lines[position - 1].strip()))
            rows = []
            for line in lines[position + 1 :]:
                if not line.strip():
                    break
                rows.append(line)
            found.append((header, rows))
    return found


def run_smoke(
    name: str, scratch: Path, demo_home: Path | None = None, extra: tuple[str, ...] = ()
) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """Run ``bench/NAME.py --smoke`` in a fresh process; its result, its wall seconds and the CPU
    seconds it and the processes it waited for spent (what it costs the suite on a shared machine).
    ``extra`` arguments come from the test's fixtures (a tiny model's folder)."""
    smoke = SMOKE[name]
    arguments = [*smoke.arguments, *extra]
    if smoke.demo_home:
        assert demo_home is not None, f"{name} needs the demo home"
        home = scratch / "home"
        shutil.copytree(demo_home, home)  # a bench may write (replies, journals): never into the shared home
        arguments += ["--home", str(home)]
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "WORKBENCH_HOME": str(scratch / "default-home"),  # nothing falls back to ./data
        "WORKBENCH_EXPORT_CACHE": str(scratch / "exports"),  # nor to the user's export cache
    }
    if not smoke.chromium:  # Chromium's sockets would not fit under the test's long folder name
        env["TMPDIR"] = str(scratch)  # the benches' temporary homes go with the test's folder
    command = [sys.executable, str(BENCH_DIR / f"{name}.py"), "--smoke", *arguments]
    started, cpu_before = time.perf_counter(), _children_cpu()
    done = subprocess.run(
        command, cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=TIMEOUT_S, check=False
    )
    return done, time.perf_counter() - started, _children_cpu() - cpu_before


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def check_smoke(name: str, scratch: Path, demo_home: Path | None = None, extra: tuple[str, ...] = ()) -> None:
    """The smoke run exits 0 and prints its table: the expected header over at least one row."""
    done, seconds, cpu = run_smoke(name, scratch, demo_home, extra)
    print(f"{name} --smoke: {seconds:.1f} s wall, {cpu:.1f} s CPU")  # shown with -s or -rA
    assert done.returncode == 0, (
        f"{name} --smoke exited {done.returncode} after {seconds:.0f} s:\n{done.stderr[-3000:]}"
    )
    expected = SMOKE[name].header
    printed = tables(done.stdout)
    matching = [rows for header, rows in printed if header[: len(expected)] == expected]
    assert matching, f"{name} --smoke printed no table headed {expected}; its tables: {[h for h, _ in printed]}"
    assert any(matching), f"{name} --smoke printed its table {expected} without a row"
