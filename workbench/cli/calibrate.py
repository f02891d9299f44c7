"""The ``calibrate`` command: fit the confidence thresholds to a collection from a golden set.

Thresholds are stored with the collection (they apply before any preset), or with ``--preset
NAME`` in that preset. ``--dry-run`` only reports.
"""

from __future__ import annotations

import json
import sys

from workbench.cli.common import COLLECTION_HELP, EXIT_OK, checked_config, collection_of, workbench_from


def add_commands(commands, common) -> None:
    p = commands.add_parser("calibrate", help="fit the confidence thresholds on a golden set and store them")
    p.add_argument("--collection", "-c", help=COLLECTION_HELP)
    p.add_argument(
        "--golden",
        "-g",
        help="golden set name or .jsonl path (default: the collection's name); "
        "queries with an empty relevant list are the no-answer examples",
    )
    p.add_argument("--dry-run", action="store_true", help="report the fitted thresholds without storing them")
    p.add_argument("--json", action="store_true", help="print the calibration as one JSON object")
    common(p)
    p.set_defaults(handler=cmd_calibrate)


def cmd_calibrate(args) -> int:
    from workbench.evaluation import golden as golden_sets
    from workbench.evaluation.calibration import calibrate, collect_samples

    bench = workbench_from(args)
    args.collection = collection_of(bench, args.collection)
    config = checked_config(bench, args.collection, args)
    golden = golden_sets.find(args.golden or args.collection, bench.home)
    samples = collect_samples(bench, args.collection, golden, config)
    calibration = calibrate(samples, config.confidence)
    overrides = calibration.overrides()
    stored_in = None
    if overrides and not args.dry_run:
        if args.preset:
            bench.save_preset(args.preset, {**bench.preset_overrides(args.preset), **overrides})
            stored_in = f"preset {args.preset!r}"
        else:
            bench.store_collection_settings(args.collection, overrides)
            stored_in = f"collection {args.collection!r}"
    if args.json:
        print(
            json.dumps(
                {**calibration.to_dict(), "stored_in": stored_in, "golden": golden.name, "collection": args.collection},
                ensure_ascii=False,
            )
        )
        return EXIT_OK
    answerable = sum(sample.answerable for sample in samples)
    print(
        f"{args.collection} / {golden.name}: {answerable} answerable and {len(samples) - answerable} no-answer queries"
    )
    print(f"  {'signal':<8}{'low':>10}{'high':>10}  how")
    for fit in calibration.fits:
        print(f"  {fit.signal:<8}{fit.low:>10.4f}{fit.high:>10.4f}  {fit.method}")
    print(f"before: {calibration.before.describe()}")
    print(f"after:  {calibration.after.describe()}")
    if not overrides:
        print("nothing to store: no signal had enough values", file=sys.stderr)
    elif stored_in:
        print(f"stored with {stored_in}: " + " ".join(f"{k}={v:g}" for k, v in overrides.items()))
    else:
        print("dry run: nothing stored")
    return EXIT_OK
