"""A pool of three chunks over two queries (one Chinese) in a fresh catalog, for the judging tests:
``ITEMS`` here, the ``catalog`` fixture through this folder's conftest."""

import pytest

from store.catalog import Catalog
from store.judgements import PoolItem, PoolRow, save_pool

ITEMS = [
    PoolItem(0, "q1", "what is x", 0, 11, "a.md", 0, 40),
    PoolItem(0, "q1", "what is x", 1, 12, "b.md", 5, 90),
    PoolItem(1, "q2", "什么是向量", 0, 13, "中文.md", 0, 30),
]


@pytest.fixture()
def catalog(tmp_path):
    """A catalog holding pool "p" of ``ITEMS``."""
    catalog = Catalog(tmp_path / "catalog.duckdb")
    save_pool(catalog, PoolRow("p", "c", "qs", [], 10, 7), ITEMS)
    return catalog
