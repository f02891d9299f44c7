"""An MCP server whose ``query_knowledge_hub`` searches nothing: it returns one answer kept in memory.

    python -m bench.mcp_floor_server --answer FILE                # stdio
    python -m bench.mcp_floor_server --answer FILE --port 8801    # stateless streamable HTTP on 127.0.0.1

``bench_mcp`` puts the same clients on it that it puts on the workbench's server, to measure what
a call costs when the search costs nothing: the SDK's server and client, the transport and the
machine. FILE is a real answer (a ``CallToolResult`` as JSON, taken from the workbench's server),
so the result the clients receive, parse and validate against the same output schema is the same
size and shape as a real one.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult

from workbench.mcp_server.schemas import SearchResult

MCP_PATH = "/mcp"


def build_floor_server(answer: CallToolResult) -> MCPServer:
    """A server with the workbench's search tool's name, arguments and output schema, answering ``answer``."""
    server = MCPServer(name="rag-workbench-floor")

    @server.tool()
    async def query_knowledge_hub(
        query: str, top_k: int = 5, collection: str | None = None
    ) -> Annotated[CallToolResult, SearchResult]:
        """The kept answer, whatever the query."""
        return answer

    return server


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answer", type=Path, required=True, help="a CallToolResult as JSON")
    parser.add_argument("--port", type=int, help="serve stateless streamable HTTP on 127.0.0.1:PORT (default: stdio)")
    arguments = parser.parse_args()
    server = build_floor_server(CallToolResult.model_validate(json.loads(arguments.answer.read_text("utf-8"))))
    if arguments.port is None:
        server.run("stdio")
        return 0
    import uvicorn

    app = server.streamable_http_app(streamable_http_path=MCP_PATH, stateless_http=True, host="127.0.0.1")
    uvicorn.run(app, host="127.0.0.1", port=arguments.port, log_level="warning", access_log=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
