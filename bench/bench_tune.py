"""How fast ``tune`` runs trials, and what its index-time trials embed.

1. Query-time trials: a study over every query-time key of the default space (TPE, seeded) scored
   on all of a golden set's queries (SciFact: 300), timed per trial. Trials per minute count
   every completed trial, the first (which loads the indexes and embeds the queries) included;
   the study's own overhead (Optuna asking, recording and telling) is shown apart.
2. Index-time trials: a study over ``retrieval.mode`` and ``chunking.size`` in {500, 1000} (and
   the collection's own size), searched exhaustively: 6 trials over 2 layouts, one of them new.
   The embedder is watched: every text it is given is counted, so the table shows the texts
   embedded, how many were distinct, how many the cache gained, and the estimate ``tune`` printed
   beforehand. Building a new SciFact layout embeds about 24,000 texts (tens of minutes), so by
   default this part runs on a slice: a new home (a temporary folder) holding the first
   ``--index-docs`` documents the golden set judges relevant, re-ingested from their Markdown, and
   the queries they answer. The slice's own ingest is not counted. ``--index-docs 0`` runs it on
   the home given instead (where a layout already built embeds nothing: run twice, the second run
   embeds 0).


    .venv/bin/python bench/bench_tune.py                  # SciFact, built once (about 5 min) into a cache home
    .venv/bin/python bench/bench_tune.py --home HOME [--trials 60] [--index-docs 300] [--skip-index]

Without ``--home`` it imports ``../shared/datasets/scifact`` once into ``~/.cache/rag-workbench/
bench-tune-scifact`` (``--cache`` elsewhere) and runs on a temporary copy of it; ``--home`` names
a home holding the collection and golden set, and it too is copied first, so the bench never
writes into a home.

Prints tables and the load average (before, between and after); asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_DIR))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402

from bench.printing import table  # noqa: E402


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} (1, 5, 15 min; {os.cpu_count()} cores)"


def query_time_trials(bench, collection: str, golden, trials: int, seed: int) -> list[list]:
    from workbench.tuning.objective import Evaluator, tuning_objective
    from workbench.tuning.space import QUERY_TIME_KEYS, default_space, models_on_this_machine
    from workbench.tuning.split import all_queries
    from workbench.tuning.study import Budget, open_storage, open_study, run_study

    base = bench.config_for(collection)
    keys = [key for key in QUERY_TIME_KEYS if not key.startswith("rerank.")]
    space = default_space(base, models_on_this_machine(base), keys)
    queries = all_queries(golden)
    evaluator = Evaluator(bench, collection, "ndcg@10")
    storage = open_storage(Path(tempfile.mkdtemp(prefix="bench-tune-")) / "study.journal")
    study = open_study(storage, "query-time", seed=seed, pareto=False, max_p95_ms=None)
    started = time.monotonic()
    outcome = run_study(study, space, base, tuning_objective(evaluator, queries), Budget(trials), seed=seed)
    elapsed = time.monotonic() - started
    evaluating = sum(t.seconds for t in outcome.trials)
    later = outcome.trials[1:]
    later_elapsed = elapsed - outcome.trials[0].seconds if outcome.trials else 0.0
    best = outcome.best()
    return [
        [
            len(queries.queries),
            f"{space.size(base):,}",
            len(outcome.trials),
            outcome.duplicates,
            f"{elapsed:.1f}",
            f"{len(outcome.trials) / elapsed * 60:.1f}",
            f"{len(later) / later_elapsed * 60:.1f}" if later and later_elapsed > 0 else "-",
            f"{(elapsed - evaluating) / max(len(outcome.trials), 1) * 1000:.0f}",
            f"{best.metric:.4f}" if best else "-",
        ]
    ]


def slice_home(bench, collection: str, golden, documents: int):
    """A new home with the first ``documents`` documents ``golden`` judges relevant (from their
    Markdown, chunked and embedded as the collection is) and the queries they answer."""
    from store.repository import DocumentRow
    from workbench.ingestion.sources import Source
    from workbench.service import Workbench

    rows: dict[str, DocumentRow] = {}
    for row in bench.documents(collection):
        rows[row.source] = row
        if row.external_id:
            rows[row.external_id] = row
    chosen: dict[int, DocumentRow] = {}
    for query in golden.queries:
        for item in query.relevant:
            row = rows.get(item.doc) or rows.get(item.doc.removesuffix(".md"))
            if row is not None and len(chosen) < documents:
                chosen.setdefault(row.id, row)
    names = {name for row in chosen.values() for name in (row.source, row.external_id) if name}
    queries = tuple(q for q in golden.queries if q.relevant and all(item.doc in names for item in q.relevant))
    home = Path(tempfile.mkdtemp(prefix="bench-tune-slice-")) / "home"
    home.mkdir(parents=True)
    for kept in ("encoder_calibration.json", "ingest_rates.json"):  # the runtime choice: no new calibration
        if (bench.home / kept).exists():
            shutil.copy(bench.home / kept, home / kept)
    sliced = Workbench(home)
    sources = [Source.from_markdown(row.source, bench.markdown(row.id)[0], row.external_id) for row in chosen.values()]
    started = time.monotonic()
    report = sliced.ingest(collection, sources, bench.config_for(collection))
    print(
        f"slice for index-time trials: {len(sources)} documents ingested into {home} in "
        f"{time.monotonic() - started:.0f} s (not counted below), {len(queries)} queries they answer"
    )
    if report.failures:
        raise SystemExit(report.summary())
    return sliced, replace(golden, name=f"{golden.name}-slice", queries=queries, path=None)


def index_time_trials(bench, collection: str, golden, seed: int) -> list[list]:
    from store.embedding_cache import embedding_counts
    from workbench.embedding.registry import get_embedder
    from workbench.tuning.cost import estimate
    from workbench.tuning.objective import Evaluator, tuning_objective
    from workbench.tuning.space import default_space, models_on_this_machine
    from workbench.tuning.split import all_queries
    from workbench.tuning.study import Budget, open_storage, open_study, run_study

    base = bench.config_for(collection)
    space = default_space(base, models_on_this_machine(base), ["retrieval.mode", "chunking.size"])
    layouts = space.layouts(base)
    predicted = estimate(bench.catalog, bench.home, collection, layouts)
    model = base.embedding.key
    embedder = get_embedder(model)
    seen: list[str] = []
    original = embedder.embed

    def counting(texts: list[str]) -> np.ndarray:
        seen.extend(texts)
        return original(texts)

    embedder.embed = counting  # type: ignore[method-assign]  # the bench watches this one instance, then restores it
    queries = {q.query for q in golden.queries}
    before = embedding_counts(bench.catalog, [model])[model]
    storage = open_storage(Path(tempfile.mkdtemp(prefix="bench-tune-")) / "study.journal")
    study = open_study(storage, "index-time", seed=seed, pareto=False, max_p95_ms=None)
    evaluator = Evaluator(bench, collection, "ndcg@10")
    started = time.monotonic()
    outcome = run_study(study, space, base, tuning_objective(evaluator, all_queries(golden)), Budget(10), seed=seed)
    elapsed = time.monotonic() - started
    embedder.embed = original  # type: ignore[method-assign]
    corpus = [text for text in seen if text not in queries]
    cached = embedding_counts(bench.catalog, [model])[model] - before
    return [
        [
            len(layouts),
            len(outcome.trials),
            f"{predicted.texts:,}",
            f"{len(corpus):,}",
            f"{len(set(corpus)):,}",
            f"{len(corpus) - len(set(corpus)):,}",
            f"{cached:,}",
            f"{elapsed:.1f}",
        ]
    ]


SCIFACT = PROJECT_DIR.parent / "shared" / "datasets" / "scifact"
CACHE_HOME = Path.home() / ".cache" / "rag-workbench" / "bench-tune-scifact"


def scifact_home(cache: Path) -> Path:
    """A home with SciFact's corpus as collection ``scifact`` and its qrels as golden set ``scifact``,
    imported once into ``cache`` (the import is not timed)."""
    if (cache / "golden_sets" / "scifact.jsonl").exists():
        return cache
    from workbench.ingestion.beir import corpus_sources, import_golden
    from workbench.service import Workbench

    if not SCIFACT.is_dir():
        raise SystemExit(f"SciFact not found at {SCIFACT}; pass --home HOME holding a collection and golden set")
    building = cache.with_name(cache.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    started = time.monotonic()
    sources, _ = corpus_sources(SCIFACT)
    bench = Workbench(building)
    report = bench.ingest("scifact", sources, bench.config_for(None))
    if report.failures:
        raise SystemExit(report.summary())
    import_golden(SCIFACT, "scifact", building)
    building.rename(cache)  # whole or absent: an interrupted import starts again
    print(f"SciFact imported into {cache} in {time.monotonic() - started:.0f} s (once; not counted below)")
    return cache


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", help="a home holding the collection and golden set (copied first)")
    parser.add_argument("--cache", type=Path, default=CACHE_HOME, help="where SciFact is imported once without --home")
    parser.add_argument("--collection", default="scifact")
    parser.add_argument("--golden", default="scifact")
    parser.add_argument("--trials", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--index-docs",
        type=int,
        default=300,
        help="index-time trials on a new home of this many documents (default 300; 0: on --home itself)",
    )
    parser.add_argument("--skip-index", action="store_true", help="only the query-time trials")
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="the whole path in seconds: 2 trials, a 4-document slice (the demo without --home)",
    )
    args = parser.parse_args()
    if args.smoke:
        args.trials, args.index_docs = 2, 4

    from workbench.evaluation import golden as golden_sets
    from workbench.service import Workbench

    if args.smoke and not args.home:
        from workbench.demo import load_demo

        args.home, args.collection, args.golden = tempfile.mkdtemp(prefix="bench-tune-demo-"), "demo", "demo"
        load_demo(Workbench(args.home))
    source = Path(args.home).expanduser() if args.home else scifact_home(args.cache)
    scratch = Path(tempfile.mkdtemp(prefix="bench-tune-"))
    shutil.copytree(source, scratch / "home")
    bench = Workbench(scratch / "home")
    golden = golden_sets.find(args.golden, bench.home)
    print(f"load average before: {load()}")
    table(
        f"query-time trials on {args.collection}/{args.golden} (every query-time key, TPE seed {args.seed})",
        [
            "queries",
            "space",
            "trials",
            "repeats skipped",
            "seconds",
            "trials/min",
            "trials/min after the first",
            "study overhead ms/trial",
            "best ndcg@10",
        ],
        query_time_trials(bench, args.collection, golden, args.trials, args.seed),
    )
    print(f"load average: {load()}")
    if not args.skip_index:
        where, where_golden = bench, golden
        if args.index_docs:
            where, where_golden = slice_home(bench, args.collection, golden, args.index_docs)
            print(f"load average: {load()}")
        table(
            f"index-time trials on {len(where.documents(args.collection)):,} documents: retrieval.mode x "
            "chunking.size (exhaustive); corpus texts given to the embedder",
            ["layouts", "trials", "estimated", "embedded", "distinct", "embedded twice", "new in cache", "seconds"],
            index_time_trials(where, args.collection, where_golden, args.seed),
        )
        if args.index_docs:
            shutil.rmtree(where.home.parent, ignore_errors=True)
    print(f"load average after: {load()}")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
