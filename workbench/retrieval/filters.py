"""Metadata filtering of a ranked list (which documents may appear in the results)."""

from __future__ import annotations

from workbench.retrieval.ranking import RankedList


def filter_hits(run: RankedList, keep_doc_ids: set[int] | None, name: str = "filtered") -> tuple[RankedList, int]:
    """Keep only hits whose document is in ``keep_doc_ids``; ``None`` keeps every hit.

    Surviving hits keep their order and scores and are re-ranked 1..n. Returns the filtered list
    and how many hits were removed (the UI reports it, since a strict filter can empty a result).
    """
    if keep_doc_ids is None:
        return run.renamed(name), 0
    kept = [(hit.chunk_id, hit.doc_id, hit.score) for hit in run.hits if hit.doc_id in keep_doc_ids]
    return RankedList.from_ordered(name, kept), len(run) - len(kept)
