"""Golden sets from documents: what ``golden synth`` and ``golden judge --llm`` cost.

    python bench/bench_golden.py                      # the bundled demo in a temp home, fake endpoint
    python bench/bench_golden.py --home COPY -c NAME  # a copy of a home of yours
    python bench/bench_golden.py --endpoint           # WORKBENCH_LLM_* as set instead of the fake

Without ``--endpoint`` it starts the tests' fake OpenAI-compatible server (127.0.0.1, answers in
about a millisecond), so the milliseconds are the workbench's own work around the calls:
sampling, prompts, the reply cache, quote verification, BM25 overlap, the embedding of each
question for the duplicate check, the journal, and recording grades. Each step runs twice: the
second run shows the resume / cache path (0 endpoint calls).

Prints tables; asserts nothing. Numbers depend on the machine and its load (printed).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.printing import table  # noqa: E402
from workbench.service import Workbench  # noqa: E402


def synth(bench: Workbench, collection: str, n: int, out: str) -> list:
    from workbench.golden.build import plan_synth, run_synth

    config = bench.config_for(collection)
    started = time.perf_counter()
    plan = plan_synth(bench, collection, config, n=n, seed=1, out=out)
    report = run_synth(bench, plan)
    ms = (time.perf_counter() - started) * 1000
    return [
        len(plan.tasks),
        len(report.kept),
        report.endpoint_calls,
        report.cached_calls + report.resumed,
        f"{report.spent_tokens:,}",
        f"{ms:.0f}",
        f"{ms / max(1, len(plan.tasks)):.1f}",
    ]


def judge(bench: Workbench, collection: str, pool: str) -> list:
    from workbench.golden import llm_judge

    config = bench.config_for(collection)
    client = bench.llm()
    started = time.perf_counter()
    row, todo, report = llm_judge.plan(bench.catalog, client, pool, None)
    llm_judge.run(
        bench.catalog,
        client,
        row,
        todo,
        report,
        llm_judge.passage_reader(bench, collection),
        max_calls=None,
        timeout_s=config.synth.timeout_s,
        max_tokens=config.synth.max_tokens,
        max_chunk_chars=config.synth.max_chunk_chars,
    )
    ms = (time.perf_counter() - started) * 1000
    return [
        report.pairs,
        report.recorded,
        report.endpoint_calls,
        report.cached_calls + report.already,
        f"{report.tokens:,}",
        f"{ms:.0f}",
        f"{ms / max(1, report.pairs):.1f}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--home", help="a copy of a home (its catalog keeps replies and grades); default: the demo in a temp home"
    )
    parser.add_argument("--collection", "-c", default="demo")
    parser.add_argument("--n", type=int, default=30, help="questions to write (default 30)")
    parser.add_argument("--depth", type=int, default=5, help="pool depth per configuration (default 5)")
    parser.add_argument("--endpoint", action="store_true", help="use WORKBENCH_LLM_* instead of the fake server")
    parser.add_argument("--smoke", action="store_true", help="the whole path in seconds: 3 questions, depth 2")
    args = parser.parse_args()
    if args.smoke:
        args.n, args.depth = 3, 2
    fake = None
    if not args.endpoint:
        from tests.fake_openai import FakeOpenAI

        fake = FakeOpenAI().start()
        fake.synth_fault_every = 5
        os.environ.update({k: v for k, v in fake.env().items() if v})
    home = Path(args.home) if args.home else Path(tempfile.mkdtemp(prefix="bench-golden-"))
    bench = Workbench(home)
    if not args.home:
        from workbench.demo import load_demo

        print(f"loading the demo into {home} ...", file=sys.stderr)
        load_demo(bench)
    config = bench.config_for(args.collection)
    bench.snapshot(args.collection, config)  # indexes and the embedding model loaded before timing
    bench.embed_query(config.embedding.model, "warm up")
    out = f"bench-synth-{os.getpid()}"
    rows = [
        ["golden synth (first)", *synth(bench, args.collection, args.n, out)],
        ["golden synth (again)", *synth(bench, args.collection, args.n, out)],
    ]
    table(
        f"golden synth, {args.n} questions from {args.collection}",
        ["run", "tasks", "kept", "endpoint calls", "cached/resumed", "tokens", "total ms", "ms per item"],
        rows,
    )

    from workbench.cli import main as cli

    code = cli(
        [
            "golden",
            "pool",
            "--queries",
            out,
            "-c",
            args.collection,
            "--configs",
            "retrieval.mode=bm25",
            "retrieval.mode=dense",
            "--depth",
            str(args.depth),
            "--name",
            out,
            "--home",
            str(home),
        ]
    )
    assert code == 0, "pooling failed"
    rows = [
        ["golden judge --llm (first)", *judge(bench, args.collection, out)],
        ["golden judge --llm (again)", *judge(bench, args.collection, out)],
    ]
    table(
        f"golden judge --llm, pool of the synth set's questions (bm25 + dense, top {args.depth} each)",
        ["run", "pairs", "recorded", "endpoint calls", "cached/skipped", "tokens", "total ms", "ms per pair"],
        rows,
    )
    source = "configured endpoint" if args.endpoint else "fake endpoint on 127.0.0.1 (every 5th passage a bad reply)"
    print(f"\n{source}; load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if fake is not None:
        fake.stop()


if __name__ == "__main__":
    main()
