"""LLM stages: what each costs per query, first time and from the cache, against a local endpoint.

    python bench/bench_llm.py --home HOME --collection scifact            # the tests' fake endpoint
    python bench/bench_llm.py --home HOME --collection scifact --endpoint # WORKBENCH_LLM_* as set

Without ``--endpoint`` it starts the fake OpenAI-compatible server the tests use (a real HTTP
server on 127.0.0.1 that answers in about a millisecond), so "first" shows the workbench's own
overhead around the calls, not a model's latency; with ``--endpoint`` it uses the configured one.
Each setting runs the same queries twice in one process, then once more in a fresh ``Workbench``
(the reply cache in the catalog, not in memory). The home's catalog keeps the replies: copy a
home for this, never point it at one you share.

Prints tables; asserts nothing. Numbers depend on the machine (2 cores here).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import data  # noqa: E402
from bench.printing import table  # noqa: E402
from workbench.service import Workbench  # noqa: E402

SETTINGS = {
    "none (baseline)": [],
    "query.enhance=keywords": ["query.enhance=keywords"],
    "query.enhance=rewrite": ["query.enhance=rewrite"],
    "query.enhance=multi": ["query.enhance=multi"],
    "query.enhance=hyde": ["query.enhance=hyde"],
    "query.enhance=decompose": ["query.enhance=decompose"],
    "rerank.method=llm (top_m 30)": ["rerank.method=llm"],
    "multi + llm rerank": ["query.enhance=multi", "rerank.method=llm"],
}


def run(bench: Workbench, collection: str, queries: list[str], overrides: list[str]) -> dict:
    config = bench.config_for(collection).with_overrides(overrides)
    llm = bench.llm()
    before = llm.endpoint_calls
    timings, tokens = [], 0
    for query in queries:
        started = time.perf_counter()
        trace = bench.query(query, collection, config)
        timings.append((time.perf_counter() - started) * 1000)
        tokens += sum((call.total_tokens or 0) for _, call in trace.llm_calls() if not call.cached)
    return {
        "p50": statistics.median(timings),
        "mean": statistics.fmean(timings),
        "calls": (llm.endpoint_calls - before) / len(queries),
        "tokens": tokens / len(queries),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--home", help="a copy of a home (its catalog keeps the replies); default: the demo in a temp home"
    )
    parser.add_argument("--collection", help="default: scifact in --home, demo without it")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--endpoint", action="store_true", help="use WORKBENCH_LLM_* instead of the fake server")
    parser.add_argument("--smoke", action="store_true", help="the whole path in seconds: 2 claims")
    args = parser.parse_args()
    if args.smoke:
        args.queries = 2
    demo = args.home is None
    if demo:
        from workbench.demo import load_demo

        args.home = tempfile.mkdtemp(prefix="bench-llm-")
        print(f"loading the demo into {args.home} ...", file=sys.stderr)
        load_demo(Workbench(args.home))
    args.collection = args.collection or ("demo" if demo else "scifact")
    fake = None
    if not args.endpoint:
        from tests.fake_openai import FakeOpenAI

        fake = FakeOpenAI().start()
        os.environ.update({k: v for k, v in fake.env().items() if v})
    queries = data.claims(args.queries, args.smoke)
    bench = Workbench(args.home)
    base = bench.config_for(args.collection)
    bench.embed_queries(base.embedding.key, queries)
    bench.snapshot(args.collection, base)
    rows = []
    for name, overrides in SETTINGS.items():
        first = run(bench, args.collection, queries, overrides)
        again = run(bench, args.collection, queries, overrides)
        fresh = Workbench(args.home)  # a new process's worth of state: only the catalog remembers
        fresh.embed_queries(base.embedding.key, queries)
        fresh.snapshot(args.collection, base)
        catalog = run(fresh, args.collection, queries, overrides)
        rows.append(
            [
                name,
                f"{first['calls']:.1f}",
                f"{first['tokens']:.0f}",
                f"{first['p50']:.1f}",
                f"{again['p50']:.1f}",
                f"{again['calls']:.0f}",
                f"{catalog['p50']:.1f}",
                f"{catalog['calls']:.0f}",
            ]
        )
    source = "configured endpoint" if args.endpoint else "fake endpoint on 127.0.0.1"
    table(
        f"per query, {len(queries)} claims of {data.described(args.smoke)}, {source} (ms are p50)",
        ["setting", "calls/q", "tokens/q", "first ms", "memory-cached ms", "calls", "catalog-cached ms", "calls"],
        rows,
    )
    print(
        "\ncalls/q and tokens/q count endpoint calls of the first pass; the settings run in order and share the\n"
        "reply cache, so 'multi + llm rerank' pays only for what the rows above did not already ask."
    )
    if fake is not None:
        fake.stop()


if __name__ == "__main__":
    main()
