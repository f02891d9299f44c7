"""Read-only tables of plain rows (ranks, scores, text), as the Retrieval lab shows them.

Whole numbers stay whole numbers: a rank column with a gap (a chunk one side does not list) is
an integer column with a missing value, shown as ``—``, never as ``2.0000`` and ``None``.
Scores (floats) show four decimals.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from workbench.analysis.tables import RELEVANT_COLUMN

#: how a table shows a value that is absent (a rank the chunk does not have on that side)
MISSING = "—"
RELEVANT_STYLE = "background-color: rgba(46, 160, 67, 0.22)"
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


def column_config(frame: pd.DataFrame) -> dict:
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
    if RELEVANT_COLUMN in frame.columns:
        config[RELEVANT_COLUMN] = st.column_config.TextColumn(
            RELEVANT_COLUMN, width="small", help="relevant in the golden set"
        )
    return config


def show_table(rows: list[dict], empty: str, height: int | str = TABLE_HEIGHT, highlight: bool = False) -> None:
    """A read-only table; relevant rows are marked ✓ and, with ``highlight``, get a green background.

    Row styling goes through a pandas Styler, which costs tens of milliseconds per table against
    about one for a plain one. Styling every stage list of both sides would blow the lab's
    half-second re-render budget, so only the lists a reader compares (finals, diff, context)
    are styled; the candidate lists keep the ✓ column.
    """
    if not rows:
        st.caption(empty)
        return
    frame = table_frame(rows)
    data = frame
    if highlight and RELEVANT_COLUMN in frame.columns and (frame[RELEVANT_COLUMN] != "").any():
        data = frame.style.format(precision=4, na_rep=MISSING).apply(
            lambda row: [RELEVANT_STYLE if row[RELEVANT_COLUMN] else ""] * len(row), axis=1
        )
    st.dataframe(
        data,
        hide_index=True,
        height=height if len(rows) > 8 else "auto",
        column_config=column_config(frame),
        placeholder=MISSING,
    )
