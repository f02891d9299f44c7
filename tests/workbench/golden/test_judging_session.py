"""A judge's session: grades in memory at once, in the catalog once settled, undo by chunk, a
new session sees every grade given before it, and a grade that cannot be stored is said and
comes back to be graded."""

import pytest

from store.judgements import PoolRow, save_pool
from tests.workbench.golden.small_pool import ITEMS
from workbench.golden import judging
from workbench.golden.judging import JudgingError
from workbench.golden.judging_session import JudgingSession, settle_grades


def _stored(catalog, judge="ada"):
    settle_grades(catalog)
    return [(j.chunk_id, j.grade) for j in judging.judgements(catalog, "p", judge)]


def test_grades_show_at_once_and_are_stored_in_order(catalog):
    session = JudgingSession.load(catalog, "p", "ada")
    assert session.upcoming(5) == ITEMS
    session.grade(ITEMS[0], 3)
    session.grade(ITEMS[1], 0)
    assert session.upcoming(5) == [ITEMS[2]]
    assert session.progress() == judging.Progress(judged=2, total=3, queries_done=1, queries=2)
    assert _stored(catalog) == [(11, 3), (12, 0)]
    with pytest.raises(JudgingError, match="grade must be one of 0, 1, 2, 3"):
        session.grade(ITEMS[2], 4)
    assert session.upcoming(5) == [ITEMS[2]]  # a refused grade changes nothing


def test_undo_takes_back_the_last_grade_in_memory_and_in_the_catalog(catalog):
    session = JudgingSession.load(catalog, "p", "ada")
    session.grade(ITEMS[0], 3)
    session.grade(ITEMS[1], 1)
    assert session.undo().chunk_id == 12
    assert session.upcoming(1) == [ITEMS[1]]
    session.grade(ITEMS[1], 2)  # graded again after the undo
    assert _stored(catalog) == [(11, 3), (12, 2)]
    session.undo(), session.undo()
    assert session.undo() is None
    assert _stored(catalog) == []


def test_a_new_session_sees_every_grade_its_judge_gave_before_it_and_no_other_judges(catalog):
    judging.record(catalog, "p", ITEMS[2], 2, "bob")
    first = JudgingSession.load(catalog, "p", "ada")
    assert first.upcoming(5) == list(ITEMS)  # bob's grade of chunk 13 is not ada's
    first.grade(ITEMS[0], 1)
    first.grade(ITEMS[2], 0)
    resumed = JudgingSession.load(catalog, "p", "ada")  # no settle by the caller: load waits
    assert [(j.chunk_id, j.grade) for j in resumed.mine] == [(11, 1), (13, 0)]
    assert resumed.upcoming(5) == [ITEMS[1]]
    bob = JudgingSession.load(catalog, "p", "bob")
    assert [(j.chunk_id, j.grade) for j in bob.mine] == [(13, 2)]
    assert bob.upcoming(5) == [ITEMS[0], ITEMS[1]]


def test_a_grade_that_cannot_be_stored_is_said_and_comes_back(catalog):
    session = JudgingSession.load(catalog, "p", "ada")
    session.grade(ITEMS[0], 3)
    settle_grades(catalog)
    with catalog.connect() as con:  # the pool is deleted under the judge (by the CLI, say)
        con.execute("DELETE FROM pools WHERE name = 'p'")
    session.grade(ITEMS[1], 2)
    settle_grades(catalog)
    assert session.failures() == [
        "grade 2 of chunk 12 (query 'q1', pool 'p') was not stored: pool 'p' not found; "
        "known: none yet (build one with: python -m workbench golden pool)"
    ]
    save_pool(catalog, PoolRow("p", "c", "qs", [], 10, 7), ITEMS)  # and built again
    assert JudgingSession.load(catalog, "p", "ada").upcoming(1) == [ITEMS[1]]
