"""The ``golden`` subcommands that ask the LLM endpoint (registered by ``workbench.cli.golden``):

golden synth -c C --n N --seed S --out NAME   questions written from sampled chunks, quotes verified
golden judge --llm --pool NAME [--max-calls N] the LLM grades each pooled (query, chunk) pair 0-3
"""

from __future__ import annotations

import sys

from workbench.cli.common import COLLECTION_HELP, EXIT_OK, checked_config, collection_of, workbench_from

EXIT_INCOMPLETE = 3  # the endpoint failed midway: what finished is kept, run again to finish


def add_synth(actions, common) -> None:
    p = actions.add_parser("synth", help="write questions with the LLM endpoint, keeping those whose quote is found")
    p.add_argument("--collection", "-c", help=COLLECTION_HELP)
    p.add_argument("--n", type=int, default=30, help="questions to ask for (default 30; at most synth.max_items)")
    p.add_argument("--seed", type=int, default=0, help="seed of the chunk sample (default 0)")
    p.add_argument("--out", required=True, help="name of the golden set to write (home's golden_sets/NAME.jsonl)")
    p.add_argument(
        "--kinds",
        default="specific,abstract,multi_hop,unanswerable",
        help="comma-separated kinds, taking turns (default: all four)",
    )
    common(p)
    p.set_defaults(handler=cmd_synth)


def add_judge(actions, common) -> None:
    p = actions.add_parser(
        "judge",
        help="grade a pool's (query, chunk) pairs 0-3 with the LLM endpoint (people judge on the app's Judging page)",
    )
    p.add_argument("--llm", action="store_true", required=True, help="grade with the LLM endpoint")
    p.add_argument("--pool", required=True, help="the pool to grade (golden pool ... makes one)")
    p.add_argument("--max-calls", type=int, help="most endpoint calls this run may make (default: one per pair)")
    common(p)
    p.set_defaults(handler=cmd_judge)


def cmd_judge(args) -> int:
    from workbench.golden import llm_judge

    bench = workbench_from(args)
    client = bench.llm()
    row, todo, report = llm_judge.plan(bench.catalog, client, args.pool, args.max_calls)
    config = bench.config_for(row.collection, args.preset, args.overrides)
    print(
        f"golden judge: pool {row.name!r} ({row.collection}), {report.pairs} pairs, {report.already} already "
        f"graded by {report.judge}"
    )
    print(
        f"LLM: at most {report.bound:,} calls"
        + (f" (--max-calls {args.max_calls})" if args.max_calls is not None else "")
        + "; replies already cached cost nothing",
        flush=True,
    )
    llm_judge.run(
        bench.catalog,
        client,
        row,
        todo,
        report,
        llm_judge.passage_reader(bench, row.collection),
        max_calls=args.max_calls,
        timeout_s=config.synth.timeout_s,
        max_tokens=config.synth.max_tokens,
        max_chunk_chars=config.synth.max_chunk_chars,
        progress=_Progress("pairs"),
    )
    print(report.describe())
    for reason, count in report.rejected.most_common():
        print(f"  rejected  {count}  {reason}")
    if report.stopped:
        print(f"stopped: {report.stopped}", file=sys.stderr)
        return EXIT_INCOMPLETE if "endpoint failed" in report.stopped else EXIT_OK
    return EXIT_OK


def cmd_synth(args) -> int:
    from workbench.golden.build import plan_synth, run_synth

    bench = workbench_from(args)
    args.collection = collection_of(bench, args.collection)
    config = checked_config(bench, args.collection, args)
    plan = plan_synth(bench, args.collection, config, n=args.n, seed=args.seed, out=args.out, kinds=args.kinds)
    print(
        f"golden synth: {len(plan.tasks)} questions from {args.collection} ({', '.join(plan.kinds)}), "
        f"seed {args.seed}, model {plan.model}"
    )
    print(f"LLM: {plan.estimate().describe()}")
    for line in plan.spread():
        print(line)
    sys.stdout.flush()
    report = run_synth(bench, plan, _Progress())
    print(report.describe())
    for reason, count in report.rejected.items():
        print(f"  rejected  {reason:<28} {count}")
    print_spread(report)
    print(
        f"endpoint calls {report.endpoint_calls}, cached {report.cached_calls}, tokens {report.spent_tokens:,}"
        + (f", {report.resumed} tasks resumed from an earlier run" if report.resumed else "")
    )
    if report.kept:
        print(f"wrote {len(report.kept)} queries to {plan.out_path}")
        print(f"evaluate: python -m workbench eval -c {args.collection} --golden {plan.out} --level span")
    if report.stopped:
        print(
            f"error: the LLM endpoint failed after {len(report.outcomes)} of {report.planned} questions "
            f"({report.stopped}); finished ones are kept: run the same command again to finish",
            file=sys.stderr,
        )
        return EXIT_INCOMPLETE
    return EXIT_OK


def print_spread(report) -> None:
    """Planned and kept questions per language and per document, and the quotes judged at several places."""
    spread = report.spread()
    width = max((len(name) for part in spread.values() for name in part), default=8)
    width = min(max(width, 8), 48)
    for what in ("language", "document"):
        print(f"  {what:<{width}}  planned  kept")
        for name, counts in spread[f"{what}s"].items():
            print(f"  {name[:width]:<{width}}  {counts['planned']:>7}  {counts['kept']:>4}")
    repeated = report.repeated_quotes()
    if repeated:
        print(f"  {repeated} kept questions quote a sentence found in several places: each is judged at every place")


class _Progress:
    def __init__(self, what: str = "questions"):
        self.tty, self.what = sys.stderr.isatty(), what

    def __call__(self, done: int, total: int) -> None:
        if self.tty:
            print(f"\r  {done}/{total} {self.what}", end="\n" if done == total else "", file=sys.stderr, flush=True)
