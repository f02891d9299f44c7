"""Which golden sets belong to a collection: the pickers offer those, not every set in the home.

A golden set names documents, not a collection, so the tie is read from what it judges: a set
belongs to a collection when at least half of the documents it judges are in the collection
(under any name a judgement may use: external id, file name, file stem). A set that judges no
document yet (a new set, one of only unanswerable questions) goes by its name: the collection's
own name, or the name followed by ``-`` (``notes-synth``, written from the collection's documents).
"""

from __future__ import annotations

from collections.abc import Iterable

from workbench.evaluation.golden import GoldenSet
from workbench.evaluation.relevance import document_names

#: the share of a set's judged documents a collection must hold for the set to count as its own
MIN_SHARE_FOUND = 0.5


def judged_documents(golden: GoldenSet) -> set[str]:
    """The document names a golden set judges (each as the set writes it)."""
    return {item.doc for query in golden.queries for item in query.relevant}


def collection_names(documents: Iterable[tuple[str, str | None]]) -> set[str]:
    """Every name a golden set may use for the collection's ``(source, external_id)`` documents."""
    return {name for source, external_id in documents for name in document_names(source, external_id)}


def belongs_to(golden: GoldenSet, collection: str, names: set[str]) -> bool:
    """Whether ``golden`` judges the collection whose documents go by ``names``."""
    judged = judged_documents(golden)
    if not judged:
        return golden.name == collection or golden.name.startswith(f"{collection}-")
    found = sum(1 for doc in judged if doc in names)
    return found >= MIN_SHARE_FOUND * len(judged)
