"""The chunk store: a snapshot's chunk table on disk, read a chunk at a time."""

from __future__ import annotations

import numpy as np
import pytest

from store.chunk_store import ChunkRecord, ChunkStore, write_chunk_store
from store.id_set import IdSet, RowLookup
from store.retrieval_index import IndexFormatError

ROWS = [
    # chunk_id, doc_id, ordinal, start, end, text, indexed_text, heading_path, page, token_count, over
    (
        42,
        7,
        1,
        120,
        180,
        "检索增强生成（RAG）先检索，再生成。",
        "# 概述\n\n检索增强生成（RAG）先检索，再生成。",
        ["概述", "RAG 流程"],
        3,
        17,
        False,
    ),
    (
        5,
        7,
        0,
        0,
        120,
        "Solar panels turn light into current.",
        "Solar panels turn light into current.",
        [],
        None,
        None,
        True,
    ),
    (900, 8, 0, 0, 0, "", "", None, 0, 0, False),
]
COLUMNS = [
    "chunk_id",
    "doc_id",
    "ordinal",
    "start",
    "end",
    "text",
    "indexed_text",
    "heading_path",
    "page",
    "token_count",
    "over_max_length",
]


def expected(row) -> ChunkRecord:
    return ChunkRecord(*row[:7], tuple(row[7] or ()), *row[8:])


@pytest.fixture
def store(tmp_path) -> ChunkStore:
    write_chunk_store(tmp_path / "chunks", {name: [row[i] for row in ROWS] for i, name in enumerate(COLUMNS)})
    return ChunkStore(tmp_path / "chunks")


def test_the_store_reads_back_every_record_as_written(store):
    assert len(store) == 3 and list(store) == [5, 42, 900]  # chunk id order
    for row in ROWS:
        assert store[row[0]] == expected(row)
    chinese = store[42]
    assert chinese.text.encode("utf-8") == ROWS[0][5].encode("utf-8")
    assert chinese.heading_path == ("概述", "RAG 流程") and chinese.indexed_text.startswith("# 概述")


def test_the_store_behaves_as_a_read_only_mapping(store):
    assert 42 in store and 43 not in store and "42" not in store and 42.0 not in store
    assert store.get(43) is None and store.get(5).doc_id == 7
    with pytest.raises(KeyError):
        store[43]
    assert dict(store.items()) == {row[0]: expected(row) for row in ROWS}
    assert store.doc_id_of == {5: 7, 42: 7, 900: 8}
    with pytest.raises(TypeError):
        store[1] = expected(ROWS[0])  # type: ignore[index]


def test_batches_answer_without_building_what_they_need_not(store):
    fetched = store.record_fetches()
    assert store.doc_ids_of([900, 5, 42]).tolist() == [8, 7, 7]
    assert store.ids_of_documents({7}).tolist() == [5, 42]
    assert fetched == set()  # no text read for ids and documents
    assert list(store.records([42, 1, 5])) == [42, 5]  # given order, unknown ids left out
    assert fetched == {5, 42}
    with pytest.raises(KeyError, match="1"):
        store.doc_ids_of([5, 1])


def test_the_language_sample_reads_only_what_it_slices(store):
    fetched = store.record_fetches()
    texts = store.texts_by_position()
    assert len(texts) == 3 and texts[::2] == [ROWS[1][5], ""]
    assert fetched == {5, 900}


def test_an_empty_table_opens(tmp_path):
    write_chunk_store(tmp_path / "chunks", {name: [] for name in COLUMNS})
    empty = ChunkStore(tmp_path / "chunks")
    assert len(empty) == 0 and 1 not in empty and empty.records([1]) == {}


def test_repeated_ids_are_refused(tmp_path):
    rows = ROWS + [ROWS[0]]
    with pytest.raises(ValueError, match="repeat"):
        write_chunk_store(tmp_path / "chunks", {name: [row[i] for row in rows] for i, name in enumerate(COLUMNS)})


def test_a_folder_without_the_store_is_a_stale_format(tmp_path):
    with pytest.raises(IndexFormatError, match="rebuild it"):
        ChunkStore(tmp_path / "chunks")


def test_id_set_and_row_lookup_answer_like_a_set_and_a_dict():
    ids = IdSet(np.array([30, 10, 20, 10]))
    assert len(ids) == 3 and list(ids) == [10, 20, 30] and 20 in ids and 25 not in ids and "a" not in ids
    assert ids == {10, 20, 30} and (ids & {20, 99}) == frozenset({20})
    assert ids.positions([30, 5]).tolist() == [2, -1]
    rows = RowLookup(np.array([30, 10, 20]))
    assert rows.rows([20, 30, 11]).tolist() == [2, 0, -1] and rows.row(10) == 1 and rows.row(11) is None
    assert RowLookup(np.empty(0, dtype=np.int64)).rows([1]).tolist() == [-1]
