"""JSON-RPC error answers for stdin lines the SDK cannot decode.

The SDK's stdio transport turns a line that is not a JSON-RPC message into an exception and the
server drops it, so a client that sent a broken request with an id would wait forever. JSON-RPC
2.0 asks for an answer instead: -32700 (parse error) for text that is not JSON, -32600 (invalid
request) for JSON that is not a message, echoing the request id when one can be read.
"""

from __future__ import annotations

from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError
from pydantic_core import ErrorDetails

ONE_MESSAGE_PER_LINE = "send one JSON-RPC 2.0 message per line, as UTF-8 JSON"


def unreadable_line_error(error: Exception) -> JSONRPCError:
    """The error response for one undecodable inbound line (``error`` is what the transport raised)."""
    details = error.errors() if isinstance(error, ValidationError) else []
    if not details or any(item["type"] == "json_invalid" for item in details):
        return JSONRPCError(
            jsonrpc="2.0",
            id=None,
            error=ErrorData(code=PARSE_ERROR, message=f"Parse error: the line is not JSON; {ONE_MESSAGE_PER_LINE}"),
        )
    return JSONRPCError(
        jsonrpc="2.0",
        id=_request_id(details),
        error=ErrorData(
            code=INVALID_REQUEST,
            message="Invalid Request: not a JSON-RPC 2.0 request, notification or response "
            '(needs jsonrpc="2.0", a string method, and object params if any)',
        ),
    )


def _request_id(details: list[ErrorDetails]) -> str | int | None:
    """The ``id`` of the rejected message, if it parsed as an object with a usable id."""
    for item in details:
        message = item.get("input")
        if isinstance(message, dict):
            candidate = message.get("id")
            if isinstance(candidate, (str, int)) and not isinstance(candidate, bool):
                return candidate
    return None
