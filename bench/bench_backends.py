"""Query latency per retrieval mode: the local backend (hnswlib + bm25s files) against Milvus Lite.

    python bench/bench_backends.py                  # a 300-abstract SciFact slice, both backends, in a temp home
    python bench/bench_backends.py --docs 1000
    python bench/bench_backends.py --home HOME --local scifact --milvus scifact-milvus   # existing collections

Every query runs the whole pipeline (``Workbench.query``) with its vector cached, as the app does
after the first run; the Milvus side adds the gRPC round trip to the Milvus Lite server in this
process. For Milvus the ``raw`` columns time the pymilvus calls the pipeline made for the same
query (recorded from its client: search per route, hybrid_search, query by ids), replayed on
the client directly, interleaved with the pipeline runs; ``x raw`` is pipeline p50 / raw p50, the
share of the latency that is ours. Prints tables; asserts nothing. Numbers depend on the machine
(2 cores here) and its load, printed with them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import data
from bench.printing import table
from workbench.service import Workbench

MODES = ("bm25", "dense", "hybrid")
#: the pymilvus client's read calls; the pipeline writes nothing
CLIENT_READS = ("search", "hybrid_search", "query", "get")


def build_slice(docs: int, demo: bool) -> tuple[Workbench, str, str]:
    """The first ``docs`` SciFact abstracts in a local and a Milvus Lite collection of a temp home."""
    bench = Workbench(Path(tempfile.mkdtemp(prefix="bench-backends-")))
    sources = [abstract.source() for abstract in data.abstracts(docs, demo)]
    rows: list[list[object]] = []
    overrides: list[str]
    for name, overrides in (("local", []), ("milvus", ["index.backend=milvus"])):
        started = time.perf_counter()
        report = bench.ingest(name, sources, bench.config_for(None, overrides=overrides))
        rows.append([name, docs, report.embedded, f"{time.perf_counter() - started:.1f}"])
    table("ingestion (the Milvus one reuses the embedding cache)", ["backend", "docs", "embedded", "seconds"], rows)
    return bench, "local", "milvus"


def percentile(sorted_values: list[float], share: float) -> float:
    return sorted_values[round(share * (len(sorted_values) - 1))]


@contextmanager
def recorded_reads(client, calls: list):
    """Record every read call made on ``client`` (the bound method and its arguments) while inside."""
    for name in CLIENT_READS:
        original = getattr(client, name)

        def record(*args, _original=original, **kwargs):
            calls.append((_original, args, kwargs))
            return _original(*args, **kwargs)

        setattr(client, name, record)  # the instance attribute shadows the method
    try:
        yield calls
    finally:
        for name in CLIENT_READS:
            delattr(client, name)


def milvus_client(bench: Workbench, collection: str, config):
    """The pymilvus client the snapshot's routes search with (None for a local snapshot)."""
    snapshot = bench.snapshot(collection, config)
    from store.milvus.views import MilvusDenseIndex

    return snapshot.dense.collection.client if isinstance(snapshot.dense, MilvusDenseIndex) else None


def latency(bench: Workbench, collection: str, mode: str, queries: list[str]) -> tuple[list[float], list[float], int]:
    """Sorted per-query ms of the pipeline and (Milvus) of its raw client calls, and the calls per query."""
    config = bench.config_for(collection, overrides=[f"retrieval.mode={mode}"])
    bench.embed_queries(config.embedding.key, queries)
    bench.query(queries[0], collection, config)  # loads the snapshot (and opens Milvus Lite)
    client = milvus_client(bench, collection, config)
    recorded: list[list] = []
    if client is not None:
        for query in queries:
            with recorded_reads(client, []) as calls:
                bench.query(query, collection, config)
            recorded.append(calls)
    pipeline, raw = [], []

    def run_pipeline(query: str) -> None:
        started = time.perf_counter()
        bench.query(query, collection, config)
        pipeline.append((time.perf_counter() - started) * 1000)

    def replay(calls: list) -> None:
        started = time.perf_counter()
        for call, args, kwargs in calls:
            call(*args, **kwargs)
        raw.append((time.perf_counter() - started) * 1000)

    for number, query in enumerate(queries):
        if client is None:
            run_pipeline(query)
        elif number % 2:  # alternate which goes first, so neither always finds the other's warm caches
            replay(recorded[number])
            run_pipeline(query)
        else:
            run_pipeline(query)
            replay(recorded[number])
    calls = round(statistics.fmean(len(c) for c in recorded)) if recorded else 0
    return sorted(pipeline), sorted(raw), calls


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", help="an existing home (default: build a SciFact slice in a temp home)")
    parser.add_argument("--local", default="scifact", help="the local collection in --home")
    parser.add_argument("--milvus", default="scifact-milvus", help="the Milvus collection in --home")
    parser.add_argument("--docs", type=int, default=300, help="abstracts in the slice (without --home)")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--smoke", action="store_true", help="the whole path in seconds: 6 demo abstracts, 3 claims")
    args = parser.parse_args()
    if args.smoke:
        args.docs, args.queries = 6, 3
    if args.home:
        bench, local, milvus = Workbench(args.home), args.local, args.milvus
    else:
        bench, local, milvus = build_slice(args.docs, args.smoke)
    queries = data.claims(args.queries, args.smoke)
    rows = []
    for mode in MODES:
        for backend, collection in (("local", local), ("milvus lite", milvus)):
            timings, raw, calls = latency(bench, collection, mode, queries)
            raw_cells = (
                [
                    f"{statistics.median(raw):.2f}",
                    f"{percentile(raw, 0.95):.2f}",
                    calls,
                    f"{statistics.median(timings) / statistics.median(raw):.2f}",
                ]
                if raw
                else ["-"] * 4
            )
            rows.append(
                [
                    mode,
                    backend,
                    len(timings),
                    f"{statistics.median(timings):.2f}",
                    f"{percentile(timings, 0.95):.2f}",
                    f"{statistics.fmean(timings):.2f}",
                    *raw_cells,
                ]
            )
    chunks = {name: len(bench.snapshot(name, bench.config_for(name)).chunks) for name in (local, milvus)}
    table(
        f"query latency, ms per query, whole pipeline, cached query vectors "
        f"({chunks[local]} local chunks, {chunks[milvus]} Milvus chunks; load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())})",
        ["mode", "backend", "queries", "p50", "p95", "mean", "raw p50", "raw p95", "calls", "x raw"],
        rows,
    )


if __name__ == "__main__":
    main()
