"""The Retrieval lab's side of golden sets: which golden query a typed query is, which chunks of
the collection and of a run it marks relevant, and what "mark this hit relevant" writes.

All judging is ``workbench.evaluation.relevance``: the lab highlights exactly the chunks that
evaluation counts, so a hit shown as relevant here is one that earns a metric there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from store.index_set import Snapshot
from workbench.evaluation import golden
from workbench.evaluation.golden import GoldenQuery, GoldenSetError, RelevantItem
from workbench.evaluation.relevance import (
    ChunkJudge,
    MarkdownLookup,
    canonical_document_names,
    judgement_for_chunk,
    names_document,
)
from workbench.retrieval.trace import ChunkView, chunk_view

#: the two granularities a hit can be marked relevant at
DOCUMENT_LEVEL = "document"
SPAN_LEVEL = "span"
MARK_LEVELS = (DOCUMENT_LEVEL, SPAN_LEVEL)


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

    When several sets hold it, the set named ``prefer`` (the set the user marks into, else the
    collection) wins, then the first by name. A set that fails to load is skipped and reported,
    never fatal: highlighting is an aid, not a precondition for querying.
    """
    return golden_queries_by_text(home, prefer).lookup(text)


@dataclass(frozen=True)
class GoldenQueryIndex:
    """Every available golden query by its stripped text, each from the set that wins it, and
    the sets that could not be read: built once per change of the golden-set files, it answers
    each typed query without reading a set."""

    matches: Mapping[str, GoldenMatch]
    problems: tuple[str, ...] = ()

    def lookup(self, text: str) -> GoldenLookup:
        return GoldenLookup(self.matches.get(text.strip()), self.problems)


def golden_queries_by_text(home: Path, prefer: str | None = None) -> GoldenQueryIndex:
    """The index ``find_golden_query`` reads: ``prefer``'s queries first, then each set's by name."""
    names = golden.available(home)
    if prefer in names:
        names = [prefer] + [name for name in names if name != prefer]
    matches: dict[str, GoldenMatch] = {}
    problems = []
    for name in names:
        try:
            queries = golden.find(name, home).by_query_text()
        except GoldenSetError as error:
            problems.append(str(error))
            continue
        for text, query in queries.items():
            matches.setdefault(text.strip(), GoldenMatch(name, query))
    matches.pop("", None)  # an empty query is no golden query
    return GoldenQueryIndex(matches, tuple(problems))


# -- judging (delegated) ----------------------------------------------------------------------------


def relevant_in_collection(
    query: GoldenQuery, snapshot: Snapshot, markdown: MarkdownLookup | None = None
) -> dict[int, int]:
    """chunk id -> grade over every chunk of the snapshot, as span-level evaluation judges it.

    Only the chunks of the documents the query names are handed to the judge: the names resolve
    over all documents first (as ``ChunkJudge`` resolves them), so the result is the same as
    judging the whole collection, without building a view of every chunk on each re-render.
    """
    names = canonical_document_names((doc.source, doc.external_id) for doc in snapshot.documents.values())
    wanted = {names[item.doc] for item in query.relevant if item.doc in names}
    doc_ids = {doc.doc_id for doc in snapshot.documents.values() if (doc.external_id or doc.source) in wanted}
    views = [chunk_view(snapshot, chunk_id) for chunk_id in snapshot.chunks.ids_of_documents(doc_ids).tolist()]
    return ChunkJudge(views, markdown).judge(query)


def relevant_in_run(collection_grades: Mapping[int, int], run_chunks: Mapping[int, ChunkView]) -> dict[int, int]:
    """The part of ``relevant_in_collection`` that a run (a trace's ``chunks``) retrieved.

    Taken from the collection-wide judgement rather than judged afresh, so a run's marks and
    the "N relevant chunks in this collection" count can never disagree.
    """
    return {chunk_id: grade for chunk_id, grade in collection_grades.items() if chunk_id in run_chunks}


# -- marking hits relevant ----------------------------------------------------------------------------


def judgement_for_hit(chunk: ChunkView, level: str, grade: int = 1) -> RelevantItem:
    """The golden item that marks ``chunk`` relevant: its whole document, or just its characters."""
    if level == SPAN_LEVEL:
        return judgement_for_chunk(chunk, grade)
    if level == DOCUMENT_LEVEL:
        return RelevantItem(doc=chunk.external_id or chunk.source, grade=grade)
    raise ValueError(f"unknown judgement level {level!r}; use one of {', '.join(MARK_LEVELS)}")


def golden_query_key(set_name: str, lookup: GoldenLookup, query_text: str) -> str:
    """What to pass ``golden.mark_relevant`` to find the query in ``set_name``.

    The matched query's id when the typed query is already in that set (an id is exact even
    if the text looks like some other query's id), else the text, which adds the query.
    """
    if lookup.match is not None and lookup.match.set_name == set_name:
        return lookup.match.query.id
    return query_text.strip()


def judgements_of_document(query: GoldenQuery, chunk: ChunkView) -> tuple[RelevantItem, ...]:
    """The query's items about the chunk's document (by any of its names), to show what is recorded."""
    return tuple(item for item in query.relevant if names_document(item, chunk))


def describe_item(item: RelevantItem) -> str:
    """One line for a golden item: what it marks, and its grade."""
    if item.start is not None:
        what = f"characters {item.start}–{item.end}"
    elif item.quote is not None:
        what = f"the quote “{item.quote}”"
    else:
        what = "the whole document"
    return f"{item.doc}: {what} (grade {item.grade})"
