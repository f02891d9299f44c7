"""``sweep``: evaluate every combination of a grid of configuration values, each stored as a run.

A sweep picks its best point on the same queries it scores, so ``--save-best`` keeps a preset
whose figure is optimistic; ``tune`` chooses on some queries and reports on others.
"""

from __future__ import annotations

import json
import sys

from workbench.cli.common import COLLECTION_HELP, EXIT_OK, LEVEL_HELP, collection_of, workbench_from
from workbench.cli.evaluation import announce_llm_calls, golden_and_config, shown_value


def add_commands(commands, common) -> None:
    p = commands.add_parser("sweep", help="evaluate every combination of a grid of config values")
    p.add_argument("--collection", "-c", help=COLLECTION_HELP)
    p.add_argument("--golden", "-g", help="golden set name or .jsonl path (default: the collection's name)")
    p.add_argument(
        "--grid",
        action="append",
        default=[],
        required=True,
        metavar="KEY=V1,V2",
        help="config key and its values (repeatable); use ';' between values that hold commas",
    )
    p.add_argument("--level", choices=("doc", "span"), help=LEVEL_HELP)
    p.add_argument("--metrics", help="comma-separated metrics (default: the standard set)")
    p.add_argument("--rank-by", default="ndcg@10", help="metric that picks the best point (default ndcg@10)")
    p.add_argument("--save-best", metavar="PRESET", help="save the best point's configuration as this preset")
    p.add_argument("--export", metavar="FILE", help="write the results table to FILE (.md, .html or .csv)")
    p.add_argument("--no-store", action="store_true", help="do not store the points as runs")
    p.add_argument("--json", action="store_true", help="print the sweep as one JSON object")
    common(p)
    p.set_defaults(handler=cmd_sweep)


def cmd_sweep(args) -> int:
    from workbench.evaluation import export
    from workbench.evaluation.judged import choose_level
    from workbench.evaluation.metrics import parse_list
    from workbench.evaluation.sweep import expand, parse_grid, run_sweep, save_best_as_preset

    grid = parse_grid(args.grid)
    metric_names = tuple(dict.fromkeys(parse_list(args.metrics) + (args.rank_by.strip().lower(),)))
    bench = workbench_from(args)
    args.collection = collection_of(bench, args.collection)
    golden, config = golden_and_config(bench, args)
    level = choose_level(golden, args.level)
    if not level.given and not args.json:
        print(level.reason, file=sys.stderr)
    announce_llm_calls([point.config for point in expand(config, grid)], len(golden), args.json)
    result = run_sweep(
        bench,
        args.collection,
        golden,
        config,
        grid,
        level=level.level,
        metric_names=metric_names,
        progress=None if args.json else _SweepProgressPrinter(),
        store=not args.no_store,
    )
    rank_by = args.rank_by.strip().lower()
    best = result.best(rank_by)
    saved = save_best_as_preset(bench, result, args.save_best, rank_by) if args.save_best else None
    rows = result.table(rank_by)
    if args.export:
        path = args.export
        text = (
            export.sweep_csv(rows)
            if path.endswith(".csv")
            else (export.to_html if path.endswith((".html", ".htm")) else export.to_markdown)(
                export.sweep_report(rows, rank_by, (result.reuse_summary(),))
            )
        )
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    if args.json:
        print(
            json.dumps(
                {
                    "sweep_id": result.sweep_id,
                    "collection": result.collection,
                    "golden": result.golden,
                    "level": result.level,
                    "grid": result.grid,
                    "rank_by": rank_by,
                    "points": rows,
                    "best": {
                        "run_id": best.result.run_id,
                        "overrides": rows[result.entries.index(best)],
                        "metrics": best.result.metrics,
                    },
                    "reuse": {**result.summary(), "message": result.reuse_summary()},
                    "preset": {"name": args.save_best, "overrides": saved} if saved is not None else None,
                },
                ensure_ascii=False,
                default=str,
            )
        )
        return EXIT_OK
    keys = list(result.grid)
    print(
        f"sweep {result.sweep_id or '(not stored)'}: {len(result.entries)} configurations over "
        f"{len(golden)} queries, level={result.level}, {result.layouts} layout(s), {result.elapsed_s:.1f} s"
    )
    print(result.reuse_summary())
    shown_metrics = [rank_by] + [m for m in metric_names if m != rank_by][:3]
    header = (
        "  "
        + f"{'run':>5} "
        + " ".join(f"{k:>{max(len(k), 8)}}" for k in keys)
        + "".join(f"{m:>12}" for m in shown_metrics)
    )
    print(header + f"  {rank_by} 95% interval, queries, against the best (paired bootstrap)")
    by_entry = {id(entry): row for entry, row in zip(result.entries, rows, strict=True)}
    for entry in result.ranked(rank_by):
        values = " ".join(f"{shown_value(entry.point.overrides[k]):>{max(len(k), 8)}}" for k in keys)
        metrics = "".join(f"{entry.result.metrics[m]:>12.4f}" for m in shown_metrics)
        row = by_entry[id(entry)]
        interval = f"  {row.get(f'{rank_by} 95% interval', '')} {row.get('queries', 0)}q {row.get('vs best', '')}"
        print(f"  {entry.result.run_id or '-':>5} {values}{metrics}{interval}")
    print(f"best {rank_by} = {best.result.metrics[rank_by]:.4f}: {best.point.label}")
    if saved is not None:
        shown = " ".join(f"{k}={shown_value(v)}" for k, v in sorted(saved.items())) or "(defaults)"
        print(f"saved preset {args.save_best!r}: {shown}")
    if args.export:
        print(f"exported to {args.export}")
    return EXIT_OK


class _SweepProgressPrinter:
    """Progress with ETA on stderr: redrawn in place on a terminal, one line per point otherwise."""

    def __init__(self):
        self.tty = sys.stderr.isatty()
        self.last_point = 0

    def __call__(self, event) -> None:
        bar_width = 24
        filled = int(bar_width * event.fraction)
        line = f"[{'#' * filled}{'.' * (bar_width - filled)}] {event.describe()}"
        if self.tty:
            print(
                "\r" + line[:160].ljust(160), end="\n" if event.done == event.total else "", file=sys.stderr, flush=True
            )
        elif event.point != self.last_point or event.done == event.total:
            self.last_point = event.point
            print(line, file=sys.stderr, flush=True)
