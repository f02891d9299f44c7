"""Seeded splits of golden queries into tuning and held-out parts."""

from __future__ import annotations

import pytest

from workbench.evaluation.golden import GoldenQuery, GoldenSet, RelevantItem
from workbench.tuning.split import all_queries, fold_splits, holdout_split


def golden(count: int, no_answer: int = 0) -> GoldenSet:
    queries = [GoldenQuery(f"q{n}", f"query {n}", (RelevantItem(f"d{n}.md"),)) for n in range(count)]
    queries += [GoldenQuery(f"none{n}", f"unanswerable {n}", ()) for n in range(no_answer)]
    return GoldenSet("g", tuple(queries))


def test_holdout_is_disjoint_covering_and_sized():
    split = holdout_split(golden(24), 0.3, seed=1)
    assert len(split.held_out.queries) == 7 and len(split.tuning.queries) == 17  # round(0.3 * 24)
    assert not split.tuning_ids & split.held_out_ids
    assert split.tuning_ids | split.held_out_ids == {f"q{n}" for n in range(24)}


def test_holdout_is_repeatable_and_depends_on_the_seed():
    assert holdout_split(golden(50), seed=4).held_out_ids == holdout_split(golden(50), seed=4).held_out_ids
    assert holdout_split(golden(50), seed=4).held_out_ids != holdout_split(golden(50), seed=5).held_out_ids


def test_queries_a_metric_cannot_score_are_left_out():
    split = holdout_split(golden(10, no_answer=3), 0.3)
    assert all(not q.startswith("none") for q in split.tuning_ids | split.held_out_ids)
    assert len(all_queries(golden(10, no_answer=3)).queries) == 10


def test_folds_hold_out_every_query_once():
    splits = fold_splits(golden(23), 5, seed=2)
    held = [split.held_out_ids for split in splits]
    assert sorted(map(len, held)) == [4, 4, 5, 5, 5]  # 23 queries dealt into 5 folds
    assert set().union(*held) == {f"q{n}" for n in range(23)} and sum(map(len, held)) == 23
    for split in splits:
        assert not split.tuning_ids & split.held_out_ids
        assert len(split.tuning_ids) + len(split.held_out_ids) == 23
    assert [split.label for split in splits][1] == "fold 2 of 5"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: holdout_split(golden(10), 1.0), "between 0 and 1"),
        (lambda: holdout_split(golden(1), 0.3), "at least 2"),
        (lambda: fold_splits(golden(10), 1), "--folds must be 2 to 20"),
        (lambda: fold_splits(golden(3), 5), "fewer than --folds 5"),
    ],
)
def test_impossible_splits_say_why(call, message):
    with pytest.raises(ValueError, match=message):
        call()
