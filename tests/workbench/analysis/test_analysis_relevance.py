from __future__ import annotations

import json

import pytest

from workbench.analysis.relevance import (
    chunk_grade,
    find_golden_query,
    item_matches_chunk,
    relevant_chunks,
    relevant_chunks_in_snapshot,
)
from workbench.evaluation.golden import GoldenQuery, RelevantItem
from workbench.trace import ChunkView


def _view(chunk_id: int, doc_id: int, source: str, start: int, end: int, text: str, external_id=None) -> ChunkView:
    return ChunkView(chunk_id, doc_id, source, external_id, "md", "", (), None, start, end, text)


KEYS = {"7", "guide.md", "ext-guide"}


def test_document_level_item_marks_every_chunk_of_its_document():
    item = RelevantItem(doc="guide.md")
    assert item_matches_chunk(item, KEYS, 0, 10, "anything")
    assert not item_matches_chunk(item, {"8", "other.md"}, 0, 10, "anything")


@pytest.mark.parametrize("doc", ["7", "guide.md", "ext-guide"])
def test_documents_are_named_by_id_file_name_or_external_id(doc):
    assert item_matches_chunk(RelevantItem(doc=doc), KEYS, 0, 1, "x")


@pytest.mark.parametrize(
    ("chunk_start", "chunk_end", "expected"),
    [(0, 10, False), (0, 11, True), (15, 25, True), (19, 30, True), (20, 30, False), (12, 18, True)],
)
def test_span_item_marks_chunks_overlapping_its_half_open_range(chunk_start, chunk_end, expected):
    item = RelevantItem(doc="guide.md", start=10, end=20)
    assert item_matches_chunk(item, KEYS, chunk_start, chunk_end, "text") is expected


def test_quote_item_marks_chunks_containing_the_quote():
    item = RelevantItem(doc="guide.md", quote="apt-get install")
    assert item_matches_chunk(item, KEYS, 500, 600, "run apt-get install foo")
    assert not item_matches_chunk(item, KEYS, 500, 600, "run apt install foo")


def test_grade_is_the_highest_matching_item():
    items = (RelevantItem("guide.md", grade=1), RelevantItem("guide.md", grade=3, quote="foo"))
    query = GoldenQuery("q", "text", items)
    assert chunk_grade(query, KEYS, 0, 5, "foo bar") == 3
    assert chunk_grade(query, KEYS, 0, 5, "bar") == 1
    assert chunk_grade(query, {"9"}, 0, 5, "foo") == 0


def test_relevant_chunks_of_a_trace():
    query = GoldenQuery("q", "t", (RelevantItem("a.md", start=0, end=5), RelevantItem("ext-b")))
    views = [
        _view(1, 1, "a.md", 0, 4, "abcd"),
        _view(2, 1, "a.md", 5, 9, "efgh"),
        _view(3, 2, "b.md", 0, 4, "ijkl", external_id="ext-b"),
        _view(4, 3, "c.md", 0, 4, "mnop"),
    ]
    assert relevant_chunks(query, views) == {1: 1, 3: 1}


def test_find_golden_query_matches_stripped_text_and_prefers_the_named_set(tmp_path):
    folder = tmp_path / "golden_sets"
    folder.mkdir()
    line = {"id": "q1", "query": "  Install foo ", "relevant": [{"doc": "a.md"}]}
    (folder / "alpha.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    (folder / "beta.jsonl").write_text(json.dumps({**line, "id": "b1"}) + "\n", encoding="utf-8")
    (folder / "broken.jsonl").write_text("{not json\n", encoding="utf-8")

    lookup = find_golden_query("Install foo", tmp_path)
    assert (lookup.match.set_name, lookup.match.query.id) == ("alpha", "q1")
    assert find_golden_query("Install foo\n", tmp_path, prefer="beta").match.set_name == "beta"
    assert find_golden_query("install foo", tmp_path).match is None  # exact text, case included
    assert find_golden_query("   ", tmp_path).match is None
    missing = find_golden_query("nothing like it", tmp_path)
    assert missing.match is None
    assert len(missing.problems) == 1 and "broken.jsonl:1" in missing.problems[0]


def test_relevant_chunks_over_the_whole_snapshot(lab_workbench):
    config = lab_workbench.config_for("lab")
    snapshot = lab_workbench.snapshot("lab", config)
    query = find_golden_query("install foo on linux", lab_workbench.home).match.query
    grades = relevant_chunks_in_snapshot(query, snapshot)
    # install.md is a quote item (grade 2): only the chunk holding "apt-get install foo" counts;
    # faq.md is a document-level item (grade 1): every one of its chunks counts
    source_of = {cid: snapshot.documents[chunk.doc_id].source for cid, chunk in snapshot.chunks.items()}
    install = [cid for cid, source in source_of.items() if source == "install.md"]
    faq = [cid for cid, source in source_of.items() if source == "faq.md"]
    quoted = [cid for cid in install if "apt-get install foo" in snapshot.chunks[cid].text]
    assert len(install) >= 2 and len(faq) >= 2 and len(quoted) == 1  # the fixture splits documents
    assert grades == {quoted[0]: 2, **{cid: 1 for cid in faq}}
    trace = lab_workbench.query("install foo on linux", "lab", config)
    in_trace = relevant_chunks(query, trace.chunks.values())
    assert in_trace == {cid: g for cid, g in grades.items() if cid in trace.chunks}
    assert in_trace  # the query does retrieve relevant chunks
