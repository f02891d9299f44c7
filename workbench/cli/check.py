"""The ``check`` command: fail CI when a preset ranks significantly worse than a baseline.

Exit status: 0 passes; 1 a drop larger than ``--max-drop`` that the paired test calls significant
(printed with its interval and p-value); 2 a usage or input problem, such as a stored baseline run
whose golden set or corpus changed since (the message names which). ``--junit FILE`` writes the
outcome, errors included, as JUnit XML.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

from workbench.cli.common import (
    COLLECTION_HELP,
    EXIT_BELOW_THRESHOLD,
    EXIT_OK,
    EXIT_USAGE,
    checked_config,
    collection_of,
    golden_for,
    workbench_from,
)
from workbench.text import error_message

_RUN_ID = re.compile(r"^(?:run:|#)?(\d+)$")


def add_commands(commands, common) -> None:
    p = commands.add_parser("check", help="regression gate: is --preset significantly worse than --baseline?")
    p.add_argument("--collection", "-c", help=COLLECTION_HELP)
    p.add_argument("--golden", "-g", help="golden set name or .jsonl path (default: the collection's name)")
    p.add_argument(
        "--baseline",
        required=True,
        metavar="RUN_OR_PRESET",
        help="a stored run id (12, #12 or run:12) or a preset name, evaluated now",
    )
    p.add_argument("--metric", default="ndcg@10", help="the metric compared (default ndcg@10)")
    p.add_argument("--level", choices=("doc", "span"), default="doc")
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


class InputProblem(ValueError):
    """The comparison cannot be made as asked; the message names what to change."""


def cmd_check(args) -> int:
    from workbench.evaluation.golden import GoldenSetError

    started = time.monotonic()
    properties = {"baseline": args.baseline, "candidate": args.preset or "", "metric": args.metric}
    try:
        result, properties = _run(args, properties)
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
        print(result.reason())
    return EXIT_BELOW_THRESHOLD if result.failed else EXIT_OK


def _run(args, properties: dict):
    from store.corpus import corpus_fingerprint
    from workbench.evaluation import golden as golden_sets
    from workbench.evaluation.metrics import validate
    from workbench.evaluation.runner import evaluate_collection
    from workbench.evaluation.runs import load_run, save_run
    from workbench.tuning.gate import baseline_problems, gate
    from workbench.tuning.seen import study_queries

    if not args.preset:
        raise InputProblem("check needs --preset NAME: the configuration to test against the baseline")
    metric = validate([args.metric])[0]
    bench = workbench_from(args)
    collection = collection_of(bench, args.collection)
    golden = golden_for(bench, collection, args.golden)
    candidate_config = checked_config(bench, collection, args)
    properties |= {"collection": collection, "golden": golden.name, "golden_hash": golden_sets.content_hash(golden)}
    found = _RUN_ID.match(args.baseline.strip())
    if found:
        baseline = load_run(bench.catalog, int(found.group(1)))
        corpus = corpus_fingerprint(bench.catalog, collection).to_dict()
        problems = baseline_problems(
            baseline,
            collection=collection,
            golden_name=golden.name,
            golden_hash=golden_sets.content_hash(golden),
            golden_queries=len(golden),
            level=args.level,
            metric=metric,
            corpus=corpus,
        )
        if problems:
            raise InputProblem(
                f"cannot compare with run {baseline.run_id}: " + "; ".join(problems) + "; evaluate the baseline again "
                "(python -m workbench eval ...) and pass the new run, or pass a preset as --baseline"
            )
        properties["baseline_shown"] = f"run {baseline.run_id}" + (f" ({baseline.label})" if baseline.label else "")
    else:
        preset = args.baseline.strip()
        bench.preset_overrides(preset)  # an unknown preset fails here, listing the known ones
        baseline_config = bench.config_for(collection, preset)
        bench.check_models(baseline_config)
        baseline = evaluate_collection(
            bench, collection, golden, baseline_config, level=args.level, metric_names=(metric,)
        )
        if not args.no_store:
            save_run(bench.catalog, baseline, label=f"check baseline: preset {preset}")
        properties["baseline_shown"] = f"preset {preset!r} (evaluated now)"
    candidate = evaluate_collection(
        bench, collection, golden, candidate_config, level=args.level, metric_names=(metric,)
    )
    if not args.no_store:
        save_run(bench.catalog, candidate, label=f"check candidate: preset {args.preset}")
    before, after = baseline.per_query_values(metric), candidate.per_query_values(metric)
    seen = study_queries(_provenance(bench, args.preset), golden)
    compared = frozenset(before) & frozenset(after)
    if args.held_out_only:
        if seen is None:
            raise InputProblem(
                f"--held-out-only needs a preset saved by tune (its provenance names the study); preset "
                f"{args.preset!r} records no study"
            )
        unseen = compared - seen.tuned_on
        if not unseen:
            raise InputProblem(
                f"study {seen.study} tuned on all {len(compared)} queries compared (nested cross-validation "
                "tunes the configuration it saves on every query): none is left for --held-out-only"
            )
        before = {qid: value for qid, value in before.items() if qid in unseen}
        after = {qid: value for qid, value in after.items() if qid in unseen}
        properties["study_queries"] = (
            f"compared only on the {len(unseen)} queries study {seen.study} never saw "
            f"({len(compared) - len(unseen)} it tuned on left out)" + (f"; {seen.caveat}" if seen.caveat else "")
        )
    elif seen is not None:
        properties["study_queries"] = seen.describe(compared)
    result = gate(
        metric,
        before,
        after,
        max_drop=args.max_drop,
        alpha=args.alpha,
        permutations=args.permutations,
    )
    properties |= {"baseline_run": baseline.run_id or "", "candidate_run": candidate.run_id or ""}
    return result, properties


def _provenance(bench, preset: str):
    """The provenance recorded with ``preset`` (None for a preset saved by hand)."""
    return next((stored.provenance for stored in bench.presets() if stored.name == preset), None)


def _write_junit(args, result, elapsed: float, properties: dict, error: str | None) -> None:
    from workbench.tuning.gate import junit_xml

    name = f"{args.metric}: preset {args.preset} vs {args.baseline}"
    shown = {k: v for k, v in properties.items() if k != "baseline_shown"}
    path = Path(args.junit)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        junit_xml(name=name, result=result, elapsed_s=elapsed, properties=shown, error=error), encoding="utf-8"
    )
