"""Where a hit's match lies: the section and page a citation names.

A chunk can cross a heading or a page break, and its stored ``heading_path`` and ``page`` are
those at its start: a chunk that opens with two table rows of section 6 and goes on into
"## 7. Visual Components Analysis" on page 7 would be cited as section 6, page 6, though the
answer is in section 7. The document keeps what decides the place of every character (its
Markdown's headings and its ``page_starts``), and a chunk's ``[start, end)`` indexes into it, so
nothing more needs storing: the chunk is cut where a section or a page begins inside it, and the
citation names the part holding the sentence that matches the query best.

A sentence's match is the sum of the idf of the distinct query terms it holds, terms as the
collection's BM25 tokenizer makes them (stemmed English, jieba-segmented Chinese), so it agrees
with what the keyword route matched; without term statistics (a Milvus BM25) each term weighs 1.
Ties go to the earlier sentence, and a chunk holding no query term (a dense-only match) is cited
where it starts, as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from store.index_set import Snapshot
from workbench.chunking.headings import HeadingIndex
from workbench.chunking.preparation import page_at
from workbench.chunking.sentences import sentence_spans
from workbench.retrieval.trace import ChunkView

#: a document's canonical Markdown and its page starts (``WorkbenchFacade.markdown``)
MarkdownOf = Callable[[int], tuple[str, Sequence[int]]]


@dataclass(frozen=True)
class QueryTerms:
    """The query's terms with their weights, and the tokenizer that finds them in a text."""

    weights: Mapping[str, float]
    tokenize: Callable[[str], list[str]]

    def score(self, text: str) -> float:
        return sum(self.weights[token] for token in set(self.tokenize(text)) if token in self.weights)


def query_terms(query: str, snapshot: Snapshot) -> QueryTerms:
    """The query's terms as the snapshot's BM25 index makes them, each weighted by its idf."""
    tokenizer = snapshot.sparse.tokenizer
    tokens = set(tokenizer.tokenize(query))
    if snapshot.sparse.has_term_statistics:
        weights = {token: snapshot.sparse.term_idf(token) for token in tokens}
        # a term no chunk has cannot be what matched; a term every chunk has still says where
        weights = {token: weight for token, weight in weights.items() if weight > 0.0}
    else:
        weights = dict.fromkeys(tokens, 1.0)
    return QueryTerms(weights, tokenizer.tokenize)


@dataclass(frozen=True)
class MatchedPlace:
    """The section and page of a chunk's best-matching sentence, and that sentence's offsets in
    the document's Markdown. ``moved`` is True when they differ from the chunk's own (its start's)."""

    heading_path: tuple[str, ...]
    page: int | None
    start: int
    end: int
    moved: bool = False


def cuts_inside(headings: HeadingIndex, page_starts: Sequence[int], start: int, end: int) -> list[int]:
    """Offsets strictly inside ``(start, end)`` where a section or a page begins, in order."""
    pages = [offset for offset in page_starts if start < offset < end]
    return sorted({*headings.heading_offsets_between(start, end), *pages})


def matched_place(
    view: ChunkView,
    terms: QueryTerms,
    markdown: str,
    page_starts: Sequence[int],
    headings: HeadingIndex | None = None,
) -> MatchedPlace:
    """Where in ``view``'s chunk the query matches best (see the module's docstring).

    ``headings`` is ``HeadingIndex(markdown)`` when the caller has it (one per document)."""
    own = MatchedPlace(view.heading_path, view.page, view.start, view.end)
    if markdown[view.start : view.end] != view.text:
        return own  # the document changed since the chunk was made: its offsets say nothing
    headings = headings or HeadingIndex(markdown)
    cuts = cuts_inside(headings, page_starts, view.start, view.end)
    if not cuts or not terms.weights:
        return own
    best, best_score = None, 0.0
    for start, end in _pieces(view.text, [cut - view.start for cut in cuts]):
        score = terms.score(view.text[start:end])
        if score > best_score:
            best, best_score = (start, end), score
    if best is None:
        return own
    start, end = view.start + best[0], view.start + best[1]
    first_cut = max((cut for cut in cuts if cut <= start), default=None)
    if first_cut is None:  # the best sentence is in the part the chunk starts with
        return MatchedPlace(view.heading_path, view.page, start, end)
    page = page_at(list(page_starts), first_cut) if page_starts else view.page
    path = headings.path_at(first_cut)
    return MatchedPlace(path, page, start, end, moved=(path, page) != (view.heading_path, view.page))


def _pieces(text: str, cuts: list[int]) -> list[tuple[int, int]]:
    """The text's sentences, a sentence that runs across a cut (a page break mid-sentence) split there."""
    pieces = []
    for start, end in sentence_spans(text):
        inner = [cut for cut in cuts if start < cut < end]
        bounds = [start, *inner, end]
        pieces += [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if b > a]
    return pieces


# a heading line after the chunk's first line (a "# comment" in fenced code only costs a read)
_INNER_HEADING = re.compile(r"\n {0,3}#{1,6}[ \t]")


def may_cross(view: ChunkView) -> bool:
    """Whether the chunk may hold a section or page boundary: a heading line inside it, or a page
    (only paged documents have one). Other chunks are cited where they start without a read."""
    return view.page is not None or _INNER_HEADING.search(view.text) is not None


def matched_places(
    query: str, views: Sequence[ChunkView], snapshot: Snapshot, markdown_of: MarkdownOf
) -> dict[int, MatchedPlace]:
    """Chunk id -> its matched place, for each of ``views``; each document's Markdown is read once,
    and only for a chunk that ``may_cross`` a boundary."""
    terms = query_terms(query, snapshot)
    documents: dict[int, tuple[str, Sequence[int], HeadingIndex]] = {}
    places = {}
    for view in views:
        if not may_cross(view):
            places[view.chunk_id] = MatchedPlace(view.heading_path, view.page, view.start, view.end)
            continue
        if view.doc_id not in documents:
            markdown, page_starts = markdown_of(view.doc_id)
            documents[view.doc_id] = (markdown, page_starts, HeadingIndex(markdown))
        markdown, page_starts, headings = documents[view.doc_id]
        places[view.chunk_id] = matched_place(view, terms, markdown, page_starts, headings)
    return places
