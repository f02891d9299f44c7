"""The ``tune`` command: search the configuration space, report the winner's gain on held-out queries.

Progress goes to stderr (trials done, best so far, time left); the report to stdout. Ctrl-C stops
the trial in flight and marks it interrupted; every completed trial stays in the study, the command
exits with status 130, and the same command with ``--resume`` continues it, the interrupted trial first.
"""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import threading
from collections.abc import Iterator

from workbench.cli.common import COLLECTION_HELP, EXIT_CANCELLED, EXIT_OK, LEVEL_HELP, workbench_from
from workbench.service.commands import build_request, report_dict


def add_commands(commands, common) -> None:
    p = commands.add_parser(
        "tune", help="search configurations on some golden queries, report the winner's gain on held-out ones"
    )
    p.add_argument("--collection", "-c", help=COLLECTION_HELP)
    p.add_argument("--golden", "-g", help="golden set name or .jsonl path (default: the collection's name)")
    p.add_argument(
        "--keys", help="tune only these keys, comma separated (default: every query-time key and chunking.size)"
    )
    p.add_argument("--space", metavar="FILE.toml", help="explicit values or ranges per key (see docs/tuning.md)")
    p.add_argument("--metric", default="ndcg@10", help="what the study maximises (default ndcg@10)")
    p.add_argument("--level", choices=("doc", "span"), help=LEVEL_HELP)
    split = p.add_mutually_exclusive_group()
    split.add_argument(
        "--holdout",
        type=float,
        help="one split: the share of the queries held out, e.g. 0.3 (default: 5-fold nested cross-validation "
        "under tuning.folds_below 300 scorable queries, a holdout of 0.3 from there)",
    )
    split.add_argument("--folds", type=int, help="nested cross-validation with K folds instead of one holdout")
    p.add_argument("--seed", type=int, default=0, help="seeds the split, the sampler and the interval (default 0)")
    p.add_argument("--trials", type=int, help="completed trials per study (default 50 unless --minutes is given)")
    p.add_argument("--minutes", type=float, help="stop starting trials after this many minutes (all studies)")
    p.add_argument("--max-p95-ms", type=float, help="the winner's p95 query latency must stay within this")
    p.add_argument("--pareto", action="store_true", help="two objectives: the metric and p95 latency (a Pareto front)")
    p.add_argument("--study", help="the study's name (default: from the collection, golden set and options)")
    p.add_argument("--resume", action="store_true", help="continue the study these options started")
    p.add_argument("--save-preset", metavar="NAME", help="save the winner as a preset if its interval lies above zero")
    p.add_argument("--force", action="store_true", help="with --save-preset: save even when the interval covers zero")
    p.add_argument(
        "--grow-golden",
        action="store_true",
        help="when the plan finds the golden set too short to show a gain of 0.02, have the LLM endpoint write "
        "the questions it lacks before the study starts",
    )
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    common(p)
    p.set_defaults(handler=cmd_tune)


def cmd_tune(args) -> int:
    from workbench.tuning.plan import plan_tune
    from workbench.tuning.tune import run_tune, save_winner

    bench = workbench_from(args)
    request = build_request(bench, args)
    quiet = args.json
    if not quiet:
        _print_plan(request)
        print("evaluating the starting configuration to plan the experiment", file=sys.stderr, flush=True)
    plan = plan_tune(bench, request)
    if not quiet:
        for line in plan.describe():
            print(line)
        sys.stdout.flush()
    if args.grow_golden:
        request, plan = _grow(bench, args, request, plan, quiet)
    printer = _ProgressPrinter(request.metric, enabled=not quiet)
    cancel = threading.Event()
    try:
        with _ctrl_c_stops(cancel):
            report = run_tune(
                bench,
                request,
                progress=printer,
                on_build=printer.build,
                cancel=cancel,
                on_estimate=None if quiet else _print_estimate,
            )
    except KeyboardInterrupt:
        print(
            "\nstopped: completed trials are kept; run the same command with --resume to continue",
            file=sys.stderr,
        )
        return EXIT_CANCELLED
    if plan.saturation.saturated:
        report.notes.insert(0, plan.saturation.describe())
    decision = save_winner(bench, report, args.save_preset, args.force) if args.save_preset else None
    if args.json:
        print(json.dumps(report_dict(report, decision, plan), ensure_ascii=False, default=str))
    else:
        _print_report(report, decision)
    return EXIT_CANCELLED if report.stopped else EXIT_OK


