"""Core benchmark: ingestion throughput, re-run cost, and per-mode query latency.

    python bench/bench_core.py                      # a 300-document SciFact slice in a temp home
    python bench/bench_core.py --docs 1000
    python bench/bench_core.py --home /tmp/scifact_home --collection scifact   # an existing home

Prints tables; asserts nothing. Numbers depend on the machine (2 cores here).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import data
from bench.printing import table
from workbench.service import Workbench


def build_slice(docs: int, demo: bool) -> tuple[Workbench, str]:
    home = Path(tempfile.mkdtemp(prefix="bench-core-"))
    bench = Workbench(home)
    sources = [abstract.source() for abstract in data.abstracts(docs, demo)]
    rows: list[list[object]] = []
    for label in ("first ingest", "re-run (unchanged)"):
        started = time.perf_counter()
        report = bench.ingest("slice", sources, bench.config_for(None))
        elapsed = time.perf_counter() - started
        rows.append(
            [label, len(sources), report.parsed, report.embedded, f"{elapsed:.1f}", f"{len(sources) / elapsed:.1f}"]
        )
    table(f"ingestion ({data.described(demo)})", ["run", "docs", "parsed", "embedded", "seconds", "docs/s"], rows)
    return bench, "slice"


def query_latency(bench: Workbench, collection: str, queries: list[str]) -> None:
    variants = {
        "bm25": ["retrieval.mode=bm25"],
        "dense (HNSW)": ["retrieval.mode=dense"],
        "dense (exact)": ["retrieval.mode=dense", "dense.exact=true"],
        "hybrid RRF": ["retrieval.mode=hybrid"],
        "hybrid weighted": ["retrieval.mode=hybrid", "fusion.method=weighted"],
        "hybrid + MMR": ["retrieval.mode=hybrid", "mmr.enabled=true"],
    }
    base = bench.config_for(collection)
    bench.embed_queries(base.embedding.key, queries)  # query vectors are cached, as in the app
    bench.snapshot(collection, base)
    rows = []
    for name, overrides in variants.items():
        config = base.with_overrides(overrides)
        timings = []
        for query in queries:
            started = time.perf_counter()
            bench.query(query, collection, config)
            timings.append((time.perf_counter() - started) * 1000)
        timings.sort()
        rows.append(
            [
                name,
                len(queries),
                f"{statistics.median(timings):.1f}",
                f"{timings[int(0.95 * (len(timings) - 1))]:.1f}",
                f"{max(timings):.1f}",
            ]
        )
    table(
        f"query latency, ms ({len(bench.snapshot(collection, base).chunks)} chunks, cached query vectors)",
        ["pipeline", "queries", "p50", "p95", "max"],
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home")
    parser.add_argument("--collection", default="scifact")
    parser.add_argument("--docs", type=int, default=300)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--smoke", action="store_true", help="the whole path in seconds: 6 demo abstracts, 3 claims")
    args = parser.parse_args()
    if args.smoke:
        args.docs, args.queries = 6, 3
    if args.home:
        bench, collection = Workbench(args.home), args.collection
    else:
        bench, collection = build_slice(args.docs, args.smoke)
    queries = data.claims(args.queries, args.smoke)
    query_latency(bench, collection, queries)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    table("memory", ["measure", "value"], [["peak RSS (MiB)", f"{peak_mib:.0f}"]])


if __name__ == "__main__":
    main()
