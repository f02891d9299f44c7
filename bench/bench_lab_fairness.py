"""Are the Retrieval lab's A/B stage times fair? A = B, five queries, right after a fresh start.

Each mode runs in a fresh Python process on the same home, the way a new server meets its first
queries. ``cold`` runs side A then side B as the lab did before (A pays the one-off work:
reading the indexes, loading the model and its first run, embedding the query, loading the
Chinese word segmenter, the first query of a language on the index); ``warm`` does
that work first with ``workbench.service.first_use.warm_up`` (as the lab does now) and shows
it apart. Prints, per query and stage, A's and B's milliseconds and their ratio; asserts nothing.

    python bench/bench_lab_fairness.py                      # a temporary home with the demo loaded
    python bench/bench_lab_fairness.py --home data --collection demo
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
PROJECT_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_DIR))

QUERIES = (
    # Chinese first, as a new user met it: the first Chinese query loads jieba's dictionary
    "倒数排名融合的分数是怎么计算的？",
    "How does reciprocal rank fusion combine rankings?",
    "Autophagy declines in aged organisms.",
    "chunk overlap",
    "What does a cross-encoder score?",
    "Vitamin D deficiency and fractures",
)


#: below this, a stage's time is scheduler noise (a busy machine preempts for ~10 ms at a time)
FLOOR_MS = 1.0


def ratio(row: dict) -> float:
    """The larger side's time over the smaller's, each at least ``FLOOR_MS``."""
    a, b = max(row["a_ms"], FLOOR_MS), max(row["b_ms"], FLOOR_MS)
    return max(a, b) / min(a, b)


def one_process(home: str, collection: str, mode: str, queries: int) -> list[dict]:
    """Run in the child: both sides of every query; stage ms per side."""
    from workbench.service import Workbench
    from workbench.service.first_use import warm_up

    bench = Workbench(Path(home))
    config = bench.config_for(collection)
    rows = []
    for query in QUERIES[:queries]:
        first_use_ms = 0.0
        if mode == "warm":
            first_use_ms = warm_up(bench, collection, query, [config, config]).total_ms
        started = time.perf_counter()
        trace_a = bench.query(query, collection, config)
        side_a_ms = (time.perf_counter() - started) * 1000
        trace_b = bench.query(query, collection, config)
        for stage_a, stage_b in zip(trace_a.stages, trace_b.stages, strict=False):
            rows.append(
                {
                    "query": query,
                    "stage": stage_a.stage,
                    "a_ms": stage_a.elapsed_ms,
                    "b_ms": stage_b.elapsed_ms,
                    "first_use_ms": first_use_ms,
                    "side_a_ms": side_a_ms,
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home")
    parser.add_argument("--collection", default="demo")
    parser.add_argument("--queries", type=int, default=len(QUERIES), help="how many of its queries (Chinese first)")
    parser.add_argument("--smoke", action="store_true", help="the whole path in seconds: 2 queries")
    parser.add_argument("--child", choices=("cold", "warm"))
    args = parser.parse_args()
    if args.smoke:
        args.queries = 2
    if args.child:
        print(json.dumps(one_process(args.home, args.collection, args.child, args.queries)))
        return
    from bench.printing import table

    home = args.home
    if home is None:
        from workbench.demo import load_demo
        from workbench.service import Workbench

        home = tempfile.mkdtemp(prefix="bench-fairness-")
        load_demo(Workbench(Path(home)))
    print(f"load average {os.getloadavg()[0]:.2f} at start")
    for mode in ("cold", "warm"):
        output = subprocess.run(
            [sys.executable, __file__, "--home", home, "--collection", args.collection, "--child", mode]
            + ["--queries", str(args.queries)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        rows = json.loads(output.strip().splitlines()[-1])
        worst = max(ratio(r) for r in rows)
        within = sum(1 for r in rows if ratio(r) <= 3)
        table(
            f"{mode}: A = B, stage ms over {args.queries} queries after a fresh start; {within} of {len(rows)} "
            f"stage pairs within 3x (times under {FLOOR_MS:g} ms count as {FLOOR_MS:g} ms), worst {worst:.1f}x",
            ["query", "stage", "A ms", "B ms", "A/B", "first-use ms"],
            [
                [
                    r["query"][:28],
                    r["stage"],
                    f"{r['a_ms']:.1f}",
                    f"{r['b_ms']:.1f}",
                    f"{ratio(r):.2f}",
                    f"{r['first_use_ms']:.0f}",
                ]
                for r in rows
            ],
        )
    print(f"load average {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main()
