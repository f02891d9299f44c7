"""The ``golden`` commands: query sets, pools, export of judgements, and agreement between sets.

    golden queries FILE --out NAME          a text / CSV / JSONL file of questions -> query set
    golden from-log --out NAME              the query log's distinct queries, most frequent first
    golden pool --queries QSET --configs .. per query, the shuffled union of each configuration's top k
    golden pools                            the pools and how much of each is judged
    golden export POOL --out NAME           the pool's judgements as a golden set (grades and spans)
    golden agree A B -c C                   weighted kappa, and Kendall tau of configurations by nDCG@10
    golden drop A --fraction F --out NAME   a seeded copy of A without a share of its judgements

and, asking the LLM endpoint (``workbench.cli.golden_synth``): ``golden synth`` and ``golden judge --llm``.
"""

from __future__ import annotations

import sys

from workbench.cli import golden_synth
from workbench.cli.common import COLLECTION_HELP, EXIT_OK, collection_of, workbench_from

CONFIGS_HELP = (
    "configurations: a preset name, KEY=VALUE+KEY=VALUE, or PRESET+KEY=VALUE (each on the collection's settings)"
)


def add_commands(commands, common) -> None:
    p = commands.add_parser("golden", help="build golden sets from your own documents")
    actions = p.add_subparsers(dest="golden_action", required=True)
    for add in (
        _add_queries,
        _add_from_log,
        _add_pool,
        _add_pools,
        _add_export,
        _add_agree,
        _add_drop,
        golden_synth.add_synth,
        golden_synth.add_judge,
    ):
        add(actions, common)


def _add_queries(actions, common) -> None:
    q = actions.add_parser("queries", help="make a query set from a text (one per line), CSV or JSONL file")
    q.add_argument("file")
    q.add_argument("--out", required=True, help="query set name (stored under HOME/query_sets)")
    common(q)
    q.set_defaults(handler=cmd_queries)


def _add_from_log(actions, common) -> None:
    q = actions.add_parser(
        "from-log", help="make a query set from the query log: distinct queries, most frequent first"
    )
    q.add_argument("--out", required=True, help="query set name")
    q.add_argument("--since", help="only queries from this UTC date or time on (YYYY-MM-DD[THH:MM])")
    q.add_argument("--until", help="only queries before this UTC date or time")
    q.add_argument(
        "--source", action="append", default=[], choices=("lab", "cli", "mcp"), help="only this source (repeatable)"
    )
    q.add_argument("--collection", "-c", help="only queries of this collection")
    q.add_argument("--min-count", type=int, default=1, help="only queries asked at least this often")
    q.add_argument("--limit", type=int, default=500, help="most questions kept (default 500)")
    common(q)
    q.set_defaults(handler=cmd_from_log)


def _add_pool(actions, common) -> None:
    q = actions.add_parser("pool", help="pool the top k of several configurations per query, for judging")
    q.add_argument("--queries", "-q", required=True, help="query set name, golden set name or file")
    q.add_argument("--configs", nargs="+", required=True, metavar="PRESET_OR_SETS", help=CONFIGS_HELP)
    q.add_argument("--depth", "-k", type=int, default=10, help="each configuration's top k pooled (default 10)")
    q.add_argument("--seed", type=int, default=0, help="seed of the per-query shuffle (default 0)")
    q.add_argument("--name", help="pool name (default: the query set's name)")
    q.add_argument("--replace", action="store_true", help="rebuild an existing pool, keeping its judgements")
    q.add_argument("--collection", "-c", help=COLLECTION_HELP)
    common(q)
    q.set_defaults(handler=cmd_pool)


def _add_pools(actions, common) -> None:
    q = actions.add_parser("pools", help="list the pools and how much of each is judged")
    common(q)
    q.set_defaults(handler=cmd_pools)


def _add_export(actions, common) -> None:
    q = actions.add_parser("export", help="write a pool's judgements as a golden set (grades and spans)")
    q.add_argument("pool")
    q.add_argument("--out", required=True, help="golden set name (HOME/golden_sets/NAME.jsonl) or a .jsonl path")
    q.add_argument("--judge", help="whose judgements (needed when several judges graded the pool)")
    q.add_argument("--replace", action="store_true", help="overwrite an existing golden set of that name")
    common(q)
    q.set_defaults(handler=cmd_export)


