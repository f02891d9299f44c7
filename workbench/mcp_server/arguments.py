"""Bounds of the tools' inputs and the checks that turn a bad value into a message naming the fix.

``top_k`` is ``retrieval.top_k``, so its range is the configuration's (``workbench.config``); only
the tools' default is their own. The JSON schemas advertise the same bounds, but not every
client enforces them, and the SDK's own validation would answer with a pydantic dump. These
checks run in the tool itself so the caller reads, for instance,
"top_k: 5000 is above the maximum 1000 (default 5); allowed: 1 to 1000".
"""

from __future__ import annotations

from workbench.config import Limits, key_limits, out_of_limits_message

TOP_K_LIMITS = key_limits("retrieval.top_k")
#: fewer than the pipeline's default: an agent reads every passage it gets
TOP_K_DEFAULT = 5
NEIGHBORS_LIMITS, NEIGHBORS_DEFAULT = Limits(0, 5), 0
#: min_confidence values, weakest first (the verdicts of workbench.retrieval.confidence)
CONFIDENCE_LEVELS = ("no_answer", "ambiguous", "relevant")
QUERY_MAX_CHARS = 2000


class ToolInputError(ValueError):
    """An argument the caller can fix; the message says how."""


def check_query(query: str) -> str:
    text = (query or "").strip()
    if not text:
        raise ToolInputError('query is empty; pass a question or keywords, e.g. query="how are chunks scored"')
    if len(text) > QUERY_MAX_CHARS:
        raise ToolInputError(
            f"query is {len(text)} characters long; shorten it to at most {QUERY_MAX_CHARS} "
            "(a question or a few keywords work best)"
        )
    return text


def check_whole_number(name: str, value: int, limits: Limits, default: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolInputError(
            f"{name}: {value!r} is not a whole number (default {default}); allowed: {limits.describe()}"
        )
    message = out_of_limits_message(name, value, limits, default)
    if message:
        raise ToolInputError(message)
    return value


def check_top_k(top_k: int) -> int:
    return check_whole_number("top_k", top_k, TOP_K_LIMITS, TOP_K_DEFAULT)


def check_neighbors(neighbors: int) -> int:
    return check_whole_number("neighbors", neighbors, NEIGHBORS_LIMITS, NEIGHBORS_DEFAULT)


def check_min_confidence(value: str | None) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    text = str(value).strip().lower()
    if text not in CONFIDENCE_LEVELS:
        raise ToolInputError(
            f"min_confidence must be one of {', '.join(CONFIDENCE_LEVELS)} (or omitted); got {value!r}"
        )
    return text


def check_reference(name: str, value: int | str | None) -> str:
    text = str(value if value is not None else "").strip()
    if not text:
        raise ToolInputError(
            f"{name} is empty; pass a document id, external id or file name "
            "(query_knowledge_hub citations and resources list them)"
        )
    return text


#: what evaluate and check score at: relevant documents, or relevant spans (where the golden set judges them)
LEVELS = ("doc", "span")


def check_level(value: str | None) -> str | None:
    """The level asked for, or None: the level the golden set was judged at."""
    text = str(value if value is not None else "").strip().lower()
    if not text:
        return None
    if text not in LEVELS:
        raise ToolInputError(
            f"level must be one of {', '.join(LEVELS)} (default: the level the golden set was judged at); got {value!r}"
        )
    return text
