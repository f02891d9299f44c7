"""The allowed chunks of a query as a Milvus boolean expression."""

from __future__ import annotations

import json
from collections.abc import Iterable, Set

from store.milvus.schema import DOC_ID, DOC_TYPE, ID
from store.retrieval_index import AllowedChunks


def filter_expression(allowed_ids: Set[int] | None) -> str:
    """A Milvus boolean expression for the allowed chunks.

    ``AllowedChunks`` that say which documents and types they came from (as the pipeline's
    document filters give) become an expression on those fields, which stays short however many
    chunks the documents hold; any other set becomes ``id in [...]``.
    """
    if allowed_ids is None:
        return ""
    document_ids = doc_types = None
    if isinstance(allowed_ids, AllowedChunks):
        document_ids, doc_types = allowed_ids.document_ids, allowed_ids.doc_types
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
