"""Query sets from text, CSV and JSONL files (English and Chinese), and from a typed list."""

import pytest

from workbench.golden import query_sets
from workbench.golden.query_sets import QuerySetError


def test_text_csv_and_jsonl_give_the_same_questions(tmp_path):
    (tmp_path / "a.txt").write_text("what is x\n\n  绿茶用多少度的水  \nwhat is   x\n", encoding="utf-8")
    (tmp_path / "b.csv").write_text("id,question\nk1,what is x\nk2,绿茶用多少度的水\n", encoding="utf-8-sig")
    (tmp_path / "c.jsonl").write_text(
        '{"id": "k1", "query": "what is x", "relevant": []}\n{"query": "绿茶用多少度的水"}\n', encoding="utf-8"
    )
    (tmp_path / "d.csv").write_text("what is x\n绿茶用多少度的水\n", encoding="utf-8")
    texts = ["what is x", "绿茶用多少度的水"]
    for name in ("a.txt", "b.csv", "c.jsonl", "d.csv"):
        assert [q.query for q in query_sets.load(tmp_path / name).questions] == texts, name
    assert [q.id for q in query_sets.load(tmp_path / "b.csv").questions] == ["k1", "k2"]
    assert [q.id for q in query_sets.load(tmp_path / "c.jsonl").questions] == ["k1", "q2"]


def test_bad_files_name_the_problem(tmp_path):
    (tmp_path / "bad.jsonl").write_text('{"query": "ok"}\n{"question": "no"}\n', encoding="utf-8")
    with pytest.raises(QuerySetError, match=r"bad:2: expected an object with a \"query\" string"):
        query_sets.load(tmp_path / "bad.jsonl")
    (tmp_path / "empty.txt").write_text("\n \n", encoding="utf-8")
    with pytest.raises(QuerySetError, match="empty: no questions"):
        query_sets.load(tmp_path / "empty.txt")
    with pytest.raises(QuerySetError, match="unknown query set format '.xlsx'"):
        query_sets.parse("", "x", ".xlsx")
    with pytest.raises(QuerySetError, match="id 'a' is used twice"):
        query_sets.from_texts("t", ["one", "two"], ["a", "a"])
    with pytest.raises(QuerySetError, match="query set 'nope' not found"):
        query_sets.find("nope", tmp_path)


def test_a_typed_list_is_saved_and_found_by_name(tmp_path):
    made = query_sets.from_texts("typed", ["first question", "第二个问题", ""])
    path = query_sets.save(made, tmp_path)
    assert path == tmp_path / "query_sets" / "typed.jsonl"
    assert query_sets.find("typed", tmp_path) == made
    assert query_sets.available(tmp_path) == ["typed"]
