"""Tables in the Retrieval lab: ranks stay whole numbers, absent values show as a dash."""

from __future__ import annotations

import pyarrow as pa

from workbench.analysis.diff import diff_finals
from workbench.analysis.tables import diff_rows
from workbench.retrieval.ranking import RankedList
from workbench.ui.data_tables import MISSING, column_config, table_data


def _ranked(name: str, chunk_ids: list[int]) -> RankedList:
    return RankedList.from_ordered(name, [(cid, cid // 10, 1.0 / rank) for rank, cid in enumerate(chunk_ids, 1)])


def test_a_rank_column_with_a_gap_stays_integer():
    table = table_data([{"rank A": 2, "score": 0.5}, {"rank A": None, "score": 0.25}])
    assert table.schema.field("rank A").type == pa.int64()
    assert table.column("rank A").to_pylist() == [2, None]
    assert table.schema.field("score").type == pa.float64()


def test_booleans_text_and_floats_are_not_made_integers():
    table = table_data([{"flag": True, "text": "7", "ratio": 1.0}, {"flag": False, "text": None, "ratio": None}])
    assert table.schema.field("flag").type == pa.bool_()
    assert table.schema.field("text").type == pa.string()
    assert table.schema.field("ratio").type == pa.float64()


def test_columns_follow_the_keys_first_appearance_even_when_the_first_row_lacks_one():
    table = table_data([{"rank": 1}, {"rank": 2, "note": "late"}, {"note": None}])
    assert table.column_names == ["rank", "note"]
    assert table.column("rank").to_pylist() == [1, 2, None]
    assert table.column("note").to_pylist() == [None, "late", None]


def test_a_column_of_numbers_and_text_is_shown_as_text_and_an_empty_one_as_text():
    table = table_data([{"mixed": 3, "empty": None}, {"mixed": "three", "empty": None}])
    assert table.column("mixed").to_pylist() == ["3", "three"]
    assert table.schema.field("empty").type == pa.string()


def test_integer_columns_show_whole_numbers_and_floats_four_decimals():
    table = table_data([{"rank": 1, "score": 0.123456}, {"rank": None, "score": 0.5}])
    config = column_config(table)
    assert config["rank"]["type_config"]["format"] == "%d"
    assert config["score"]["type_config"]["format"] == "%.4f"
    assert MISSING == "—"


def test_the_a_vs_b_table_has_integer_ranks_and_gaps_for_absent_ones():
    # A: 11, 12, 13 ; B: 12, 14, 11  ->  B's order first (12, 14, 11), then what left (13)
    diff = diff_finals(_ranked("a", [11, 12, 13]), _ranked("b", [12, 14, 11]))
    table = table_data(diff_rows(diff, {}))
    assert table.column("chunk").to_pylist() == [12, 14, 11, 13]
    assert table.schema.field("rank A").type == table.schema.field("rank B").type == pa.int64()
    assert table.column("rank A").to_pylist() == [2, None, 1, 3]
    assert table.column("rank B").to_pylist() == [1, 2, 3, None]
    assert table.column("change").to_pylist() == ["▲ 1", "entered", "▼ 2", "left"]
