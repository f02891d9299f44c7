"""The judging API: who may judge, undo, progress, and the export to a golden set."""

import pytest

from tests.workbench.golden.small_pool import ITEMS
from workbench.evaluation.golden import dumps, parse_text
from workbench.golden import judging
from workbench.golden.judging import JudgingError


def test_judge_names():
    assert judging.person_judge("  Ada   Lovelace ") == "Ada Lovelace"
    with pytest.raises(JudgingError, match="needs a name"):
        judging.person_judge("  ")
    with pytest.raises(JudgingError, match="contains '@'"):
        judging.person_judge("ada@home")
    # sha256("prompt v1")[:12], computed once by hand with sha256sum
    assert (
        judging.model_judge("gpt-x", "prompt v1")
        == "gpt-x@" + __import__("hashlib").sha256(b"prompt v1").hexdigest()[:12]
    )
    assert judging.model_judge("m", "a") != judging.model_judge("m", "b")


def test_record_progress_undo_and_resume(catalog):
    with pytest.raises(JudgingError, match="grade must be one of 0, 1, 2, 3"):
        judging.record(catalog, "p", ITEMS[0], 5, "ada")
    judging.record(catalog, "p", ITEMS[0], 3, "ada", reason="  says   so\n")
    judging.record(catalog, "p", ITEMS[1], 0, "ada")
    given = judging.judgements(catalog, "p", "ada")
    assert [(j.chunk_id, j.grade, j.reason) for j in given] == [(11, 3, "says so"), (12, 0, None)]
    assert judging.progress(ITEMS, given) == judging.Progress(judged=2, total=3, queries_done=1, queries=2)
    assert judging.next_unjudged(ITEMS, given) == ITEMS[2]
    undone = judging.undo_last(catalog, "p", "ada")
    assert undone.chunk_id == 12
    assert judging.next_unjudged(ITEMS, judging.judgements(catalog, "p", "ada")) == ITEMS[1]
    # what the Judging page reads ahead: the next chunks in the order they are shown
    assert judging.upcoming_unjudged(ITEMS, judging.judgements(catalog, "p", "ada"), 5) == [ITEMS[1], ITEMS[2]]
    assert judging.upcoming_unjudged(ITEMS, [], 2) == ITEMS[:2]


def test_export_keeps_spans_and_grade_zero_and_refuses_two_judges(catalog):
    judging.record_many(catalog, "p", [(ITEMS[0], 2, None), (ITEMS[1], 0, None), (ITEMS[2], 3, "是")], "ada")
    golden = judging.to_golden_set("mine", ITEMS, judging.judgements(catalog, "p", "ada"))
    parsed = parse_text(dumps(golden.queries))
    assert [(q.id, q.query) for q in parsed] == [("q1", "what is x"), ("q2", "什么是向量")]
    assert [(i.doc, i.start, i.end, i.grade) for i in parsed[0].relevant] == [("a.md", 0, 40, 2), ("b.md", 5, 90, 0)]
    assert parsed[1].relevant[0].doc == "中文.md"
    judging.record(catalog, "p", ITEMS[0], 1, "bob")
    with pytest.raises(JudgingError, match="2 judges graded this pool \\(ada, bob\\)"):
        judging.to_golden_set("mine", ITEMS, judging.judgements(catalog, "p"))
