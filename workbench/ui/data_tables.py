"""Read-only tables of plain rows (ranks, scores, text), as the Retrieval lab shows them.

Whole numbers stay whole numbers: a rank column with a gap (a chunk one side does not list) is
an integer column with a missing value, shown as ``—``, never as ``2.0000`` and ``None``.
Scores (floats) show four decimals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import pandas as pd
import streamlit as st

from workbench.analysis.tables import RELEVANT_COLUMN

#: how a table shows a value that is absent (a rank the chunk does not have on that side)
MISSING = "—"
RELEVANT_MARK = "✓"
TABLE_HEIGHT = 320


def _whole_numbers(values: Sequence) -> bool:
    present = [value for value in values if value is not None]
    return bool(present) and all(isinstance(value, int) and not isinstance(value, bool) for value in present)


def table_frame(rows: list[dict]) -> pd.DataFrame:
    """The rows as a frame; a column whose values are ints or None becomes a nullable integer
    column (``Int64``). Judged on the rows' own values: pandas would turn ``[1, None]`` into
    floats before anything could look at the frame."""
    columns = list(dict.fromkeys(column for row in rows for column in row))
    frame = pd.DataFrame(rows, columns=columns)
    for column in columns:
        if _whole_numbers([row.get(column) for row in rows]):
            frame[column] = pd.array([row.get(column) for row in rows], dtype="Int64")
    return frame


def column_config(frame: pd.DataFrame, highlight: bool = False) -> dict:
    config = {
        column: st.column_config.NumberColumn(format="%.4f")
        for column in frame.columns
        if pd.api.types.is_float_dtype(frame[column])
    }
    config.update(
        {
            column: st.column_config.NumberColumn(format="%d")
            for column in frame.columns
            if pd.api.types.is_integer_dtype(frame[column])
        }
    )
    if "snippet" in frame.columns:
        # wide enough to read, narrow enough that the document beside it stays in view
        config["snippet"] = st.column_config.TextColumn("snippet", width="medium", help="the chunk's text")
    if RELEVANT_COLUMN in frame.columns and highlight:
        # a green ✓ drawn by the grid itself: a pandas Styler row colour cost 20-30 ms a table
        config[RELEVANT_COLUMN] = st.column_config.MultiselectColumn(
            RELEVANT_COLUMN, width="small", help="relevant in the golden set", options=[RELEVANT_MARK], color="green"
        )
    elif RELEVANT_COLUMN in frame.columns:
        config[RELEVANT_COLUMN] = st.column_config.TextColumn(
            RELEVANT_COLUMN, width="small", help="relevant in the golden set"
        )
    return config


def show_table(
    rows: list[dict], empty: str, height: int | Literal["auto"] = TABLE_HEIGHT, highlight: bool = False
) -> None:
    """A read-only table; relevant rows are marked ✓, and with ``highlight`` the ✓ is a green mark.

    The mark is a grid column type, not a pandas Styler: styling rows through a Styler cost
    20-30 ms per table (the Styler renders every cell to text, then Streamlit copies each cell),
    a tenth of a Retrieval lab rerun for its four highlighted tables.
    """
    if not rows:
        st.caption(empty)
        return
    frame = table_frame(rows)
    st.dataframe(
        frame,
        hide_index=True,
        height=height if len(rows) > 8 else "auto",
        column_config=column_config(frame, highlight),
        placeholder=MISSING,
    )
