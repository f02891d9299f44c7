"""The ``mcp`` command: serve the knowledge base over MCP stdio."""

from __future__ import annotations


def add_commands(commands, common) -> None:
    p = commands.add_parser("mcp", help="serve the knowledge base to MCP clients over stdio")
    p.add_argument("--collection", "-c", help="default collection (default: the only or first one)")
    common(p)
    p.set_defaults(handler=cmd_mcp)


def cmd_mcp(args) -> int:
    from workbench.mcp_server.server import serve

    return serve(home=args.home, preset=args.preset, collection=args.collection, overrides=args.overrides)
