"""Query latency per retrieval mode: the local backend (hnswlib + bm25s files) against Milvus Lite.

    python bench/bench_backends.py                  # a 300-abstract SciFact slice, both backends, in a temp home
    python bench/bench_backends.py --docs 1000
    python bench/bench_backends.py --home HOME --local scifact --milvus scifact-milvus   # existing collections

Every query runs the whole pipeline (``Workbench.query``) with its vector cached, as the app does
after the first run; the Milvus side adds the gRPC round trip to the Milvus Lite server in this
process. Prints tables; asserts nothing. Numbers depend on the machine (2 cores here).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.printing import table  # noqa: E402
from workbench.ingestion.beir import corpus_sources  # noqa: E402
from workbench.service import Workbench  # noqa: E402

SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "scifact"
MODES = ("bm25", "dense", "hybrid")


def build_slice(docs: int) -> tuple[Workbench, str, str]:
    """The first ``docs`` SciFact abstracts in a local and a Milvus Lite collection of a temp home."""
    bench = Workbench(Path(tempfile.mkdtemp(prefix="bench-backends-")))
    sources, _ = corpus_sources(SCIFACT)
    rows = []
    for name, overrides in (("local", []), ("milvus", ["index.backend=milvus"])):
        started = time.perf_counter()
        report = bench.ingest(name, sources[:docs], bench.config_for(None, overrides=overrides))
        rows.append([name, docs, report.embedded, f"{time.perf_counter() - started:.1f}"])
    table("ingestion (the Milvus one reuses the embedding cache)", ["backend", "docs", "embedded", "seconds"], rows)
    return bench, "local", "milvus"


def percentile(sorted_values: list[float], share: float) -> float:
    return sorted_values[round(share * (len(sorted_values) - 1))]


def latency(bench: Workbench, collection: str, mode: str, queries: list[str]) -> list[float]:
    config = bench.config_for(collection, overrides=[f"retrieval.mode={mode}"])
    bench.embed_queries(config.embedding.key, queries)
    bench.query(queries[0], collection, config)  # loads the snapshot (and opens Milvus Lite)
    timings = []
    for query in queries:
        started = time.perf_counter()
        bench.query(query, collection, config)
        timings.append((time.perf_counter() - started) * 1000)
    return sorted(timings)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", help="an existing home (default: build a SciFact slice in a temp home)")
    parser.add_argument("--local", default="scifact", help="the local collection in --home")
    parser.add_argument("--milvus", default="scifact-milvus", help="the Milvus collection in --home")
    parser.add_argument("--docs", type=int, default=300, help="abstracts in the slice (without --home)")
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    if args.home:
        bench, local, milvus = Workbench(args.home), args.local, args.milvus
    else:
        bench, local, milvus = build_slice(args.docs)
    queries = [json.loads(line)["text"] for line in (SCIFACT / "queries.jsonl").open()][: args.queries]
    rows = []
    for mode in MODES:
        for backend, collection in (("local", local), ("milvus lite", milvus)):
            timings = latency(bench, collection, mode, queries)
            rows.append([mode, backend, len(timings), f"{statistics.median(timings):.1f}",
                         f"{percentile(timings, 0.95):.1f}", f"{statistics.fmean(timings):.1f}"])
    chunks = {name: len(bench.snapshot(name, bench.config_for(name)).chunks) for name in (local, milvus)}
    table(f"query latency, ms per query, whole pipeline, cached query vectors "
          f"({chunks[local]} local chunks, {chunks[milvus]} Milvus chunks)",
          ["mode", "backend", "queries", "p50", "p95", "mean"], rows)


if __name__ == "__main__":
    main()