def _grow(bench, args, request, plan, quiet: bool):
    """``--grow-golden``: write the questions the plan says the set lacks, then plan again on the
    grown set; the study then runs on it. Returns the request and plan to go on with."""
    from workbench.service.commands import grow_golden
    from workbench.tuning.plan import plan_tune

    if plan.grow is None:
        if not quiet:
            print(f"--grow-golden: golden set {request.golden.name!r} is long enough for this plan; nothing to write")
        return request, plan
    if not quiet:
        print(f"--grow-golden: asking the LLM endpoint for about {plan.grow.questions} more questions", flush=True)
    print(grow_golden(bench, request, plan), file=sys.stderr if quiet else sys.stdout)
    request = build_request(bench, args)
    plan = plan_tune(bench, request)
    if not quiet:
        for line in plan.describe():
            print(line)
        sys.stdout.flush()
    return request, plan


@contextlib.contextmanager
def _ctrl_c_stops(cancel: threading.Event) -> Iterator[None]:
    """The first Ctrl-C (SIGINT) asks the study to stop at the next query, a second one interrupts.

    A stop asked through the event cannot be lost: a KeyboardInterrupt raised inside a library
    call (a DuckDB read turns it into its own exception) could be caught on its way up."""

    def ask_to_stop(signum: int, frame: object) -> None:
        if cancel.is_set():
            raise KeyboardInterrupt
        cancel.set()

    previous = signal.signal(signal.SIGINT, ask_to_stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _print_plan(request) -> None:
    from workbench.text import count
    from workbench.tuning.split import scorable

    space = request.space
    size = space.size(request.base)
    queries = len(scorable(request.golden))
    print(
        f"tune {request.collection} / {request.golden.name}: {queries} scorable queries, "
        f"{request.metric} at {request.level} level; starting configuration: {request.base_name}"
    )
    print(f"split: {request.split_description()}")
    budget = [
        f"{request.trials} trials per study" if request.trials else "",
        f"{request.minutes:g} min" if request.minutes else "",
    ]
    points = count(size, "configuration") if size is not None else "more configurations than can be listed"
    search = (
        "every point (exhaustive)" if size is not None and request.trials and size <= request.trials else "TPE, seeded"
    )
    keys = count(len(space.dimensions), "key")
    print(f"space: {keys}, {points}; search: {search}; budget: {', '.join(b for b in budget if b)}")
    for line in space.describe():
        print(f"  {line}")
    for note in space.notes:
        print(f"  note: {note}")
    if request.max_p95_ms is not None:
        print(f"constraint: p95 latency within {request.max_p95_ms:g} ms")
    if request.pareto:
        print(f"objectives: {request.metric} (higher) and p95 latency (lower): a Pareto front")


def _print_estimate(cost) -> None:
    for line in cost.describe():
        print(f"cost: {line}")
    sys.stdout.flush()


class _ProgressPrinter:
    """Progress on stderr, redrawn in place on a terminal.

    Elsewhere (a log, CI) it prints a line per new best, every tenth trial and each study's start
    and end, and never the same line twice in a row: a study's end reports the state its last
    trial already printed.
    """

    def __init__(self, metric: str, enabled: bool = True):
        self.metric = metric
        self.enabled = enabled
        self.tty = sys.stderr.isatty()
        self.best_seen: dict[str, float] = {}
        self.last_line = ""

    def build(self, message: str) -> None:
        if self.enabled:
            print(f"  {message}", file=sys.stderr, flush=True)

    def __call__(self, event) -> None:
        from workbench.ingestion.estimates import describe_duration

        if not self.enabled or event.study is None:
            if self.enabled and event.message == "scoring":
                print("scoring each winner and the starting configuration on held-out queries", file=sys.stderr)
            return
        study = event.study
        best = study.best
        target = f"/{study.target}" if study.target else ""
        shown = f"best {self.metric} {best.metric:.4f} (p95 {best.p95_ms:.1f} ms)" if best else "no trial yet"
        left = f", about {describe_duration(event.eta_s)} left" if event.eta_s is not None else ""
        line = f"[{event.part}, study {event.index}/{event.studies}] trial {study.done}{target}: {shown}{left}"
        improved = best is not None and best.metric > self.best_seen.get(event.part, float("-inf"))
        if best is not None:
            self.best_seen[event.part] = max(best.metric, self.best_seen.get(event.part, float("-inf")))
        if self.tty:
            end = "\n" if study.message in ("finished", "stopped") else ""
            print("\r" + line[:150].ljust(150), end=end, file=sys.stderr, flush=True)
        elif improved or study.done % 10 == 0 or study.message in ("starting", "finished", "stopped"):
            if line != self.last_line:  # a study's end repeats its last trial's line
                print(line, file=sys.stderr, flush=True)
            self.last_line = line


def _print_report(report, decision) -> None:
    request = report.request
    print(f"study {report.name} ({report.storage})")
    for label, outcome in report.outcomes:
        extra = []
        if outcome.resumed:
            extra.append(f"{outcome.resumed} kept from before")
        if outcome.rerun:
            extra.append(f"{outcome.rerun} interrupted re-run")
        if outcome.duplicates:
            extra.append(f"{outcome.duplicates} repeated suggestions skipped")
        mode = "exhaustive" if outcome.exhaustive else "TPE"
        print(f"  {label}: {len(outcome.trials)} trials ({mode}{'; ' + ', '.join(extra) if extra else ''})")
    if report.stopped:
        print(
            f"stopped after {report.trials} completed trials; run the same command with --resume to continue "
            "(completed trials are kept, none is repeated)"
        )
        return
    for note in report.notes:
        print(f"note: {note}")
    for part in report.parts:
        print(
            f"  {part.label}: winner trial {part.winner.number} ({request.metric} {part.winner.metric:.4f} on its "
            f"tuning queries); on {part.base.queries} held-out queries "
            f"{part.base.metric:.4f} -> {part.tuned.metric:.4f}"
        )
    if report.winner is None or report.gain is None:
        print("no verdict: see the notes above")
        return
    where = "the study on all queries" if request.folds else "the study on the tuning queries"
    print(f"winner ({where}, trial {report.winner.number}): {report.winner.label()}")
    changed = report.changed_keys()
    print(
        "  changes from the starting configuration: "
        + (
            " ".join(f"{k}={_show(v)}" for k, v in changed.items())
            if changed
            else "none (the starting configuration won)"
        )
    )
    print(report.gain.describe())
    if report.gain.power_note():
        print(f"  {report.gain.power_note()}")
    if request.folds:
        print("  (nested cross-validation: this estimates what tuning this way gains on queries it has not seen)")
    base_p95 = max(part.base.p95_ms for part in report.parts)
    tuned_p95 = max(part.tuned.p95_ms for part in report.parts)
    print(f"p95 latency on held-out queries (worst part): {base_p95:.1f} ms -> {tuned_p95:.1f} ms")
    print(f"embedded {report.embedded_texts:,} corpus texts; {report.trials} trials in {report.elapsed_s:.0f} s")
    if decision is not None:
        print(decision.message)


def _show(value) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value).lower() if isinstance(value, bool) else str(value)
