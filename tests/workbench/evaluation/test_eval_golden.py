"""Golden-set files: parsing (with errors that name the line), round trips, and mark-relevant edits."""

from __future__ import annotations

import json

import pytest

from workbench.evaluation import golden as g
from workbench.evaluation.golden import GoldenSetError, RelevantItem


def write(tmp_path, *lines: str, name: str = "set.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


GOOD = json.dumps(
    {
        "id": "q1",
        "query": "what is bm25",
        "answer": "a ranking function",
        "relevant": ["guide.md", {"doc": "guide.md", "start": 10, "end": 20, "quote": "x", "grade": 2}],
    }
)


def test_a_good_file_parses_into_typed_items(tmp_path):
    golden = g.load(write(tmp_path, GOOD, "", json.dumps({"id": 7, "query": "q", "relevant": []})))
    assert golden.name == "set"
    first, second = golden.queries
    assert first.answer == "a ranking function"
    assert first.relevant == (RelevantItem("guide.md"), RelevantItem("guide.md", 2, 10, 20, "x"))
    assert first.has_spans and not second.has_spans
    assert second.id == "7"
    assert first.doc_grades() == {"guide.md": 2}


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"id": "q1", "query": "x", "relevant": [}', r"set.jsonl:2: not valid JSON"),
        ('["q1"]', r"set.jsonl:2: expected a JSON object"),
        ('{"id": "q2", "relevant": []}', r"set.jsonl:2: missing 'query'"),
        ('{"id": "q2", "query": " ", "relevant": []}', r"set.jsonl:2: 'query' must be a non-empty string"),
        ('{"id": "q2", "query": "x", "relevant": "a.md"}', r"set.jsonl:2: 'relevant' must be a list"),
        ('{"id": "q2", "query": "x", "relevant": [], "relevent": []}', r"set.jsonl:2: unknown key 'relevent'"),
        ('{"id": "q1", "query": "x", "relevant": []}', r"set.jsonl:2: query id 'q1' already used on line 1"),
        ('{"id": true, "query": "x", "relevant": []}', r"set.jsonl:2: 'id' must be"),
        (
            '{"id": "q2", "query": "x", "relevant": [{"doc": "a", "grade": -1}]}',
            r"set.jsonl:2, relevant item 1: 'grade' must be a non-negative integer",
        ),
        (
            '{"id": "q2", "query": "x", "relevant": [{"doc": "a"}, {"doc": "a", "start": 5}]}',
            r"set.jsonl:2, relevant item 2: give both 'start' and 'end'",
        ),
        (
            '{"id": "q2", "query": "x", "relevant": [{"doc": "a", "start": 9, "end": 9}]}',
            r"set.jsonl:2, relevant item 1: need integers 0 <= start < end",
        ),
        (
            '{"id": "q2", "query": "x", "relevant": [{"doc": "a", "quote": ""}]}',
            r"set.jsonl:2, relevant item 1: 'quote' must be a non-empty string",
        ),
        (
            '{"id": "q2", "query": "x", "relevant": [{"document": "a"}]}',
            r"set.jsonl:2, relevant item 1: expected an object with a 'doc' key",
        ),
        (
            '{"id": "q2", "query": "x", "relevant": [{"doc": "a", "span": [1, 2]}]}',
            r"set.jsonl:2, relevant item 1: unknown key 'span'",
        ),
    ],
)
def test_errors_name_the_file_line_and_item(tmp_path, line, message):
    path = write(tmp_path, json.dumps({"id": "q1", "query": "fine", "relevant": ["a.md"]}), line)
    with pytest.raises(GoldenSetError, match=message):
        g.load(path)


def test_missing_and_empty_files(tmp_path):
    with pytest.raises(GoldenSetError, match="does not exist"):
        g.load(tmp_path / "nope.jsonl")
    with pytest.raises(GoldenSetError, match="empty.jsonl: no queries"):
        g.load(write(tmp_path, "", name="empty.jsonl"))


def test_save_and_load_round_trip(tmp_path):
    original = g.load(write(tmp_path, GOOD))
    copy = g.load(g.save(original, tmp_path / "copy" / "again.jsonl"))
    assert copy.queries == original.queries


def test_find_by_name_or_path_and_list_available(tmp_path):
    home = tmp_path / "home"
    (home / "golden_sets").mkdir(parents=True)
    write(home / "golden_sets", GOOD, name="mine.jsonl")
    assert "mine" in g.available(home)
    assert g.find("mine", home).queries[0].id == "q1"
    assert g.find(str(home / "golden_sets" / "mine.jsonl"), home).name == "mine"
    with pytest.raises(GoldenSetError, match="golden set 'other' not found; known: .*mine"):
        g.find("other", home)
    assert g.path_for("fresh", home) == home / "golden_sets" / "fresh.jsonl"
    with pytest.raises(GoldenSetError, match="not valid"):
        g.path_for("../escape", home)


def test_mark_relevant_creates_the_file_and_a_query(tmp_path):
    path = tmp_path / "golden_sets" / "new.jsonl"
    query = g.mark_relevant(path, "how to install zebra", {"doc": "alpha.md", "quote": "Install the zebra"})
    assert query.id == "q1" and query.query == "how to install zebra"
    assert g.load(path).queries == (query,)
    assert query.relevant == (RelevantItem("alpha.md", quote="Install the zebra"),)


def test_mark_relevant_finds_by_id_or_text_and_updates_the_grade(tmp_path):
    path = write(tmp_path, GOOD)
    g.mark_relevant(path, "q1", RelevantItem("other.md"))
    g.mark_relevant(path, "  what is bm25 ", RelevantItem("guide.md", grade=3))  # same target: regraded
    (query,) = g.load(path).queries
    assert [item.to_dict() for item in query.relevant] == [
        {"doc": "guide.md", "start": 10, "end": 20, "quote": "x", "grade": 2},
        {"doc": "other.md"},
        {"doc": "guide.md", "grade": 3},
    ]
    assert query.answer == "a ranking function"  # untouched


def test_grade_zero_and_unmark_remove_a_judgement(tmp_path):
    path = write(tmp_path, GOOD)
    g.mark_relevant(path, "q1", {"doc": "guide.md", "grade": 0})
    assert [i.is_span for i in g.load(path).queries[0].relevant] == [True]
    g.unmark_relevant(path, "q1", RelevantItem("guide.md", start=10, end=20, quote="x"))
    assert g.load(path).queries[0].relevant == ()
    assert g.unmark_relevant(path, "unknown query", RelevantItem("a")) is None


def test_mark_relevant_validates_the_item_and_the_query(tmp_path):
    path = tmp_path / "x.jsonl"
    with pytest.raises(GoldenSetError, match="'grade' must be a non-negative integer"):
        g.mark_relevant(path, "q", {"doc": "a", "grade": "high"})
    with pytest.raises(GoldenSetError, match="empty query"):
        g.mark_relevant(path, "  ", "a.md")
    assert not path.exists()


def test_a_new_query_id_skips_ids_in_use(tmp_path):
    path = write(tmp_path, json.dumps({"id": "q2", "query": "taken", "relevant": []}))
    assert g.mark_relevant(path, "brand new", "a.md").id == "q3"
