"""Writes on a thread of their own: in the order given, waited for by ``settle``, a failure told
to whoever submitted it and to no one else, one queue per catalog file."""

import threading

import pytest

from store.background_writes import background_writes
from store.catalog import Catalog


@pytest.fixture()
def catalog(tmp_path):
    catalog = Catalog(tmp_path / "catalog.duckdb")
    with catalog.connect() as con:
        con.execute("CREATE TABLE seen (n INTEGER)")
    return catalog


def _insert(n: int):
    def apply(catalog: Catalog) -> None:
        with catalog.connect() as con:
            con.execute("INSERT INTO seen VALUES (?)", [n])

    return apply


def _seen(catalog: Catalog) -> list[int]:
    with catalog.connect() as con:
        return [row[0] for row in con.execute("SELECT n FROM seen").fetchall()]


def test_writes_are_applied_in_order_and_settle_waits_for_them(catalog):
    writes = background_writes(catalog)
    opened = threading.Event()
    writes.submit(lambda _: opened.wait(10), "a write that waits")  # holds the queue until released
    for n in range(20):
        writes.submit(_insert(n), f"row {n}")
    assert _seen(catalog) == []  # queued behind the waiting write, not applied on the caller's thread
    opened.set()
    writes.settle()
    assert _seen(catalog) == list(range(20))


def test_a_failure_is_told_to_its_owner_only_and_the_queue_goes_on(catalog):
    writes = background_writes(catalog)
    mine, theirs = object(), object()

    def fail(_: Catalog) -> None:
        raise LookupError("pool 'p' not found; known: q")

    writes.submit(fail, "grade 2 of chunk 7", owner=mine)
    writes.submit(_insert(1), "row 1", owner=theirs)
    writes.settle()
    assert writes.failures(theirs) == []
    assert writes.failures(mine) == ["grade 2 of chunk 7 was not stored: pool 'p' not found; known: q"]
    assert writes.failures(mine) == []  # told once
    assert _seen(catalog) == [1]


def test_every_handle_on_one_file_shares_its_queue(catalog, tmp_path):
    assert background_writes(Catalog(catalog.path)) is background_writes(catalog)
    assert background_writes(Catalog(tmp_path / "other.duckdb")) is not background_writes(catalog)
