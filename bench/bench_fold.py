"""What folding repeats (``fold.enabled``) costs a query, on the short list a user sees and on the
deep list evaluation reads (``retrieval.top_k`` raised to 300 for recall@100 at doc level).

    python bench/bench_fold.py                                  # 1,000 SciFact abstracts, 100 claims
    python bench/bench_fold.py --home DIR --collection demo     # a home's collection
    python bench/bench_fold.py --smoke --home DIR               # the demo home: 10 of its claims

Without ``--home``, builds a temporary home of ``--docs`` SciFact abstracts (the demo's abstracts
when SciFact is not beside the checkout). Each query runs BM25 with ``retrieval.candidates`` and
``retrieval.top_k`` at 10 and at the depth: without folding, folding with every chunk's signature
computed afresh ("first sight": what a query pays for chunks no query before it met), and folding
as the queries come (signatures are kept per chunk text, so an evaluation's later queries reuse
those of the chunks earlier ones met). The table gives the final stage's milliseconds per query
(p50, p95, mean with its 95% interval) and the whole query's p50. Folding walks the list until it
holds ``top_k`` distinct hits, reading and hashing each hit's text, so its cost grows with the
depth. Prints the load average; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
PROJECT_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_DIR))

from bench import data  # noqa: E402
from bench.printing import table  # noqa: E402

#: evaluation's deepest list: recall@100 at doc level reads 3 chunks per document
EVALUATION_DEPTH = 300


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def mean_interval(values: list[float]) -> str:
    """The mean with a normal 95% interval over the queries."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0
    return f"{mean:.2f} [{mean - half:.2f}, {mean + half:.2f}]"


def build_home(home: Path, count: int, demo: bool) -> str:
    """A home holding ``count`` abstracts as the collection ``abstracts``, indexed for BM25."""
    from workbench.service import Workbench

    bench = Workbench(home)
    config = bench.config_for(None, overrides=["retrieval.mode=bm25"])
    report = bench.ingest("abstracts", [abstract.source() for abstract in data.abstracts(count, demo)], config)
    if report.count("failed"):
        raise SystemExit(f"ingesting the abstracts failed: {report.summary()}")
    return "abstracts"


def measure(home: Path, collection: str, queries: list[str], depth: int) -> list[list]:
    from workbench.retrieval.fold import forget_signatures
    from workbench.retrieval.stages import FINAL
    from workbench.service import Workbench

    bench = Workbench(home)
    rows = []
    # "fold, first sight": every chunk's signature computed afresh (kept ones forgotten before each
    # query), what a query pays for chunks no query before it met; "fold": as the queries run
    settings = (("no fold", False, False), ("fold, first sight", True, True), ("fold", True, False))
    for top_k in dict.fromkeys((10, depth)):
        base = ["retrieval.mode=bm25", f"retrieval.candidates={max(depth, 100)}", f"retrieval.top_k={top_k}"]
        for label, enabled, forget in settings:
            config = bench.config_for(collection, overrides=[*base, f"fold.enabled={str(enabled).lower()}"])
            bench.query(queries[0], collection, config)  # the snapshot loads on the first query: untimed
            final_ms, query_ms, folded = [], [], 0
            for query in queries:
                if forget:
                    forget_signatures()
                trace = bench.query(query, collection, config)
                stage = trace.stage(FINAL)
                assert stage is not None
                final_ms.append(stage.elapsed_ms)
                query_ms.append(trace.total_ms)
                folded += sum(len(detail.get("places", ())) for detail in stage.details.values())
            rows.append(
                [
                    label,
                    top_k,
                    len(queries),
                    f"{percentile(final_ms, 0.5):.2f}",
                    f"{percentile(final_ms, 0.95):.2f}",
                    mean_interval(final_ms),
                    f"{percentile(query_ms, 0.5):.1f}",
                    folded,
                ]
            )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, help="a home with the collection (default: new, of SciFact abstracts)")
    parser.add_argument("--collection", default="demo", help="the collection of --home (default demo)")
    parser.add_argument("--docs", type=int, default=1000, help="abstracts in the home built without --home")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--depth", type=int, default=EVALUATION_DEPTH, help="the deep list's top_k")
    parser.add_argument("--smoke", action="store_true", help="10 queries (on --home, or 40 demo abstracts)")
    arguments = parser.parse_args()
    if arguments.smoke:
        arguments.queries, arguments.docs = 10, 40
    with tempfile.TemporaryDirectory(prefix="bench-fold-") as folder:
        home, collection = arguments.home, arguments.collection
        if home is None:
            home = Path(folder) / "home"
            collection = build_home(home, arguments.docs, arguments.smoke)
        queries = data.claims(arguments.queries, arguments.smoke)
        load_before = os.getloadavg()[0]
        rows = measure(home, collection, queries, arguments.depth)
        table(
            f"the final stage with and without folding, {collection} ({data.described(arguments.smoke)} claims), "
            f"BM25 at {arguments.depth} candidates: ms per query (mean with its 95% interval over the queries), "
            f"the whole query's p50, repeats folded in all; load average {load_before:.2f} before, "
            f"{os.getloadavg()[0]:.2f} after, {os.cpu_count()} cores",
            ["setting", "top_k", "queries", "final p50 ms", "final p95 ms", "final mean ms", "query p50 ms", "folded"],
            rows,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
