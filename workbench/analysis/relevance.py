"""Which chunks a golden query marks relevant, and finding the golden query for a typed query.

A golden item names a document by external id, file name or catalog id. A document-level item
makes every chunk of that document relevant; a span item only the chunks whose ``[start, end)``
overlaps the span or whose text contains the quote (offsets are into the document's canonical
Markdown, like chunk offsets).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from store.index_set import Snapshot
from workbench.evaluation import golden
from workbench.evaluation.golden import GoldenQuery, GoldenSetError, RelevantItem
from workbench.trace import ChunkView


@dataclass(frozen=True)
class GoldenMatch:
    set_name: str
    query: GoldenQuery


@dataclass(frozen=True)
class GoldenLookup:
    """The match (if any) and the golden sets that could not be read, with why."""

    match: GoldenMatch | None
    problems: tuple[str, ...] = ()


def find_golden_query(text: str, home: Path, prefer: str | None = None) -> GoldenLookup:
    """The golden query whose text equals ``text`` (both stripped) in any available set.

    When several sets hold it, the set named ``prefer`` (the collection, usually) wins, then the
    first by name. A set that fails to load is skipped and reported, never fatal: highlighting is
    an aid, not a precondition for querying.
    """
    wanted = text.strip()
    if not wanted:
        return GoldenLookup(None)
    names = golden.available(home)
    if prefer in names:
        names = [prefer] + [name for name in names if name != prefer]
    problems = []
    for name in names:
        try:
            found = golden.find(name, home).by_query_text().get(wanted)
        except GoldenSetError as error:
            problems.append(str(error))
            continue
        if found is not None:
            return GoldenLookup(GoldenMatch(name, found), tuple(problems))
    return GoldenLookup(None, tuple(problems))


def item_matches_chunk(item: RelevantItem, doc_keys: Iterable[str], start: int, end: int, text: str) -> bool:
    """Does ``item`` mark the chunk ``[start, end)`` with ``text`` of a document known by ``doc_keys``?"""
    if item.doc not in set(doc_keys):
        return False
    if not item.is_span:
        return True
    overlaps = item.start is not None and item.end is not None and start < item.end and item.start < end
    quoted = item.quote is not None and item.quote in text
    return overlaps or quoted


def chunk_grade(query: GoldenQuery, doc_keys: Iterable[str], start: int, end: int, text: str) -> int:
    """The highest grade any item of ``query`` gives the chunk; 0 = not relevant."""
    keys = set(doc_keys)
    return max((item.grade for item in query.relevant if item_matches_chunk(item, keys, start, end, text)), default=0)


def document_keys(doc_id: int, source: str, external_id: str | None) -> set[str]:
    """The names a golden item may use for a document."""
    return {str(doc_id), source} | ({external_id} if external_id else set())


def relevant_chunks(query: GoldenQuery, chunks: Iterable[ChunkView]) -> dict[int, int]:
    """Chunk id -> grade for the relevant chunks among ``chunks`` (a trace's ``chunks.values()``)."""
    grades = {}
    for chunk in chunks:
        grade = chunk_grade(query, document_keys(chunk.doc_id, chunk.source, chunk.external_id),
                            chunk.start, chunk.end, chunk.text)
        if grade > 0:
            grades[chunk.chunk_id] = grade
    return grades


def relevant_chunks_in_snapshot(query: GoldenQuery, snapshot: Snapshot) -> dict[int, int]:
    """Chunk id -> grade over the whole indexed collection (to count what no stage retrieved)."""
    wanted_docs = {item.doc for item in query.relevant}
    keys_of = {}
    for doc in snapshot.documents.values():
        keys = document_keys(doc.doc_id, doc.source, doc.external_id)
        if keys & wanted_docs:
            keys_of[doc.doc_id] = keys
    grades = {}
    for chunk in snapshot.chunks.values():
        keys = keys_of.get(chunk.doc_id)
        if keys is None:
            continue
        grade = chunk_grade(query, keys, chunk.start, chunk.end, chunk.text)
        if grade > 0:
            grades[chunk.chunk_id] = grade
    return grades