def _add_agree(actions, common) -> None:
    q = actions.add_parser(
        "agree",
        help="agreement of two golden sets: weighted kappa, and Kendall tau of the configurations' order by a metric",
    )
    q.add_argument("a", help="the trusted golden set (name or .jsonl path)")
    q.add_argument("b", help="the other golden set (name or .jsonl path)")
    q.add_argument("--collection", "-c", help=COLLECTION_HELP)
    q.add_argument(
        "--configs",
        nargs="+",
        metavar="PRESET_OR_SETS",
        help=CONFIGS_HELP + " (default: 7 built-in ones spanning modes, fusion methods and MMR)",
    )
    q.add_argument("--metric", default="ndcg@10", help="metric that orders the configurations (default ndcg@10)")
    q.add_argument("--level", choices=("doc", "span"), help="default: span when both sets judge spans, else doc")
    q.add_argument("--no-ranking", action="store_true", help="kappa only: do not evaluate configurations")
    common(q)
    q.set_defaults(handler=cmd_agree)


def _add_drop(actions, common) -> None:
    q = actions.add_parser("drop", help="a copy of a golden set without a seeded share of its judgements")
    q.add_argument("golden")
    q.add_argument("--fraction", type=float, required=True, help="share of judged items left out, e.g. 0.3")
    q.add_argument("--seed", type=int, default=0)
    q.add_argument("--out", required=True, help="golden set name or .jsonl path")
    q.add_argument("--replace", action="store_true", help="overwrite an existing golden set of that name")
    common(q)
    q.set_defaults(handler=cmd_drop)


# -- handlers -----------------------------------------------------------------------------------


def cmd_queries(args) -> int:
    from dataclasses import replace

    from workbench.golden import query_sets

    bench = workbench_from(args)
    loaded = replace(query_sets.load(args.file), name=args.out)
    path = query_sets.save(loaded, bench.home)
    print(f"query set {args.out!r}: {len(loaded)} questions -> {path}")
    return EXIT_OK


def cmd_from_log(args) -> int:
    from workbench.golden import query_sets
    from workbench.golden.query_log import parse_when, query_counts

    if args.min_count < 1 or args.limit < 1:
        raise ValueError("--min-count and --limit must be at least 1")
    bench = workbench_from(args)
    counts = query_counts(
        bench.catalog,
        bench.home,
        since=parse_when(args.since),
        until=parse_when(args.until, "--until"),
        sources=args.source,
        collection=args.collection,
    )
    kept = [c for c in counts if c.count >= args.min_count][: args.limit]
    if not kept:
        raise ValueError(
            f"the query log holds no queries matching these filters ({len(counts)} distinct in all); "
            "run some queries, or widen --since/--source/--min-count"
        )
    made = query_sets.from_texts(args.out, [c.query for c in kept])
    path = query_sets.save(made, bench.home)
    print(f"query set {args.out!r}: {len(made)} distinct queries from the log, most frequent first -> {path}")
    for count in kept[:10]:
        print(f"  {count.count:>4}x  [{','.join(count.sources)}]  {count.query}")
    if len(kept) > 10:
        print(f"  ... {len(kept) - 10} more")
    return EXIT_OK


def _resolver(bench, collection: str):
    settings = bench.settings()

    def resolve(preset, overrides):
        return bench.config_for(collection, preset, overrides, settings=settings)

    return resolve


def cmd_pool(args) -> int:
    from workbench.golden import pools, query_sets

    bench = workbench_from(args)
    args.collection = collection_of(bench, args.collection)
    pools.check_depth(args.depth)
    query_set = query_sets.find(args.queries, bench.home)
    configs = pools.resolve_configs(args.configs, _resolver(bench, args.collection))
    for named in configs:
        bench.check_models(named.config)
    name = args.name or query_set.name
    print(f"pooling {len(query_set)} queries x {len(configs)} configurations, top {args.depth} each", file=sys.stderr)
    items = pools.build_pool(
        lambda text, config: bench.query(text, args.collection, config), query_set, configs, args.depth, args.seed
    )
    row = pools.save(
        bench.catalog, name, args.collection, query_set, configs, args.depth, args.seed, items, replace=args.replace
    )
    per_query = len(items) / max(1, len(query_set))
    print(
        f"pool {row.name!r}: {len(items)} chunks to judge over {len(query_set)} queries "
        f"({per_query:.1f} per query; seed {args.seed}). Judge them on the Judging page."
    )
    return EXIT_OK


def cmd_pools(args) -> int:
    from workbench.golden.pools import list_pools

    bench = workbench_from(args)
    found = list_pools(bench.catalog)
    if not found:
        print("no pools yet; build one with: python -m workbench golden pool --queries QSET --configs ...")
        return EXIT_OK
    print(f"{'pool':<20} {'collection':<14} {'queries from':<16} {'depth':>5} {'judged':>12}")
    for row, total, judged in found:
        print(f"{row.name:<20} {row.collection:<14} {row.query_set:<16} {row.depth:>5} {judged:>6}/{total:<5}")
    return EXIT_OK


