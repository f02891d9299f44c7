"""The span-overlap rules that decide which chunks are relevant, independent of the chunking."""

from __future__ import annotations

from workbench.chunking.chunk import Chunk
from workbench.evaluation.golden import GoldenQuery, RelevantItem
from workbench.evaluation.relevance import (
    ChunkJudge,
    canonical_document_names,
    judgement_for_chunk,
    overlaps,
    quote_occurrences,
    relevant_chunks,
)
from workbench.retrieval.trace import ChunkView

MARKDOWN = "# Guide\n\nFirst sentence here. Second sentence follows.\nThird line ends it.\n"


def view(
    chunk_id: int,
    start: int,
    end: int,
    doc_id: int = 1,
    source: str = "guide.md",
    external_id: str | None = None,
    markdown: str = MARKDOWN,
) -> ChunkView:
    return ChunkView(chunk_id, doc_id, source, external_id, "md", "Guide", (), None, start, end, markdown[start:end])


def chunks_of(markdown: str, size: int, doc_id: int = 1, source: str = "guide.md", first_id: int = 1):
    """Fixed-size chunks without overlap (a stand-in for any chunking)."""
    views = []
    for number, start in enumerate(range(0, len(markdown), size)):
        end = min(start + size, len(markdown))
        assert Chunk(markdown[start:end], start, end).end - start == len(markdown[start:end])
        views.append(view(first_id + number, start, end, doc_id, source, markdown=markdown))
    return views


def query(*items: RelevantItem) -> GoldenQuery:
    return GoldenQuery("q", "question", tuple(items))


def test_half_open_intervals_overlap_only_when_they_share_a_character():
    assert overlaps(0, 10, 9, 20)
    assert not overlaps(0, 10, 10, 20)  # touching
    assert overlaps(5, 6, 0, 100)  # contained
    assert not overlaps(20, 30, 0, 10)


def test_span_item_marks_every_chunk_it_overlaps():
    start = MARKDOWN.index("Second")
    end = start + len("Second sentence follows.")
    chunks = [view(1, 0, start), view(2, start - 5, start + 3), view(3, start + 3, end), view(4, end, len(MARKDOWN))]
    grades = relevant_chunks(query(RelevantItem("guide.md", grade=2, start=start, end=end)), chunks)
    assert grades == {2: 2, 3: 2}  # chunk 1 ends where the span starts; chunk 4 starts where it ends


def test_quote_item_marks_chunks_containing_it_whatever_the_whitespace():
    chunks = [view(1, 0, 30), view(2, 30, len(MARKDOWN))]
    # chunk 2 holds "Second sentence follows.\nThird line" (a newline where the quote has a space)
    grades = relevant_chunks(query(RelevantItem("guide.md", quote="follows. Third  line")), chunks)
    assert grades == {2: 1}


def test_a_quote_longer_than_a_chunk_needs_the_documents_markdown():
    chunks = chunks_of(MARKDOWN, 12)
    quote = "First sentence here. Second sentence"
    assert relevant_chunks(query(RelevantItem("guide.md", quote=quote)), chunks) == {}
    start = MARKDOWN.index(quote)
    grades = relevant_chunks(query(RelevantItem("guide.md", quote=quote)), chunks, markdown={1: MARKDOWN}.get)
    expected = {c.chunk_id for c in chunks if overlaps(c.start, c.end, start, start + len(quote))}
    assert set(grades) == expected and len(expected) >= 3


def test_document_item_marks_the_whole_document_unless_the_query_has_spans_for_it():
    guide = chunks_of(MARKDOWN, 30)
    other_md = "# Other\n\nUnrelated text about tea.\n"
    other = chunks_of(other_md, 30, doc_id=2, source="other.md", first_id=10)
    span = (MARKDOWN.index("Third"), MARKDOWN.index("Third") + 5)
    q = query(
        RelevantItem("guide.md"), RelevantItem("guide", start=span[0], end=span[1], grade=2), RelevantItem("other.md")
    )
    grades = relevant_chunks(q, guide + other)
    # guide: only the chunk holding the span (its document item is superseded); other: all chunks
    assert grades == {
        **{c.chunk_id: 2 for c in guide if overlaps(c.start, c.end, *span)},
        **{c.chunk_id: 1 for c in other},
    }


