"""Tables in the Retrieval lab: ranks stay whole numbers, absent values show as a dash."""

from __future__ import annotations

import pandas as pd

from workbench.analysis.diff import diff_finals
from workbench.analysis.tables import diff_rows
from workbench.retrieval.ranking import RankedList
from workbench.ui.data_tables import MISSING, column_config, table_frame


def _ranked(name: str, chunk_ids: list[int]) -> RankedList:
    return RankedList.from_ordered(name, [(cid, cid // 10, 1.0 / rank) for rank, cid in enumerate(chunk_ids, 1)])


def test_a_rank_column_with_a_gap_stays_integer():
    frame = table_frame([{"rank A": 2, "score": 0.5}, {"rank A": None, "score": 0.25}])
    assert str(frame["rank A"].dtype) == "Int64"
    assert frame["rank A"].iloc[0] == 2 and pd.isna(frame["rank A"].iloc[1])
    assert frame["score"].dtype == float


def test_booleans_text_and_floats_are_not_made_integers():
    frame = table_frame([{"flag": True, "text": "7", "ratio": 1.0}, {"flag": False, "text": None, "ratio": None}])
    assert frame["flag"].dtype == bool
    assert not pd.api.types.is_numeric_dtype(frame["text"])
    assert frame["ratio"].dtype == float


def test_integer_columns_show_whole_numbers_and_floats_four_decimals():
    frame = table_frame([{"rank": 1, "score": 0.123456}, {"rank": None, "score": 0.5}])
    config = column_config(frame)
    assert config["rank"]["type_config"]["format"] == "%d"
    assert config["score"]["type_config"]["format"] == "%.4f"
    assert MISSING == "—"


def test_the_a_vs_b_table_has_integer_ranks_and_gaps_for_absent_ones():
    # A: 11, 12, 13 ; B: 12, 14, 11  ->  B's order first (12, 14, 11), then what left (13)
    diff = diff_finals(_ranked("a", [11, 12, 13]), _ranked("b", [12, 14, 11]))
    frame = table_frame(diff_rows(diff, {}))
    assert list(frame["chunk"]) == [12, 14, 11, 13]
    assert str(frame["rank A"].dtype) == str(frame["rank B"].dtype) == "Int64"
    assert frame["rank A"].tolist()[0] == 2 and pd.isna(frame["rank A"].tolist()[1])
    assert frame["rank A"].tolist()[2:] == [1, 3]
    assert frame["rank B"].tolist()[:3] == [1, 2, 3] and pd.isna(frame["rank B"].tolist()[3])
    assert list(frame["change"]) == ["▲ 1", "entered", "▼ 2", "left"]