def _golden_path(out: str, home, replace: bool):
    """Where a new golden set goes; an existing one is only overwritten with --replace."""
    from pathlib import Path

    from workbench.evaluation import golden as golden_sets

    path = Path(out) if out.endswith(".jsonl") else golden_sets.path_for(out, home)
    if path.exists() and not replace:
        raise ValueError(f"golden set {out!r} exists already ({path}); pick another --out, or pass --replace")
    return path


def cmd_export(args) -> int:
    from dataclasses import replace

    from workbench.evaluation import golden as golden_sets
    from workbench.golden import judging

    bench = workbench_from(args)
    row, items = judging.load_pool(bench.catalog, args.pool)
    given = judging.judgements(bench.catalog, row.name, args.judge)
    golden = judging.to_golden_set(args.out, items, given)
    path = golden_sets.save(replace(golden, name=args.out), _golden_path(args.out, bench.home, args.replace))
    graded = sum(len(q.relevant) for q in golden.queries)
    relevant = sum(1 for q in golden.queries for item in q.relevant if item.grade > 0)
    progress = judging.progress(items, given)
    print(f"golden set {args.out!r}: {len(golden)} queries, {graded} judged spans ({relevant} relevant) -> {path}")
    if progress.judged < progress.total:
        print(
            f"note: {progress.total - progress.judged} of the pool's {progress.total} chunks are not judged yet; "
            "they are left out"
        )
    return EXIT_OK


def _find_golden(name: str, home):
    from workbench.evaluation import golden as golden_sets

    return golden_sets.find(name, home)


def cmd_agree(args) -> int:
    from workbench.evaluation.metrics import validate
    from workbench.golden import pools, set_agreement

    bench = workbench_from(args)
    a, b = _find_golden(args.a, bench.home), _find_golden(args.b, bench.home)
    metric = validate([args.metric])[0]
    report = set_agreement.grade_agreement(a, b)
    if not args.no_ranking:
        args.collection = collection_of(bench, args.collection)
        resolve = _resolver(bench, args.collection)
        configs = pools.resolve_configs(args.configs, resolve) if args.configs else pools.built_in_configs(resolve)
        for named in configs:
            bench.check_models(named.config)
        print(f"evaluating {len(configs)} configurations under {a.name} and {b.name} ...", file=sys.stderr)
        report = set_agreement.ranking_agreement(
            bench,
            args.collection,
            a,
            b,
            configs,
            metric=metric,
            level=args.level,
            progress=lambda done, total: print(f"  [{done}/{total}]", file=sys.stderr),
        )
    print_agreement(report)
    return EXIT_OK


def _number(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def print_agreement(report) -> None:
    print(f"A = {report.a}, B = {report.b}")
    print(f"judged by both: {report.pairs} (query, unit) pairs; only A: {report.only_a}; only B: {report.only_b}")
    print(
        f"Cohen's weighted kappa: {_number(report.kappa_linear)} linear ({report.kappa_words}), "
        f"{_number(report.kappa_quadratic)} quadratic"
    )
    grades = range(len(report.table))
    print("confusion (rows: A's grade, columns: B's grade)")
    print("      " + "".join(f"{'B=' + str(j):>7}" for j in grades))
    for i in grades:
        print(f"  A={i} " + "".join(f"{report.table[i][j]:>7}" for j in grades))
    if report.scores:
        print(f"configurations by {report.metric} ({report.level} level)")
        print(f"  {'configuration':<40} {'under A':>8} {'under B':>8}")
        for score in report.scores:
            print(f"  {score.name[:40]:<40} {score.under_a:>8.4f} {score.under_b:>8.4f}")
        print(f"Kendall tau (tau-b) over {len(report.scores)} configurations: {_number(report.tau)}")
    for note in report.notes:
        print(f"note: {note}")


def cmd_drop(args) -> int:
    from workbench.evaluation import golden as golden_sets
    from workbench.golden.set_agreement import drop_judgements

    bench = workbench_from(args)
    source = _find_golden(args.golden, bench.home)
    out_name = args.out.removesuffix(".jsonl").rsplit("/", 1)[-1]
    copy = drop_judgements(source, args.fraction, args.seed, out_name)
    path = golden_sets.save(copy, _golden_path(args.out, bench.home, args.replace))
    before = sum(len(q.relevant) for q in source.queries)
    after = sum(len(q.relevant) for q in copy.queries)
    print(
        f"golden set {out_name!r}: {after} of {before} judgements kept ({len(copy)} of {len(source)} queries), "
        f"seed {args.seed} -> {path}"
    )
    return EXIT_OK
