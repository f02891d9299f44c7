"""Which chunks are relevant to a golden query: the one rule evaluation and the app share.

Judgements name documents and character spans, never chunks, so a golden set survives
re-chunking: whatever the chunking, these rules decide afresh which chunks hold the evidence.

1. An item names a document by external id or file name (``guide.md`` or just ``guide``).
2. An item with ``start``/``end``: the chunks of that document whose ``[start, end)`` overlaps
   the item's ``[start, end)`` (offsets into the document's Markdown; touching is not overlapping).
3. An item with only a ``quote``: the chunks whose text contains the quote (whitespace runs
   match any whitespace). Given the document's Markdown, also the chunks overlapping any
   occurrence of the quote in it, so a quote longer than a chunk still marks the chunks that
   hold its pieces.
4. An item with neither (a document judgement): every chunk of the document, unless the query
   also has span items for that document; the spans are then the finer judgement and win.
5. A chunk's grade is the highest grade among the items that make it relevant.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import PurePath
from typing import Protocol

from workbench.evaluation.golden import GoldenQuery, RelevantItem

MarkdownLookup = Callable[[int], "str | None"]


class JudgedChunk(Protocol):
    """What the rules read from a chunk; ``workbench.retrieval.trace.ChunkView`` and ``StoredChunk``
    are two (read-only: a frozen dataclass, and a text read on demand)."""

    @property
    def chunk_id(self) -> int: ...
    @property
    def doc_id(self) -> int: ...
    @property
    def source(self) -> str: ...
    @property
    def external_id(self) -> str | None: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def text(self) -> str: ...


def document_names(source: str, external_id: str | None) -> tuple[str, ...]:
    """Every name a golden set may use for a document: external id, file name, file stem."""
    names = [external_id] if external_id else []
    if source:
        names += [source, PurePath(source).stem]
    return tuple(dict.fromkeys(names))


def names_document(item: RelevantItem, chunk: JudgedChunk) -> bool:
    return item.doc in document_names(chunk.source, chunk.external_id)


def canonical_document_names(documents: Iterable[tuple[str, str | None]]) -> dict[str, str]:
    """Every name of every ``(source, external_id)`` document -> the key results use for it.

    The key is the external id, else the file name (``workbench.evaluation.stages.document_key``).
    When two documents share a name, an external id beats a file name, which beats a file stem.
    """
    documents = list(documents)
    names: dict[str, str] = {}
    for source, external_id in documents:
        names[PurePath(source).stem] = external_id or source
    for source, external_id in documents:
        names[source] = external_id or source
    for _source, external_id in documents:
        if external_id:
            names[external_id] = external_id
    return names


def judgement_for_chunk(chunk: JudgedChunk, grade: int = 1) -> RelevantItem:
    """The span item that marks exactly this chunk's characters relevant (the Retrieval lab's
    "mark relevant"): it names the document, not the chunk, so it survives re-chunking."""
    return RelevantItem(doc=chunk.external_id or chunk.source, grade=grade, start=chunk.start, end=chunk.end)


def overlaps(start: int, end: int, other_start: int, other_end: int) -> bool:
    """Half-open intervals [start, end) and [other_start, other_end) share at least one character."""
    return start < other_end and other_start < end


@lru_cache(maxsize=4096)
def quote_pattern(quote: str) -> re.Pattern[str]:
    """The quote as a regular expression in which any whitespace run matches any other."""
    return re.compile(r"\s+".join(re.escape(part) for part in quote.split()))


def quote_occurrences(markdown: str, quote: str) -> list[tuple[int, int]]:
    """[start, end) of every non-overlapping occurrence of ``quote`` in ``markdown``."""
    return [(match.start(), match.end()) for match in quote_pattern(quote).finditer(markdown)]


def item_matches_chunk(
    item: RelevantItem, chunk: JudgedChunk, quote_spans: list[tuple[int, int]] | None = None
) -> bool:
    """Rules 2 and 3 for one span item and one chunk already known to be of the item's document."""
    if item.start is not None and item.end is not None:  # a span item has both (``parse_item``)
        return overlaps(chunk.start, chunk.end, item.start, item.end)
    if item.quote is not None:
        if quote_pattern(item.quote).search(chunk.text):
            return True
        return any(overlaps(chunk.start, chunk.end, s, e) for s, e in quote_spans or ())
    return True


