"""How long the Retrieval lab takes to re-render after a query-time change (no assertions).

For a few queries and parameter changes, times what one re-render of the lab does: both sides'
``Workbench.query`` (indexes and query vectors already loaded) and the analyses drawn from them
(stage rows, rank flow and its figure, the A/B diff, one explanation, the context). The target
is about half a second per re-render on the demo collection without rerank.

    python bench/bench_retrieval_lab.py                      # a temporary home with the demo loaded
    python bench/bench_retrieval_lab.py --home data --collection demo --repeats 7
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
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.printing import table
from workbench.analysis.charts import rank_flow_figure
from workbench.analysis.diff import diff_finals
from workbench.analysis.explain import explain_hit
from workbench.analysis.rank_flow import rank_flow
from workbench.analysis.side_config import side_config, side_values
from workbench.analysis.tables import diff_rows, stage_rows
from workbench.generation.context import assemble_context, build_prompt
from workbench.service import Workbench

DEFAULT_QUERIES = (
    "How does reciprocal rank fusion combine rankings?",
    "Autophagy declines in aged organisms.",
    "chunk overlap",
)
#: side B's changes, each against side A = the collection's default configuration
CHANGES: dict[str, dict[str, object]] = {
    "B = A + MMR": {"mmr.enabled": True},
    "RRF k 60 -> 10": {"fusion.k": 10},
    "weighted 0.7/0.3": {"fusion.method": "weighted", "fusion.weights": (0.7, 0.3)},
    "top_k 10 -> 5": {"retrieval.top_k": 5},
    "candidates 100 -> 30": {"retrieval.candidates": 30},
    "bm25 only": {"retrieval.mode": "bm25"},
    "exact dense": {"dense.exact": True},
    "MMR λ 0.3, pool 20": {"mmr.enabled": True, "mmr.lambda": 0.3, "mmr.pool": 20},
}


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000.0


def render_once(bench: Workbench, collection: str, query: str, config_a, config_b) -> tuple[float, float, float]:
    """One lab re-render: (side A query ms, side B query ms, analyses ms)."""
    started = time.perf_counter()
    trace_a = bench.query(query, collection, config_a)
    a_ms = _ms(started)
    started = time.perf_counter()
    trace_b = bench.query(query, collection, config_b)
    b_ms = _ms(started)

    started = time.perf_counter()
    snapshot = bench.snapshot(collection, config_a)
    for trace in (trace_a, trace_b):
        for name in trace.stage_names():
            stage_rows(trace, name)
        flow = rank_flow(trace)
        rank_flow_figure(flow).to_dict()
    diff_rows(diff_finals(trace_a.final, trace_b.final), {**trace_a.chunks, **trace_b.chunks})
    if trace_a.final.hits:
        vector = bench.embed_query(config_a.embedding.key, query)
        explain_hit(trace_a, snapshot, trace_a.final.hits[0].chunk_id, vector)
    build_prompt(query, assemble_context(trace_a.final_chunks()))
    return a_ms, b_ms, _ms(started)


def run(bench: Workbench, collection: str, queries: list[str], repeats: int) -> int:
    if collection not in bench.collection_names():
        print(
            f"collection {collection!r} not found; known: {', '.join(bench.collection_names()) or 'none'}",
            file=sys.stderr,
        )
        return 2
    base = bench.config_for(collection)
    started = time.perf_counter()
    bench.query(queries[0], collection, base)  # loads the indexes and the embedding model
    print(f"first query (loads indexes and model): {_ms(started):.0f} ms\n")
    for query in queries:
        bench.embed_query(base.embedding.key, query)  # a typed query is embedded once, then cached

    rows: list[list[object]] = []
    totals = []
    for label, change in CHANGES.items():
        config_b = side_config(base, {**side_values(base), **change})
        for query in queries:
            samples = [render_once(bench, collection, query, base, config_b) for _ in range(repeats)]
            a_ms, b_ms, analysis_ms = (statistics.median(column) for column in zip(*samples, strict=False))
            total = a_ms + b_ms + analysis_ms
            totals.append(total)
            rows.append([label, query[:42], f"{a_ms:.1f}", f"{b_ms:.1f}", f"{analysis_ms:.1f}", f"{total:.1f}"])
    table(
        f"one lab re-render, ms (median of {repeats}; side A the collection's configuration)",
        ["change", "query", "A ms", "B ms", "analysis", "total"],
        rows,
    )
    print(
        f"\nmedian re-render (queries + analyses, no Streamlit drawing): {statistics.median(totals):.1f} ms; "
        f"slowest {max(totals):.1f} ms"
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", help="a workbench home (default: a temporary one with the demo loaded)")
    parser.add_argument("--collection", default="demo")
    parser.add_argument("--repeats", type=int, default=5, help="re-renders per row (the median is shown)")
    parser.add_argument("--query", action="append", help="a query to time (repeatable)")
    parser.add_argument("--smoke", action="store_true", help="the whole path in seconds: one query, one re-render")
    args = parser.parse_args()
    queries = args.query or list(DEFAULT_QUERIES)
    if args.smoke:
        queries, args.repeats = queries[:1], 1
    if args.home:
        return run(Workbench(args.home), args.collection, queries, args.repeats)

    from workbench.demo import load_demo

    with tempfile.TemporaryDirectory(prefix="bench-lab-") as home:
        print(f"loading the demo into a temporary home ({home}) ...", flush=True)
        bench = Workbench(home)
        load_demo(bench)
        return run(bench, args.collection, queries, args.repeats)


if __name__ == "__main__":
    sys.exit(main())
