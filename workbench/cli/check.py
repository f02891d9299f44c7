"""The ``check`` command: fail CI when a preset ranks significantly worse than a baseline.

Exit status: 0 passes; 1 a drop larger than ``--max-drop`` that the paired test calls significant
(printed with its interval and p-value); 2 a usage or input problem, such as a stored baseline run
whose golden set or corpus changed since (the message names which). ``--junit FILE`` writes the
outcome, errors included, as JUnit XML.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from workbench.cli.common import (
    COLLECTION_HELP,
    EXIT_BELOW_THRESHOLD,
    EXIT_OK,
    EXIT_USAGE,
    LEVEL_HELP,
)
from workbench.service.commands import InputProblem, run_check
from workbench.text import error_message

__all__ = ["InputProblem", "run_check"]


def add_commands(commands, common) -> None:
    p = commands.add_parser("check", help="regression gate: is --preset significantly worse than --baseline?")
    p.add_argument("--collection", "-c", help=COLLECTION_HELP)
    p.add_argument("--golden", "-g", help="golden set name or .jsonl path (default: the collection's name)")
    p.add_argument(
        "--baseline",
        metavar="RUN_OR_PRESET",
        help="a stored run id (12, #12 or run:12) or a preset name, evaluated now; left out for a preset saved by "
        "tune: its study's starting configuration, and the gain is checked against the interval the study reported "
        "(a second opinion: pass --golden a set written after the study)",
    )
    p.add_argument("--metric", default="ndcg@10", help="the metric compared (default ndcg@10)")
    p.add_argument("--level", choices=("doc", "span"), help=LEVEL_HELP)
    p.add_argument("--max-drop", type=float, default=0.01, help="a smaller drop always passes (default 0.01)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level of the paired test (default 0.05)")
    p.add_argument("--permutations", type=int, default=10_000)
    p.add_argument(
        "--held-out-only",
        action="store_true",
        help="compare only on the queries the candidate preset's tune study never saw (from its provenance)",
    )
    p.add_argument("--junit", metavar="FILE", help="also write the outcome as JUnit XML")
    p.add_argument("--no-store", action="store_true", help="do not store the evaluations made now as runs")
    p.add_argument("--json", action="store_true", help="print the outcome as one JSON object")
    common(p)
    p.set_defaults(handler=cmd_check)


def cmd_check(args) -> int:
    from workbench.evaluation.golden import GoldenSetError

    started = time.monotonic()
    properties = {"baseline": args.baseline or "", "candidate": args.preset or "", "metric": args.metric}
    try:
        result, properties = run_check(args, properties)
    except (InputProblem, GoldenSetError, LookupError, ValueError) as error:
        message = error_message(error)
        if args.junit:
            _write_junit(args, None, time.monotonic() - started, properties, message)
        print(f"error: {message}", file=sys.stderr)
        return EXIT_USAGE
    if args.junit:
        _write_junit(args, result, time.monotonic() - started, properties, None)
    if args.json:
        print(json.dumps({**result.to_dict(), **{k: str(v) for k, v in properties.items()}}, ensure_ascii=False))
    else:
        print(
            f"check {properties['collection']} / {properties['golden']}: preset {args.preset!r} against "
            f"{properties['baseline_shown']}"
        )
        if properties.get("study_queries"):
            print(f"  {properties['study_queries']}")
        print(f"  {result.describe()}")
        if result.power_note():
            print(f"  {result.power_note()}")
        if properties.get("second_opinion"):
            print(properties["second_opinion"])
        print(result.reason())
    return EXIT_BELOW_THRESHOLD if result.failed else EXIT_OK


def _write_junit(args, result, elapsed: float, properties: dict, error: str | None) -> None:
    from workbench.tuning.gate import junit_xml

    name = f"{args.metric}: preset {args.preset} vs {args.baseline or 'its starting configuration'}"
    shown = {k: v for k, v in properties.items() if k != "baseline_shown"}
    path = Path(args.junit)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        junit_xml(name=name, result=result, elapsed_s=elapsed, properties=shown, error=error), encoding="utf-8"
    )
