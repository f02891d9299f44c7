"""Metadata filtering: which documents may appear in the results.

``scope_of`` turns the filter settings into the set of allowed chunks once per query; every
index searches within it (``allowed_ids``), and ``filter_hits`` re-checks a ranked list.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass

from store.index_set import Snapshot
from store.retrieval_index import AllowedChunks
from workbench.config import FilterConfig
from workbench.retrieval.ranking import RankedList
from workbench.retrieval.stages import FILTER


@dataclass(frozen=True)
class ChunkScope:
    """The chunks (and their documents) the metadata filters let through."""

    chunk_ids: frozenset[int]
    doc_ids: frozenset[int]
    note: str  # what the trace says about it


def scope_of(snapshot: Snapshot, config: FilterConfig) -> ChunkScope | None:
    """The filtered scope over a loaded snapshot; None when no filter is set."""
    wanted_docs = set(config.documents)
    wanted_types = {t.lower().lstrip(".") for t in config.doc_types}
    if not wanted_docs and not wanted_types:
        return None
    doc_ids: set[int] = set()
    for doc in snapshot.documents.values():
        if wanted_docs and not ({str(doc.doc_id), doc.source, doc.external_id or ""} & wanted_docs):
            continue
        if wanted_types and doc.doc_type.lower() not in wanted_types:
            continue
        doc_ids.add(doc.doc_id)
    # The set says which filter it came from, so a server-side backend filters by document and type.
    allowed = AllowedChunks(
        snapshot.chunks.ids_of_documents(doc_ids).tolist(),
        document_ids=doc_ids if wanted_docs else None,
        doc_types=wanted_types if wanted_types else None,
    )
    note = f"pre-filtered to {len(allowed)} of {len(snapshot.chunks)} chunks ({len(doc_ids)} documents)"
    return ChunkScope(allowed, frozenset(doc_ids), note)


def filter_hits(run: RankedList, keep_doc_ids: Set[int] | None, name: str = FILTER) -> tuple[RankedList, int]:
    """Keep only hits whose document is in ``keep_doc_ids``; ``None`` keeps every hit.

    Surviving hits keep their order and scores and are re-ranked 1..n. Returns the filtered list
    and how many hits were removed (the UI reports it, since a strict filter can empty a result).
    """
    if keep_doc_ids is None:
        return run.renamed(name), 0
    kept = [(c, d, s) for c, d, s in zip(run.ids, run.doc_ids, run.scores, strict=False) if d in keep_doc_ids]
    return RankedList.from_ordered(name, kept), len(run) - len(kept)
