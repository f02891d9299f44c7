"""Argument checks and answers to undecodable JSON-RPC lines."""

from __future__ import annotations

import mcp_types
import pytest

from workbench.config import key_limits
from workbench.mcp_server.arguments import (
    TOP_K_LIMITS,
    ToolInputError,
    check_neighbors,
    check_query,
    check_reference,
    check_top_k,
)
from workbench.mcp_server.jsonrpc_errors import unreadable_line_error


@pytest.mark.parametrize(
    "value, message",
    [
        (0, "top_k: 0 is below the minimum 1 (default 5); allowed: 1 to 1000"),
        (5000, "top_k: 5000 is above the maximum 1000 (default 5); allowed: 1 to 1000"),
        (True, "top_k: True is not a whole number (default 5); allowed: 1 to 1000"),
        (2.5, "top_k: 2.5 is not a whole number (default 5); allowed: 1 to 1000"),
    ],
)
def test_top_k_out_of_range_names_the_bounds_and_the_default(value, message):
    with pytest.raises(ToolInputError) as raised:
        check_top_k(value)
    assert str(raised.value) == message


def test_top_k_has_the_range_of_retrieval_top_k():
    limits = key_limits("retrieval.top_k")
    assert (TOP_K_LIMITS.minimum, TOP_K_LIMITS.maximum) == (limits.minimum, limits.maximum)
    assert check_top_k(limits.minimum) == limits.minimum and check_top_k(limits.maximum) == limits.maximum


def test_values_in_range_pass_through():
    assert check_neighbors(0) == 0 and check_neighbors(5) == 5
    with pytest.raises(ToolInputError, match=r"neighbors: 6 is above the maximum 5 \(default 0\); allowed: 0 to 5"):
        check_neighbors(6)


def test_queries_are_stripped_and_must_be_non_empty_and_bounded():
    assert check_query("  kettle  ") == "kettle"
    with pytest.raises(ToolInputError, match="query is empty"):
        check_query(" \n ")
    with pytest.raises(ToolInputError, match="query is 2001 characters long; shorten it to at most 2000"):
        check_query("a" * 2001)


def test_document_reference_accepts_numbers_and_rejects_blanks():
    assert check_reference("doc_id", 12) == "12"
    with pytest.raises(ToolInputError, match="doc_id is empty"):
        check_reference("doc_id", "  ")


def decode_error(line: str) -> Exception:
    try:
        mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception as error:  # what the stdio transport hands the server
        return error
    raise AssertionError(f"{line!r} decoded")


def test_text_that_is_not_json_gets_a_parse_error_without_id():
    answer = unreadable_line_error(decode_error("{not json"))
    assert (answer.id, answer.error.code) == (None, -32700)


def test_json_that_is_not_a_message_gets_invalid_request_with_its_id_when_readable():
    answer = unreadable_line_error(decode_error('{"jsonrpc": "2.0", "id": 9, "method": 5}'))
    assert (answer.id, answer.error.code) == (9, -32600)
    assert unreadable_line_error(decode_error("[1, 2]")).id is None
    assert unreadable_line_error(decode_error('{"id": true}')).id is None
