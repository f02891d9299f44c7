"""The allowed chunks of a query as a Milvus boolean expression."""

from __future__ import annotations

import json
from typing import AbstractSet, Iterable

from store.milvus.schema import DOC_ID, DOC_TYPE, ID


def filter_expression(allowed_ids: AbstractSet[int] | None) -> str:
    """A Milvus boolean expression for the allowed chunks.

    A set that says which documents and types it came from (``document_ids`` / ``doc_types``
    attributes, as the pipeline's document filters give) becomes an expression on those fields,
    which stays short however many chunks the documents hold; any other set becomes ``id in [...]``.
    """
    if allowed_ids is None:
        return ""
    document_ids = getattr(allowed_ids, "document_ids", None)
    doc_types = getattr(allowed_ids, "doc_types", None)
    if document_ids is not None or doc_types is not None:
        clauses = []
        if document_ids is not None:
            clauses.append(f"{DOC_ID} in {_int_list(document_ids)}")
        if doc_types is not None:
            clauses.append(f"{DOC_TYPE} in {json.dumps(sorted(str(t) for t in doc_types))}")
        return " and ".join(clauses)
    return f"{ID} in {_int_list(allowed_ids)}"


def _int_list(values: Iterable[int]) -> str:
    return "[" + ",".join(str(int(value)) for value in sorted(values)) + "]"
