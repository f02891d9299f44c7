"""The ``mcp`` command: serve the knowledge base over MCP, on stdio (the default) or streamable HTTP."""

from __future__ import annotations


def add_commands(commands, common) -> None:
    from workbench.mcp_server.http import DEFAULT_HOST, DEFAULT_PORT

    p = commands.add_parser("mcp", help="serve the knowledge base to MCP clients (stdio, or --http)")
    p.add_argument("--collection", "-c", help="default collection (default: the only or first one)")
    p.add_argument(
        "--http", action="store_true", help="serve streamable HTTP instead of stdio, with the evaluation loop's tools"
    )
    p.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"with --http: address to listen on (default {DEFAULT_HOST}; any other needs WORKBENCH_TOKEN)",
    )
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"with --http: port (default {DEFAULT_PORT})")
    p.add_argument("--read-only", action="store_true", help="with --http: hide and refuse every tool that writes")
    p.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="with --http: a browser origin allowed besides this machine's (repeatable)",
    )
    p.add_argument("--ingest-root", metavar="DIR", help="with --http: offer the ingest tool for files under DIR only")
    common(p)
    p.set_defaults(handler=cmd_mcp)


def cmd_mcp(args) -> int:
    from workbench.mcp_server.http import DEFAULT_HOST, DEFAULT_PORT

    if not args.http:
        http_only = {
            "--host": args.host != DEFAULT_HOST,
            "--port": args.port != DEFAULT_PORT,
            "--read-only": args.read_only,
            "--allow-origin": bool(args.allow_origin),
            "--ingest-root": bool(args.ingest_root),
        }
        given = [name for name, used in http_only.items() if used]
        if given:
            raise ValueError(f"{', '.join(given)} apply to the HTTP server only; add --http")
        from workbench.mcp_server.server import serve

        return serve(home=args.home, preset=args.preset, collection=args.collection, overrides=args.overrides)
    from workbench.mcp_server.http import http_settings, serve_http

    settings = http_settings(args.host, args.port, args.read_only, tuple(args.allow_origin))
    return serve_http(args.home, args.preset, args.collection, args.overrides, settings, args.ingest_root)
