"""Query-path overhead: the pipeline against the raw index calls it wraps, per retrieval mode.

    python bench/bench_query.py                                   # $WORKBENCH_HOME or ./data, collection scifact
    python bench/bench_query.py --home /work/homes/me --collection scifact
    python bench/bench_query.py --queries 100 --rounds 5

Needs a home with a BEIR collection and its golden set (``python -m workbench import-beir
../shared/datasets/scifact --home H`` makes one). The queries are the golden set's (300 for
SciFact). Query vectors are embedded before timing, as the app and evaluation cache them, so
both sides time retrieval only.

For each mode it times, in one process:

- pipeline: ``Workbench.query`` with the collection's configuration and ``retrieval.mode=MODE``,
  what evaluation, sweeps, the app, the CLI and the MCP server call;
- raw: the index calls underneath, with the same candidate count: the BM25 index's ``search``
  (bm25), hnswlib's ``knn_query`` on the same graph file (dense), both (hybrid).

The two sides alternate query by query, ``--rounds`` times; each query counts with its fastest
time on each side (the least disturbed by other processes on a shared machine), and the table
shows the mean over queries. "same ids" checks that every route's candidates in the pipeline's
trace are exactly the raw calls' results.
Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import hnswlib

from bench.printing import table
from store.dense_index import GRAPH_FILE, normalize_rows
from workbench.evaluation import golden as golden_sets
from workbench.service import NotFoundError, Workbench

MODES = ("bm25", "dense", "hybrid")


def fastest_per_query(pipeline, raw, queries: int, rounds: int) -> tuple[float, float]:
    """Mean over queries of each query's fastest time (ms), per side.

    The two sides alternate query by query, in turns that swap which goes first, so both see the
    same machine load and the same warm caches; the fastest of ``rounds`` is the least disturbed.
    """
    best = {pipeline: [float("inf")] * queries, raw: [float("inf")] * queries}
    for turn in range(rounds):
        sides = (pipeline, raw) if turn % 2 == 0 else (raw, pipeline)
        for position in range(queries):
            for side in sides:
                started = time.perf_counter()
                side(position)
                elapsed = time.perf_counter() - started
                if elapsed < best[side][position]:
                    best[side][position] = elapsed
    return (sum(best[pipeline]) * 1000.0 / queries, sum(best[raw]) * 1000.0 / queries)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", help="workbench home holding the collection (default: $WORKBENCH_HOME or ./data)")
    parser.add_argument("--collection", default="scifact", help="collection to query (default: scifact)")
    parser.add_argument("--golden", help="golden set whose queries are timed (default: the collection's name)")
    parser.add_argument("--queries", type=int, default=300, help="how many of its queries (default: 300)")
    parser.add_argument("--rounds", type=int, default=5, help="timed passes over the queries per mode (default: 5)")
    parser.add_argument(
        "--smoke", action="store_true", help="the whole path in seconds: 3 queries, 1 round (the demo without --home)"
    )
    args = parser.parse_args()
    if args.smoke:
        args.queries, args.rounds = 3, 1
        if args.home is None:
            from workbench.demo import load_demo

            args.home, args.collection = tempfile.mkdtemp(prefix="bench-query-"), "demo"
            load_demo(Workbench(args.home))

    bench = Workbench(args.home)
    try:
        base = bench.config_for(args.collection)
        golden = golden_sets.find(args.golden or args.collection, bench.home)
    except (NotFoundError, FileNotFoundError, ValueError) as error:
        print(
            f"bench_query: {error}\n(import one first: python -m workbench import-beir "
            f"../shared/datasets/scifact --home {bench.home})",
            file=sys.stderr,
        )
        return 2
    texts = [query.query for query in golden.queries[: args.queries]]
    if not texts:
        print(f"bench_query: golden set {golden.name!r} has no queries", file=sys.stderr)
        return 2

    snapshot = bench.snapshot(args.collection, base)
    model = base.embedding.key
    bench.embed_queries(model, texts)
    # What the dense index hands hnswlib: the unit-length query vector.
    unit_vectors = [normalize_rows(bench.embed_query(model, text).reshape(1, -1)) for text in texts]
    candidates = base.retrieval.candidates
    graph = None
    if snapshot.dense is not None and len(snapshot.dense):
        graph = hnswlib.Index(space="cosine", dim=snapshot.dense.dim)
        graph.load_index(str(snapshot.folder / "dense" / GRAPH_FILE))
        graph.set_ef(max(base.dense.ef_search, candidates))
    sparse = snapshot.sparse

    def raw_bm25(position: int) -> list[int]:
        return [chunk_id for chunk_id, _ in sparse.search(texts[position], candidates)]

    def raw_dense(position: int) -> list[int]:
        assert graph is not None  # only the modes with vectors ask (the loop below skips the others)
        # hnswlib refuses a k above the vectors it holds: a small collection has fewer than the candidates
        k = min(candidates, graph.get_current_count())
        ids: list[int] = graph.knn_query(unit_vectors[position], k=k, num_threads=1)[0][0].tolist()
        return ids

    raw_routes = {
        "bm25": {"bm25": raw_bm25},
        "dense": {"dense": raw_dense},
        "hybrid": {"dense": raw_dense, "bm25": raw_bm25},
    }
    rows = []
    for mode in MODES:
        if mode != "bm25" and graph is None:
            rows.append([mode, len(texts), "-", "-", "-", "no vectors"])
            continue
        config = base.with_value("retrieval.mode", mode)
        routes = raw_routes[mode]

        def pipeline(position: int, config=config):
            return bench.query(texts[position], args.collection, config)

        def raw(position: int, routes=routes) -> dict[str, list[int]]:
            return {route: call(position) for route, call in routes.items()}

        # The untimed first pass warms both sides and checks they find the same candidates.
        same = True
        for position in range(len(texts)):
            trace, found = pipeline(position), raw(position)
            same &= all(trace.stage(route).ranked.chunk_ids() == ids for route, ids in found.items())
        pipeline_ms, raw_ms = fastest_per_query(pipeline, raw, len(texts), args.rounds)
        rows.append(
            [
                mode,
                len(texts),
                f"{pipeline_ms:.3f}",
                f"{raw_ms:.3f}",
                f"{pipeline_ms / raw_ms:.2f}",
                "yes" if same else "NO",
            ]
        )
    chunks = len(snapshot.chunks)
    table(
        f"query path vs raw index calls, ms/query ({args.collection}: {chunks} chunks, {candidates} candidates, "
        f"cached query vectors, fastest of {args.rounds} per query)",
        ["mode", "queries", "pipeline", "raw index", "ratio", "same ids"],
        rows,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
