"""The Retrieval lab's golden-set helpers; the judging rules themselves are tested with
``workbench.evaluation.relevance`` (tests/workbench/evaluation/test_eval_relevance.py)."""

from __future__ import annotations

import json

import pytest

from workbench.analysis.golden_matches import (
    DOCUMENT_LEVEL,
    SPAN_LEVEL,
    GoldenLookup,
    GoldenMatch,
    describe_item,
    find_golden_query,
    golden_query_key,
    judgement_for_hit,
    judgements_of_document,
    relevant_in_collection,
    relevant_in_run,
)
from workbench.evaluation import golden
from workbench.evaluation.golden import GoldenQuery, RelevantItem
from workbench.evaluation.relevance import ChunkJudge, overlaps
from workbench.evaluation.runner import chunk_views
from workbench.retrieval.trace import ChunkView


def _view(chunk_id: int, source: str, start: int, end: int, external_id=None) -> ChunkView:
    return ChunkView(chunk_id, 1, source, external_id, "md", "", (), None, start, end, "x" * (end - start))


@pytest.fixture(scope="module")
def lab_snapshot(lab_workbench):
    return lab_workbench.snapshot("lab", lab_workbench.config_for("lab"))


def _markdown_of(lab_workbench):
    return lambda doc_id: lab_workbench.markdown(doc_id)[0]


def _chunks_of(snapshot, source: str) -> dict[int, object]:
    return {cid: chunk for cid, chunk in snapshot.chunks.items() if snapshot.documents[chunk.doc_id].source == source}


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


def test_relevant_in_collection_and_in_a_run(lab_workbench, lab_snapshot):
    query = find_golden_query("install foo on linux", lab_workbench.home).match.query
    grades = relevant_in_collection(query, lab_snapshot, _markdown_of(lab_workbench))
    # install.md is a quote item (grade 2): only the chunk holding "apt-get install foo" counts;
    # faq.md is a document-level item (grade 1): every one of its chunks counts
    install, faq = _chunks_of(lab_snapshot, "install.md"), _chunks_of(lab_snapshot, "faq.md")
    quoted = [cid for cid, chunk in install.items() if "apt-get install foo" in chunk.text]
    assert len(install) >= 2 and len(faq) >= 2 and len(quoted) == 1  # the fixture splits documents
    assert grades == {quoted[0]: 2, **{cid: 1 for cid in faq}}

    trace = lab_workbench.query("install foo on linux", "lab", lab_workbench.config_for("lab"))
    in_run = relevant_in_run(grades, trace.chunks)
    assert in_run == {cid: g for cid, g in grades.items() if cid in trace.chunks}
    assert in_run  # the query does retrieve relevant chunks
    assert relevant_in_run(grades, {}) == {}


def test_the_lab_judges_exactly_as_evaluation_does(lab_workbench, lab_snapshot):
    """The rules the lab once had on its own differed here: a file stem names a document, a
    quote matches across whitespace, spans supersede the same document's document item, and a
    catalog id is not a name."""
    faq = _chunks_of(lab_snapshot, "faq.md")
    cold = [cid for cid, chunk in faq.items() if "cache is cold" in chunk.text]
    assert len(cold) == 1 and len(faq) >= 2
    faq_doc_id = next(iter(faq.values())).doc_id
    queries = {
        "stem + spaced quote + rule 4": (
            GoldenQuery("a", "t", (RelevantItem("faq"), RelevantItem("faq.md", grade=3, quote="cache  is\ncold"))),
            {cold[0]: 3},
        ),
        "catalog id": (GoldenQuery("b", "t", (RelevantItem(str(faq_doc_id)),)), {}),
        "document by stem": (GoldenQuery("c", "t", (RelevantItem("faq"),)), {cid: 1 for cid in faq}),
    }
    judge = ChunkJudge(chunk_views(lab_snapshot), _markdown_of(lab_workbench))
    for name, (query, expected) in queries.items():
        lab = relevant_in_collection(query, lab_snapshot, _markdown_of(lab_workbench))
        assert lab == expected, name
        assert lab == judge.judge(query), name  # the same answer as judging every chunk


def test_a_hit_is_judged_by_its_span_or_its_whole_document():
    chunk = _view(7, "guide.md", 40, 90, external_id="G1")
    assert judgement_for_hit(chunk, SPAN_LEVEL, 2) == RelevantItem("G1", grade=2, start=40, end=90)
    assert judgement_for_hit(chunk, DOCUMENT_LEVEL) == RelevantItem("G1")
    assert judgement_for_hit(_view(8, "notes.md", 0, 5), DOCUMENT_LEVEL) == RelevantItem("notes.md")
    with pytest.raises(ValueError, match="unknown judgement level 'page'; use one of document, span"):
        judgement_for_hit(chunk, "page")


def test_the_query_is_found_by_id_in_its_own_set_and_by_text_elsewhere():
    lookup = GoldenLookup(GoldenMatch("demo", GoldenQuery("scifact-148", "Autophagy declines", ())))
    assert golden_query_key("demo", lookup, " Autophagy declines ") == "scifact-148"
    assert golden_query_key("mine", lookup, " Autophagy declines ") == "Autophagy declines"
    assert golden_query_key("demo", GoldenLookup(None), "q1 text") == "q1 text"


def test_judgements_of_a_document_and_their_descriptions():
    query = GoldenQuery(
        "q",
        "t",
        (
            RelevantItem("guide"),
            RelevantItem("guide.md", grade=2, start=3, end=9),
            RelevantItem("other.md", quote="tea"),
        ),
    )
    recorded = judgements_of_document(query, _view(1, "guide.md", 0, 20))
    assert recorded == query.relevant[:2]  # named by stem and by file name; other.md is not this document
    assert [describe_item(item) for item in query.relevant] == [
        "guide: the whole document (grade 1)",
        "guide.md: characters 3–9 (grade 2)",
        "other.md: the quote “tea” (grade 1)",
    ]


def test_marking_a_hit_makes_exactly_its_characters_relevant(tmp_path, lab_workbench, lab_snapshot):
    """The lab's "mark relevant" round trip: the span written for a hit judges that hit relevant."""
    usage = _chunks_of(lab_snapshot, "usage.md")
    chunk_id = min(usage)
    hit = next(view for view in chunk_views(lab_snapshot) if view.chunk_id == chunk_id)
    path = golden.path_for("mine", tmp_path)
    assert path == tmp_path / "golden_sets" / "mine.jsonl"
    golden.mark_relevant(
        path, golden_query_key("mine", GoldenLookup(None), "foo config"), judgement_for_hit(hit, SPAN_LEVEL)
    )
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "id": "q1",
        "query": "foo config",
        "relevant": [{"doc": "usage.md", "start": hit.start, "end": hit.end}],
    }

    lookup = find_golden_query("foo config", tmp_path, prefer="mine")
    grades = relevant_in_collection(lookup.match.query, lab_snapshot)
    assert grades.get(chunk_id) == 1
    # any other chunk marked shares characters with the hit (overlapping chunking), none is elsewhere
    assert all(
        overlaps(lab_snapshot.chunks[cid].start, lab_snapshot.chunks[cid].end, hit.start, hit.end) and cid in usage
        for cid in grades
    )

    golden.unmark_relevant(path, golden_query_key("mine", lookup, "foo config"), judgement_for_hit(hit, SPAN_LEVEL))
    assert relevant_in_collection(find_golden_query("foo config", tmp_path).match.query, lab_snapshot) == {}
