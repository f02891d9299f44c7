"""Pools and judgements in the catalog: one transaction each, re-grading replaces, undo removes."""

import pytest

from store.catalog import Catalog
from store.judgements import (
    Judgement,
    PoolItem,
    PoolRow,
    delete_judgement,
    judgements_of,
    list_pools,
    load_pool,
    record_judgement,
    save_pool,
)
from store.repository import NotFoundError

ITEMS = [
    PoolItem(0, "q1", "what is x", 0, 11, "a.md", 0, 40),
    PoolItem(0, "q1", "what is x", 1, 12, "b.md", 5, 90),
    PoolItem(1, "q2", "什么是向量", 0, 13, "中文.md", 0, 30),
]


def _judgement(item: PoolItem, grade: int, judge: str = "ada") -> Judgement:
    return Judgement("p", item.query_id, item.query, item.chunk_id, item.document, item.start, item.end, grade, judge)


def test_a_pool_round_trips_and_a_second_save_needs_replace(tmp_path):
    catalog = Catalog(tmp_path / "catalog.duckdb")
    row = save_pool(catalog, PoolRow("p", "c", "qs", [{"name": "default"}], 10, 7), ITEMS)
    assert (row.name, row.depth, row.seed, row.configs) == ("p", 10, 7, [{"name": "default"}])
    loaded, items = load_pool(catalog, "p")
    assert items == ITEMS and loaded.collection == "c"
    with pytest.raises(ValueError, match="pool 'p' exists already"):
        save_pool(catalog, PoolRow("p", "c", "qs", [], 10, 7), ITEMS[:1])
    record_judgement(catalog, _judgement(ITEMS[0], 2))
    save_pool(catalog, PoolRow("p", "c", "qs", [], 5, 7), ITEMS[:1], replace=True)
    assert load_pool(catalog, "p")[1] == ITEMS[:1]
    assert [j.grade for j in judgements_of(catalog, "p")] == [2]  # judgements outlive a re-pool
    with pytest.raises(NotFoundError, match="pool 'nope' not found; known: p"):
        load_pool(catalog, "nope")


def test_regrading_replaces_and_delete_undoes(tmp_path):
    catalog = Catalog(tmp_path / "catalog.duckdb")
    save_pool(catalog, PoolRow("p", "c", "qs", [], 10, 7), ITEMS)
    record_judgement(catalog, _judgement(ITEMS[0], 1))
    stored = record_judgement(catalog, _judgement(ITEMS[0], 3))
    record_judgement(catalog, _judgement(ITEMS[2], 0, judge="gpt@abc"))
    assert stored.grade == 3 and stored.judged_at is not None
    assert [(j.chunk_id, j.grade) for j in judgements_of(catalog, "p", "ada")] == [(11, 3)]
    assert {j.judge for j in judgements_of(catalog, "p")} == {"ada", "gpt@abc"}
    assert list_pools(catalog)[0][1:] == (3, 2)
    assert delete_judgement(catalog, "p", "q1", 11, "ada") is True
    assert delete_judgement(catalog, "p", "q1", 11, "ada") is False
    assert [j.query for j in judgements_of(catalog, "p")] == ["什么是向量"]


def test_a_grade_outside_0_to_3_is_refused_by_the_schema(tmp_path):
    catalog = Catalog(tmp_path / "catalog.duckdb")
    save_pool(catalog, PoolRow("p", "c", "qs", [], 10, 7), ITEMS)
    with pytest.raises(Exception, match="(?i)check"):
        record_judgement(catalog, _judgement(ITEMS[0], 4))
    assert judgements_of(catalog, "p") == []