def test_the_highest_grade_wins_and_grade_zero_marks_nothing():
    chunks = [view(1, 0, 20), view(2, 20, 40)]
    q = query(
        RelevantItem("guide.md", grade=1, start=0, end=25),
        RelevantItem("guide.md", grade=3, start=15, end=18),
        RelevantItem("guide.md", grade=0, start=30, end=35),
    )
    assert relevant_chunks(q, chunks) == {1: 3, 2: 1}


def test_documents_are_named_by_external_id_file_name_or_stem():
    chunk = view(1, 0, 10, source="3.md", external_id="14717500")
    for name in ("14717500", "3.md", "3"):
        assert relevant_chunks(query(RelevantItem(name)), [chunk]) == {1: 1}
    assert relevant_chunks(query(RelevantItem("3.pdf")), [chunk]) == {}


def test_canonical_names_prefer_external_ids_over_file_names():
    names = canonical_document_names([("a.md", None), ("b.md", "a"), ("c.pdf", None)])
    assert names == {"a.md": "a.md", "a": "a", "b.md": "a", "b": "a", "c.pdf": "c.pdf", "c": "c.pdf"}


def test_quote_occurrences_finds_every_one():
    assert quote_occurrences("ab ab  ab", "ab") == [(0, 2), (3, 5), (7, 9)]
    assert quote_occurrences("one\ntwo three", "one two") == [(0, 7)]


def test_judgements_survive_rechunking():
    """The same span judged over two chunkings: the relevant chunks change, the text they cover does not."""
    start = MARKDOWN.index("Second sentence")
    end = start + len("Second sentence follows.")
    q = query(RelevantItem("guide.md", start=start, end=end))
    for size in (7, 16, 40):
        chunks = chunks_of(MARKDOWN, size)
        judged = ChunkJudge(chunks).judge(q)
        covered = set()
        for chunk in chunks:
            if chunk.chunk_id in judged:
                covered.update(range(chunk.start, chunk.end))
        assert set(range(start, end)) <= covered
        # and nothing judged lies wholly outside the span
        assert all(overlaps(c.start, c.end, start, end) for c in chunks if c.chunk_id in judged)


def test_chunk_judge_reports_unknown_documents_and_counts_chunks():
    judge = ChunkJudge(chunks_of(MARKDOWN, 30), markdown={1: MARKDOWN}.get)
    q = query(RelevantItem("guide", quote="Third line"), RelevantItem("missing.md"))
    assert judge.unknown_documents(q) == ["missing.md"]
    assert judge.chunk_count == len(chunks_of(MARKDOWN, 30))
    assert list(judge.judge(q)) == [
        c.chunk_id
        for c in chunks_of(MARKDOWN, 30)
        if "Third line" in MARKDOWN[c.start : c.end]
        or overlaps(c.start, c.end, MARKDOWN.index("Third line"), MARKDOWN.index("Third line") + 10)
    ]


def test_a_chunk_marked_relevant_becomes_a_span_of_its_document():
    marked = view(7, 9, 30, source="guide.md", external_id="G1")
    item = judgement_for_chunk(marked, grade=2)
    assert item == RelevantItem("G1", grade=2, start=9, end=30)
    # on another chunking, the chunks covering those characters are the relevant ones
    assert relevant_chunks(
        query(item),
        [view(1, 0, 10, external_id="G1"), view(2, 10, 20, external_id="G1"), view(3, 30, 40, external_id="G1")],
    ) == {1: 2, 2: 2}
