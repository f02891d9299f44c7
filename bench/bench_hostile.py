"""The hostile corpus: how long the whole ingest command takes, and what stops each file, how fast.

    python bench/bench_hostile.py

Generates the corpus of ``tests/workbench/ingestion/hostile_corpus.py`` (29 kinds and two
control files) in a temporary folder, then

1. runs ``python -m workbench ingest FOLDER -c hostile --home TMP`` once, under the default
   limits and with the bundled model, and times the whole command (process start included);
2. sends every file through a parse pool alone and prints, per file, the outcome, the limit or
   check that stopped it, the seconds its worker spent and the worker's peak memory (the 50 MB
   text never reaches a worker: the size cap refuses it before it is read).

Prints tables; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from bench.printing import table  # noqa: E402

#: what --smoke writes: a file refused before reading, some stopped by a check, one ingested
SMOKE_FILES = ("huge.txt", "program.pdf", "truncated.pdf", "gbk.txt", "empty.md", "scripts.md")


def main() -> None:
    from tests.workbench.ingestion.hostile_corpus import CONTROLS, hostile_kinds
    from workbench.config import IngestConfig, WorkbenchConfig
    from workbench.ingestion.workers import ChunkPlan, ParsePool, ParseTask

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help=f"the whole path in seconds: {', '.join(SMOKE_FILES)}")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="hostile-corpus-"))
    home = Path(tempfile.mkdtemp(prefix="hostile-home-"))
    kinds = [kind for kind in hostile_kinds() if not args.smoke or kind.filename in SMOKE_FILES]
    for kind in kinds:
        kind.make(folder / kind.filename)
    for name, text in CONTROLS.items():
        (folder / name).write_text(text, encoding="utf-8")
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    load_before = os.getloadavg()[0]
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "ingest", str(folder), "-c", "hostile", "--home", str(home)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    command_s = time.perf_counter() - began
    summary = next((line for line in done.stdout.splitlines() if line.startswith("hostile:")), done.stdout[-300:])
    table(
        "the whole command (default limits, bundled model, process start included)",
        ["files", "seconds", "exit code", "load avg before", "summary"],
        [[len(kinds) + len(CONTROLS), f"{command_s:.1f}", done.returncode, f"{load_before:.1f}", summary]],
    )

    limits = IngestConfig()
    plan = (ChunkPlan("default", WorkbenchConfig().chunking),)
    rows = []
    with ParsePool(limits, size=1) as pool:
        for kind in kinds:
            path = folder / kind.filename
            if path.stat().st_size > limits.max_file_mb * 2**20:
                rows.append([kind.filename, kind.kind, "refused before reading", "ingest.max_file_mb", "0.00", "-"])
                continue
            (outcome,) = pool.outcomes([ParseTask(1, kind.filename, limits, path=str(path), plans=plan)])
            rows.append(
                [
                    kind.filename,
                    kind.kind,
                    "ingested" if outcome.ok else "failed",
                    kind.limit or "-",
                    f"{outcome.elapsed_s:.2f}",
                    f"{outcome.peak_rss_mb:.0f}",
                ]
            )
    table(
        f"each file alone in a parse worker (time limit {limits.parse_timeout_s:g} s, memory limit "
        f"{limits.parse_memory_mb} MB)",
        ["file", "kind", "outcome", "stopped by", "worker s", "worker MB (sampled peak)"],
        rows,
    )


if __name__ == "__main__":
    main()
