"""The ``log`` commands: show and empty the query log (``log.queries=off`` stops recording)."""

from __future__ import annotations

from workbench.cli.common import EXIT_OK, workbench_from


def add_commands(commands, common) -> None:
    p = commands.add_parser("log", help="the query log: what the Retrieval lab, the CLI and the MCP server asked")
    actions = p.add_subparsers(dest="log_action", required=True)
    q = actions.add_parser("list", help="the logged queries, newest first")
    q.add_argument("--since", help="only queries from this UTC date or time on (YYYY-MM-DD[THH:MM])")
    q.add_argument("--until", help="only queries before this UTC date or time")
    q.add_argument(
        "--source", action="append", default=[], choices=("lab", "cli", "mcp"), help="only this source (repeatable)"
    )
    q.add_argument("--collection", "-c", help="only this collection")
    q.add_argument("--limit", type=int, default=50, help="most entries shown (default 50)")
    q.add_argument("--json", action="store_true", help="one JSON object per line")
    common(q)
    q.set_defaults(handler=cmd_log_list)
    q = actions.add_parser("purge", help="empty the query log (the catalog's entries and every process's file)")
    common(q)
    q.set_defaults(handler=cmd_log_purge)


def cmd_log_list(args) -> int:
    import json

    from workbench.golden.query_log import list_queries, parse_when

    if args.limit < 1:
        raise ValueError(f"--limit {args.limit} must be at least 1")
    bench = workbench_from(args)
    found = list_queries(
        bench.catalog,
        bench.home,
        since=parse_when(args.since),
        until=parse_when(args.until, "--until"),
        sources=args.source,
        collection=args.collection,
        limit=args.limit,
    )
    if args.json:
        for entry in found:
            print(
                json.dumps(
                    {
                        "at": entry.logged_at.isoformat(),
                        "source": entry.source,
                        "collection": entry.collection,
                        "query": entry.query,
                        "config": entry.config_hash,
                        "chunks": list(entry.chunk_ids),
                    },
                    ensure_ascii=False,
                )
            )
        return EXIT_OK
    if not found:
        print("the query log is empty (queries are recorded unless log.queries=off)")
        return EXIT_OK
    print(f"{'time (UTC)':<19}  {'source':<6} {'collection':<14} {'config':<12} {'hits':>4}  query")
    for entry in found:
        print(
            f"{entry.logged_at:%Y-%m-%d %H:%M:%S}  {entry.source:<6} {entry.collection[:14]:<14} "
            f"{entry.config_hash:<12} {len(entry.chunk_ids):>4}  {entry.query}"
        )
    return EXIT_OK


def cmd_log_purge(args) -> int:
    from workbench.golden.query_log import purge

    bench = workbench_from(args)
    removed = purge(bench.catalog, bench.home)
    print(f"purged the query log: {removed} entries removed")
    return EXIT_OK
