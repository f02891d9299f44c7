"""Commands about where a collection's indexes live: ``sync`` and ``migrate-backend``."""

from __future__ import annotations

from workbench.backends import BACKENDS
from workbench.cli.common import EXIT_OK, print_progress, workbench_from


def add_commands(commands, common) -> None:
    p = commands.add_parser(
        "sync",
        help="bring a collection's indexes in line with the catalog (repairs a Milvus copy after a crash); "
        "parses again the documents an older parser wrote, from their kept originals",
    )
    p.add_argument("--collection", "-c", required=True)
    p.add_argument(
        "--ocr",
        action="store_true",
        help="first read the pictures an ingest skipped for time, a limit or a missing tesseract (their "
        "documents only, from the kept originals; raise a limit with --set ingest.ocr_budget_s=60, say)",
    )
    common(p)
    p.set_defaults(handler=cmd_sync)

    p = commands.add_parser(
        "migrate-backend", help="move a collection's indexes to another backend (local or milvus), re-embedding nothing"
    )
    p.add_argument("--collection", "-c", required=True)
    p.add_argument("--to", required=True, choices=BACKENDS.names(), help="where the indexes go")
    p.add_argument(
        "--uri",
        help="the Milvus to move to: a Milvus Lite file (relative to the home) or "
        "http://host:19530 (default: milvus.uri, indexes/milvus.db)",
    )
    common(p)
    p.set_defaults(handler=cmd_migrate_backend)


def cmd_sync(args) -> int:
    bench = workbench_from(args)
    config = bench.config_for(args.collection, args.preset, args.overrides)
    if args.ocr:
        for line in bench.retry_ocr(args.collection, config, progress=print_progress).lines():
            print(f"{args.collection}: {line}" if not line.startswith(" ") else line)
    reparsed = bench.reparse_outdated(args.collection, config, progress=print_progress)
    if reparsed.summary():
        print(f"{args.collection}: {reparsed.summary()}")
    for result in bench.sync(args.collection, config, verify=True, reparse=False, progress=print_progress):
        if not result.rebuilt:
            print(f"{args.collection}/{result.layout_key}: up to date at generation {result.generation}")
            continue
        print(
            f"{args.collection}/{result.layout_key}: {result.chunks} chunks at generation {result.generation}; "
            f"{result.added} written, {result.removed} removed ({result.elapsed_s:.1f} s)"
        )
    return EXIT_OK


def cmd_migrate_backend(args) -> int:
    bench = workbench_from(args)
    moved = bench.migrate_backend(args.collection, args.to, args.uri, progress=print_progress)
    where = f"{moved.backend} at {moved.uri}" if moved.uri else f"{moved.backend} index files"
    chunks = sum(result.chunks for result in moved.results)
    print(
        f"moved {args.collection} to {where}: {chunks} chunks in {len(moved.results)} layout(s), "
        "vectors from the embedding cache"
    )
    for entry in moved.dropped:
        print(f"  removed {entry}")
    return EXIT_OK