def chunks_per_item(
    query: GoldenQuery,
    chunks: Iterable[JudgedChunk],
    markdown: MarkdownLookup | None = None,
) -> list[tuple[RelevantItem, set[int]]]:
    """Each counted item of the query with the ids of the chunks it makes relevant.

    Items with grade 0, and document items superseded by spans of the same document (rule 4),
    are left out. An item with an empty set matched nothing: its document is not among
    ``chunks`` or its quote was not found.
    """
    chunks = list(chunks)
    span_items = [item for item in query.relevant if item.is_span and item.grade > 0]
    quote_spans: dict[tuple[int, str], list[tuple[int, int]]] = {}
    matched: list[tuple[RelevantItem, set[int]]] = []
    for item in query.relevant:
        if item.grade <= 0:
            continue
        own = [chunk for chunk in chunks if names_document(item, chunk)]
        if not item.is_span and any(
            span.doc == item.doc or any(names_document(span, chunk) for chunk in own) for span in span_items
        ):
            continue  # rule 4: the document's spans say more than the document judgement
        hits = set()
        for chunk in own:
            spans = None
            if item.start is None and item.quote is not None and markdown is not None:
                key = (chunk.doc_id, item.quote)
                if key not in quote_spans:
                    text = markdown(chunk.doc_id)
                    quote_spans[key] = quote_occurrences(text, item.quote) if text else []
                spans = quote_spans[key]
            if item_matches_chunk(item, chunk, spans):
                hits.add(chunk.chunk_id)
        matched.append((item, hits))
    return matched


def relevant_chunks(
    query: GoldenQuery,
    chunks: Iterable[JudgedChunk],
    markdown: MarkdownLookup | None = None,
) -> dict[int, int]:
    """chunk id -> grade for every chunk in ``chunks`` the query's judgements make relevant.

    Pass all chunks of the judged documents to get the full set (the denominator of recall),
    or just the chunks of a result list to mark which hits are relevant. ``markdown(doc_id)``
    resolves quote-only items against the whole document (rule 3); without it a quote must lie
    inside one chunk.
    """
    grades: dict[int, int] = {}
    for item, hits in chunks_per_item(query, chunks, markdown):
        for chunk_id in hits:
            grades[chunk_id] = max(grades.get(chunk_id, 0), item.grade)
    return grades


class ChunkJudge:
    """Span-level judgements over one chunk layout, built once and reused for every query.

    ``judge(query)`` returns the query's relevant chunks among *all* chunks of the layout, which
    is what span-level recall and the ideal DCG count. A name shared by several documents
    resolves as in ``canonical_document_names``.
    """

    def __init__(self, chunks: Iterable[JudgedChunk], markdown: MarkdownLookup | None = None):
        self._markdown = markdown
        self._by_document: dict[str, list[JudgedChunk]] = {}
        #: chunk id -> the key results name its document by (``stages.document_key``)
        self.document_keys: dict[int, str] = {}
        documents: dict[str, tuple[str, str | None]] = {}
        for chunk in chunks:
            key = chunk.external_id or chunk.source
            self._by_document.setdefault(key, []).append(chunk)
            self.document_keys[chunk.chunk_id] = key
            documents[key] = (chunk.source, chunk.external_id)
        self.names = canonical_document_names(documents.values())
        self._judged: dict[GoldenQuery, tuple[dict[int, int], tuple[RelevantItem, ...]]] = {}

    @property
    def chunk_count(self) -> int:
        return sum(len(chunks) for chunks in self._by_document.values())

    def chunks_of(self, doc: str) -> list[JudgedChunk]:
        key = self.names.get(doc)
        return self._by_document.get(key, []) if key is not None else []

    def unknown_documents(self, query: GoldenQuery) -> list[str]:
        """Documents the query names that this layout does not hold (typos, deleted files)."""
        return sorted({item.doc for item in query.relevant if item.doc not in self.names})

    def judge(self, query: GoldenQuery) -> dict[int, int]:
        """chunk id -> grade over the whole layout."""
        return self._judgement(query)[0]

    def unmatched(self, query: GoldenQuery) -> tuple[RelevantItem, ...]:
        """Counted items that match no chunk of the layout (unknown document, quote not found).

        Evaluation counts each as one relevant unit that can never be retrieved, so a broken
        judgement lowers recall instead of silently vanishing from the denominator.
        """
        return self._judgement(query)[1]

    def _judgement(self, query: GoldenQuery) -> tuple[dict[int, int], tuple[RelevantItem, ...]]:
        if query not in self._judged:
            candidates: dict[int, JudgedChunk] = {}
            for item in query.relevant:
                for chunk in self.chunks_of(item.doc):
                    candidates.setdefault(chunk.chunk_id, chunk)
            grades: dict[int, int] = {}
            unmatched = []
            for item, hits in chunks_per_item(query, candidates.values(), self._markdown):
                if not hits:
                    unmatched.append(item)
                for chunk_id in hits:
                    grades[chunk_id] = max(grades.get(chunk_id, 0), item.grade)
            self._judged[query] = (grades, tuple(unmatched))
        return self._judged[query]
