"""Evaluation commands: ``eval``, ``compare`` and ``runs`` (``sweep`` is its own module).

``eval`` stores every evaluation as a run and prints its id; ``--fail-under ndcg@10=0.7`` makes
it exit with status 1 when a metric falls below the threshold, for CI gates.
"""

from __future__ import annotations

import json
import sys

from workbench.cli.common import (
    COLLECTION_HELP,
    EXIT_BELOW_THRESHOLD,
    EXIT_OK,
    workbench_from,
)
from workbench.service.commands import announce_llm_calls, evaluate_and_store, golden_and_config

__all__ = ["announce_llm_calls", "evaluate_and_store", "golden_and_config"]

STAGE_COLUMNS_SHOWN = 4  # metrics shown per stage in text output (plus the pool columns)


def add_commands(commands, common) -> None:
    p = commands.add_parser("eval", help="evaluate a golden set (stored as a run)")
    p.add_argument("--collection", "-c", help=COLLECTION_HELP)
    p.add_argument("--golden", "-g", help="golden set name or .jsonl path (default: the collection's name)")
    p.add_argument(
        "--level",
        choices=("doc", "span"),
        help="doc: documents rank by their best chunk; span: chunks overlapping judged spans "
        "(default: the level the golden set was judged at)",
    )
    p.add_argument("--metrics", help="comma-separated, e.g. ndcg@10,recall@100,mrr@10,map@100,precision@5,hit@10")
    p.add_argument(
        "--fail-under",
        action="append",
        default=[],
        metavar="METRIC=VALUE",
        help="exit with status 1 if METRIC is below VALUE (repeatable), e.g. ndcg@10=0.7",
    )
    p.add_argument(
        "--answers",
        action="store_true",
        help="also generate an answer per query with the LLM endpoint and score it: faithfulness, "
        "answer_relevance, context_precision, citations_valid, quotes_supported",
    )
    p.add_argument("--label", default="", help="a note stored with the run")
    p.add_argument("--export", metavar="FILE", help="also write the run to FILE (.md, .html or .csv)")
    p.add_argument("--no-store", action="store_true", help="do not store the run in the catalog")
    p.add_argument("--json", action="store_true", help="print the run as one JSON object")
    common(p)
    p.set_defaults(handler=cmd_eval)

    p = commands.add_parser("compare", help="compare two stored runs query by query")
    p.add_argument("run_a", type=int)
    p.add_argument("run_b", type=int)
    p.add_argument("--metric", default="ndcg@10", help="metric for wins/losses and the test (default ndcg@10)")
    p.add_argument("--permutations", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--top", type=int, default=10, help="most-changed queries shown")
    p.add_argument("--export", metavar="FILE", help="also write the comparison to FILE (.md, .html or .csv)")
    p.add_argument("--json", action="store_true")
    common(p)
    p.set_defaults(handler=cmd_compare)

    p = commands.add_parser("runs", help="list stored evaluation runs")
    p.add_argument("--collection", "-c")
    p.add_argument("--golden", "-g")
    p.add_argument("--sweep", type=int, help="only the runs of this sweep")
    p.add_argument("--no-sweeps", action="store_true", help="leave out runs made by sweeps")
    p.add_argument("--sweeps", action="store_true", help="list the sweeps instead of runs")
    p.add_argument("--limit", type=int, default=50)
    p.add_argument("--json", action="store_true")
    common(p)
    p.set_defaults(handler=cmd_runs)


# -- eval -------------------------------------------------------------------------------------


def parse_thresholds(items: list[str]) -> dict[str, float]:
    """``["ndcg@10=0.7"]`` -> ``{"ndcg@10": 0.7}``, with the metric name checked."""
    from workbench.evaluation.answer_metrics import ANSWER_METRICS
    from workbench.evaluation.metrics import parse_name

    thresholds = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip().lower()
        try:
            if name not in ANSWER_METRICS:
                parse_name(name)
            thresholds[name] = float(value)
        except ValueError as error:
            if not sep:
                raise ValueError(
                    f"--fail-under expects METRIC=VALUE, got {item!r}; e.g. --fail-under ndcg@10=0.7"
                ) from None
            raise ValueError(f"--fail-under {item!r}: {error}") from None
    return thresholds


def failures(metrics: dict[str, float], thresholds: dict[str, float]) -> list[str]:
    found = [
        f"{name} = {metrics[name]:.4f} is below {limit:g}"
        for name, limit in thresholds.items()
        if name in metrics and metrics[name] < limit
    ]
    return found + [
        f"{name} was not measured (answer metrics need --answers and an LLM endpoint)"
        for name in thresholds
        if name not in metrics
    ]


def cmd_eval(args) -> int:
    from workbench.evaluation import export
    from workbench.evaluation.answer_metrics import ANSWER_METRICS
    from workbench.evaluation.intervals import metric_intervals
    from workbench.evaluation.metrics import parse_list

    thresholds = parse_thresholds(args.fail_under)
    ranking_thresholds = tuple(name for name in thresholds if name not in ANSWER_METRICS)
    metric_names = tuple(dict.fromkeys(parse_list(args.metrics) + ranking_thresholds))
    bench = workbench_from(args)
    result = evaluate_and_store(bench, args, metric_names, _QueryProgress() if not args.json else None)
    if args.export:
        export.write(result, args.export)
    failed = failures(result.metrics, thresholds)
    if args.json:
        intervals = metric_intervals([q.metrics for q in result.per_query], result.metrics)
        shown = {name: value.to_dict() for name, value in intervals.items()}
        print(json.dumps({**result.to_dict(), "intervals": shown}, ensure_ascii=False))
    else:
        _print_run(result)
        if args.export:
            print(f"exported to {args.export}")
    for line in failed:
        print(f"FAIL: {line}", file=sys.stderr)
    return EXIT_BELOW_THRESHOLD if failed else EXIT_OK


def _print_run(result) -> None:
    from workbench.evaluation.intervals import metric_intervals
    from workbench.evaluation.stages import POOL_RECALL, POOL_SIZE

    mode = result.config["retrieval"]["mode"]
    print(
        f"{result.collection} / {result.golden}: level={result.level}, mode={mode}, "
        f"{len(result.per_query)} queries evaluated ({len(result.skipped)} skipped), "
        f"ranked to depth {result.evaluated_top_k}, {result.elapsed_s:.1f} s"
    )
    width = max([14, *map(len, result.metrics)])
    intervals = metric_intervals([q.metrics for q in result.per_query], result.metrics)
    print(f"  {'metric':<{width}} {'mean':>6}  95% interval (bootstrap over queries)")
    for name, value in result.metrics.items():
        found = intervals.get(name)
        extra = f"  {found.interval.describe_mean()} over {found.queries} queries" if found else ""
        print(f"  {name:<{width}} {value:.4f}{extra}")
    if result.stage_metrics:
        shown = list(result.metrics)[:STAGE_COLUMNS_SHOWN]
        print("per stage:")
        print("  " + f"{'stage':<8}" + "".join(f"{c:>13}" for c in shown + [POOL_RECALL, POOL_SIZE]))
        for stage, row in result.stage_metrics.items():
            cells = "".join(f"{row.get(c, 0.0):>13.4f}" for c in shown + [POOL_RECALL])
            print(f"  {stage:<8}{cells}{row.get(POOL_SIZE, 0.0):>13.1f}")
    if result.abstention is not None:
        print(f"  {result.abstention.describe()}")
    verdicts = [q.verdict for q in result.per_query if q.verdict]
    if verdicts:
        counts = {v: verdicts.count(v) for v in ("relevant", "ambiguous", "no_answer")}
        print("confidence over the answerable queries: " + ", ".join(f"{v} {n}" for v, n in counts.items()))
    for note in result.notes:
        print(f"note: {note}")
    if result.run_id is not None:
        print(f"stored as run {result.run_id}")


class _QueryProgress:
    """A one-line progress indicator on stderr (only when stderr is a terminal)."""

    def __init__(self):
        self.enabled = sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        if self.enabled:
            end = "\n" if done == total else ""
            print(f"\r  {done}/{total} queries", end=end, file=sys.stderr, flush=True)


def shown_value(value) -> str:
    return ",".join(str(v) for v in value) if isinstance(value, (list, tuple)) else str(value)


# -- compare ----------------------------------------------------------------------------------


def cmd_compare(args) -> int:
    from workbench.evaluation import export
    from workbench.evaluation.compare import compare_runs
    from workbench.evaluation.runs import load_run

    bench = workbench_from(args)
    a, b = load_run(bench.catalog, args.run_a), load_run(bench.catalog, args.run_b)
    comparison = compare_runs(a, b, args.metric.strip().lower(), args.permutations, args.seed)
    if args.export:
        export.write(comparison, args.export)
    if args.json:
        print(
            json.dumps(
                {
                    "run_a": comparison.run_a,
                    "run_b": comparison.run_b,
                    "metric": comparison.metric,
                    "metrics": {
                        d.metric: {
                            "a": d.a,
                            "b": d.b,
                            "delta": d.delta,
                            "interval": d.interval.to_dict() if d.interval else None,
                        }
                        for d in comparison.deltas
                    },
                    "queries": len(comparison.changes),
                    "wins": comparison.wins,
                    "losses": comparison.losses,
                    "ties": comparison.ties,
                    "p_value": comparison.test.p_value,
                    "mean_difference": comparison.test.mean_difference,
                    "test": comparison.test.method,
                    "permutations": comparison.test.permutations,
                    "seed": comparison.test.seed,
                    "most_changed": [
                        {"query_id": c.query_id, "query": c.query, "a": c.a, "b": c.b, "delta": c.delta}
                        for c in comparison.most_changed(args.top)
                    ],
                    "config_changes": [{"key": k, "a": x, "b": y} for k, x, y in comparison.config_changes],
                    "warnings": list(comparison.warnings),
                },
                ensure_ascii=False,
            )
        )
        return EXIT_OK
    print(
        f"run a = {a.run_id} ({a.label or a.config['retrieval']['mode']}), "
        f"run b = {b.run_id} ({b.label or b.config['retrieval']['mode']}); {len(comparison.changes)} paired queries"
    )
    for warning in comparison.warnings:
        print(f"warning: {warning}")
    if comparison.config_changes:
        print(
            "config changes: "
            + ", ".join(f"{k}: {shown_value(x)} -> {shown_value(y)}" for k, x, y in comparison.config_changes)
        )
    width = max([14, *(len(d.metric) + 1 for d in comparison.deltas)])
    print(
        f"  {'metric':<{width}}{'run a':>10}{'run b':>10}{'delta':>10}  95% interval of the delta "
        f"(paired bootstrap over {len(comparison.changes)} queries)"
    )
    for d in comparison.deltas:
        interval = d.interval.describe() if d.interval else ""
        print(f"  {d.metric:<{width}}{d.a:>10.4f}{d.b:>10.4f}{d.delta:>+10.4f}  {interval}")
    test = comparison.test
    print(
        f"{comparison.metric}: b wins {comparison.wins}, loses {comparison.losses}, ties {comparison.ties}; "
        f"mean difference {test.mean_difference:+.4f}, p = {test.p_value:.4f} "
        f"({test.method}, {test.permutations} permutations, seed {test.seed})"
    )
    changed = comparison.most_changed(args.top)
    if changed:
        print("most changed queries:")
        for change in changed:
            print(f"  {change.delta:+.4f}  {change.a:.4f} -> {change.b:.4f}  [{change.query_id}] {change.query[:80]}")
    if args.export:
        print(f"exported to {args.export}")
    return EXIT_OK


# -- runs -------------------------------------------------------------------------------------


def cmd_runs(args) -> int:
    from workbench.evaluation.runs import get_sweep, list_runs, list_sweeps, run_intervals, shown_metrics

    bench = workbench_from(args)
    if args.sweeps:
        return _print_sweeps(list_sweeps(bench.catalog, args.collection, args.limit), args.json)
    if args.sweep is not None:
        sweep = get_sweep(bench.catalog, args.sweep)  # a clear error for an unknown id
        if not args.json:
            print(
                f"sweep {sweep.id} on {sweep.collection}/{sweep.golden} ({sweep.level}), {sweep.status}: "
                + " ".join(f"{k}={','.join(map(str, v))}" for k, v in sweep.grid.items())
            )
    rows = list_runs(
        bench.catalog,
        collection=args.collection,
        golden=args.golden,
        sweep_id=args.sweep,
        include_sweeps=not args.no_sweeps,
        limit=args.limit,
    )
    intervals = run_intervals(bench.catalog, shown_metrics(rows))
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "run_id": r.id,
                        "created_at": r.created_at.isoformat(timespec="seconds"),
                        "collection": r.collection,
                        "golden": r.golden,
                        "level": r.level,
                        "label": r.label,
                        "sweep_id": r.sweep_id,
                        "queries": r.queries,
                        "metrics": r.metrics,
                        "intervals": {k: v.to_dict() for k, v in intervals.get(r.id, {}).items()},
                        "overrides": r.overrides,
                    }
                    for r in rows
                ],
                ensure_ascii=False,
            )
        )
        return EXIT_OK
    if not rows:
        print("no evaluation runs stored yet; run: python -m workbench eval --collection NAME")
        return EXIT_OK
    for r in rows:
        shown = intervals.get(r.id, {})
        metrics = "  ".join(
            f"{k}={v:.4f}" + (f" {shown[k].interval.describe_mean()}" if k in shown else "")
            for k, v in list(r.metrics.items())[:3]
        )
        in_sweep = f" sweep {r.sweep_id}" if r.sweep_id else ""
        mode = r.config.get("retrieval", {}).get("mode", "?")
        print(
            f"{r.id:>5}  {r.created_at:%Y-%m-%d %H:%M}  {r.collection}/{r.golden} {r.level:<4} {mode:<6} "
            f"{r.queries:>4}q  {metrics}{in_sweep}" + (f"  # {r.label}" if r.label else "")
        )
    return EXIT_OK


def _print_sweeps(sweeps, as_json: bool) -> int:
    if as_json:
        print(
            json.dumps(
                [
                    {
                        "sweep_id": s.id,
                        "created_at": s.created_at.isoformat(timespec="seconds"),
                        "collection": s.collection,
                        "golden": s.golden,
                        "level": s.level,
                        "status": s.status,
                        "grid": s.grid,
                        "metrics": s.metrics,
                        "summary": s.summary,
                    }
                    for s in sweeps
                ],
                ensure_ascii=False,
            )
        )
        return EXIT_OK
    if not sweeps:
        print("no sweeps stored yet; run: python -m workbench sweep --collection NAME --grid KEY=V1,V2")
    for s in sweeps:
        summary = s.summary or {}
        grid = " ".join(f"{k}={','.join(map(str, v))}" for k, v in s.grid.items())
        print(
            f"{s.id:>5}  {s.created_at:%Y-%m-%d %H:%M}  {s.collection}/{s.golden} {s.level:<4} {s.status:<7} "
            f"{summary.get('points', 0):>3} points, embedded {summary.get('embedded_texts', 0)}  {grid}"
        )
    return EXIT_OK
