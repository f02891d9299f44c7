"""Bounds of the tools' inputs and the checks that turn a bad value into a message naming the fix.

The JSON schemas advertise the same bounds, but not every client enforces them, and the SDK's
own validation would answer with a pydantic dump. These checks run in the tool itself so the
caller reads, for instance, "top_k must be between 1 and 50; got 500".
"""

from __future__ import annotations

TOP_K_MIN, TOP_K_MAX, TOP_K_DEFAULT = 1, 50, 5
NEIGHBORS_MIN, NEIGHBORS_MAX = 0, 5
QUERY_MAX_CHARS = 2000


class ToolInputError(ValueError):
    """An argument the caller can fix; the message says how."""


def check_query(query: str) -> str:
    text = (query or "").strip()
    if not text:
        raise ToolInputError("query is empty; pass a question or keywords, e.g. query=\"how are chunks scored\"")
    if len(text) > QUERY_MAX_CHARS:
        raise ToolInputError(
            f"query is {len(text)} characters long; shorten it to at most {QUERY_MAX_CHARS} "
            "(a question or a few keywords work best)"
        )
    return text


def check_range(name: str, value: int, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ToolInputError(f"{name} must be between {low} and {high}; got {value!r}")
    return value


def check_top_k(top_k: int) -> int:
    return check_range("top_k", top_k, TOP_K_MIN, TOP_K_MAX)


def check_neighbors(neighbors: int) -> int:
    return check_range("neighbors", neighbors, NEIGHBORS_MIN, NEIGHBORS_MAX)


def check_reference(name: str, value: str) -> str:
    text = str(value if value is not None else "").strip()
    if not text:
        raise ToolInputError(
            f"{name} is empty; pass a document id, external id or file name "
            "(query_knowledge_hub citations and resources list them)"
        )
    return text
