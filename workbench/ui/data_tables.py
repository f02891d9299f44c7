"""Read-only tables of plain rows (ranks, scores, text), as the Retrieval lab shows them.

Whole numbers stay whole numbers: a rank column with a gap (a chunk one side does not list) is
an integer column with a missing value, shown as ``—``, never as ``2.0000`` and ``None``. The
rows go to the grid as an Arrow table, built straight from them.
Scores (floats) show four decimals.
"""

from __future__ import annotations

from typing import Literal

import pyarrow as pa
import streamlit as st

from workbench.analysis.tables import RELEVANT_COLUMN

#: how a table shows a value that is absent (a rank the chunk does not have on that side)
MISSING = "—"
RELEVANT_MARK = "✓"
TABLE_HEIGHT = 320
#: a row tall enough for the grid to wrap text (it wraps above 4 rem): four lines of a passage
WRAPPED_ROW_HEIGHT = 92
#: wrapped rows shown before the table scrolls
WRAPPED_ROWS_SHOWN = 6
#: a wrapped table's first columns, in pixels: together they fit one side of the Retrieval lab in
#: a 1400 px window (about 450 px), so the passage shows whole and its document beside it; what
#: follows (score, stage numbers, heading) is a scroll away. The grid's "small" was 75 px for a ✓.
WRAPPED_WIDTHS = {RELEVANT_COLUMN: 32, "rank": 48, "snippet": 250, "document": 112}
#: characters of a passage a wrapped table shows: four lines of its 250 px column
WRAPPED_SNIPPET_CHARS = 130


def table_data(rows: list[dict]) -> pa.Table:
    """The rows as an Arrow table, one column per key in the order keys first appear. Arrow keeps
    a column of ints and None as integers with gaps (pandas would make ``[1, None]`` floats), and
    building it costs a lab table 0.3 ms where a pandas frame and its conversion cost 8 ms. A
    column whose values share no type (a number in one row, text in the next) is shown as text."""
    columns = list(dict.fromkeys(column for row in rows for column in row))
    return pa.table({column: _column([row.get(column) for row in rows]) for column in columns})


def _column(values: list) -> pa.Array:
    try:
        column = pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        return pa.array([None if value is None else str(value) for value in values], type=pa.string())
    return column.cast(pa.string()) if pa.types.is_null(column.type) else column


def column_config(table: pa.Table, highlight: bool = False, wrap: bool = False) -> dict:
    """Scores with four decimals, ranks and counts as whole numbers, the passage wide enough to
    read (with ``wrap``, the widest column, over three lines), and the relevant mark drawn by the grid."""
    config: dict = {}
    for field in table.schema:
        if pa.types.is_floating(field.type):
            config[field.name] = st.column_config.NumberColumn(format="%.4f")
        elif pa.types.is_integer(field.type):
            config[field.name] = st.column_config.NumberColumn(format="%d")
    columns = set(table.column_names)
    widths: dict = WRAPPED_WIDTHS if wrap else {RELEVANT_COLUMN: "small", "snippet": "medium"}
    if "snippet" in columns:
        # wide enough to read, narrow enough that the document beside it stays in view
        config["snippet"] = st.column_config.TextColumn("snippet", width=widths["snippet"], help="the chunk's text")
    if RELEVANT_COLUMN in columns and highlight:
        # a green ✓ drawn by the grid itself: a pandas Styler row colour cost 20-30 ms a table
        config[RELEVANT_COLUMN] = st.column_config.MultiselectColumn(
            RELEVANT_COLUMN,
            width=widths[RELEVANT_COLUMN],
            help="relevant in the golden set",
            options=[RELEVANT_MARK],
            color="green",
        )
    elif RELEVANT_COLUMN in columns:
        config[RELEVANT_COLUMN] = st.column_config.TextColumn(
            RELEVANT_COLUMN, width=widths[RELEVANT_COLUMN], help="relevant in the golden set"
        )
    if wrap and "rank" in columns:
        config["rank"] = st.column_config.NumberColumn("rank", format="%d", width=WRAPPED_WIDTHS["rank"])
    if wrap and "document" in columns:
        config["document"] = st.column_config.TextColumn("document", width=WRAPPED_WIDTHS["document"])
    return config


def show_table(
    rows: list[dict],
    empty: str,
    height: int | Literal["auto"] = TABLE_HEIGHT,
    highlight: bool = False,
    wrap: bool = False,
) -> None:
    """A read-only table; relevant rows are marked ✓, and with ``highlight`` the ✓ is a green mark.
    With ``wrap`` the passage is the wide column and wraps over three lines: a ranked list is read
    by its passages (one line of a half-window column showed about 25 characters of each).

    The mark is a grid column type, not a pandas Styler: styling rows through a Styler cost
    20-30 ms per table (the Styler renders every cell to text, then Streamlit copies each cell),
    a tenth of a Retrieval lab rerun for its four highlighted tables.
    """
    if not rows:
        st.caption(empty)
        return
    table = table_data(rows)
    if wrap:
        height = WRAPPED_ROW_HEIGHT * (min(len(rows), WRAPPED_ROWS_SHOWN) + 1) + 3
    st.dataframe(
        table,
        hide_index=True,
        height=height if wrap or len(rows) > 8 else "auto",
        column_config=column_config(table, highlight, wrap),
        placeholder=MISSING,
        row_height=WRAPPED_ROW_HEIGHT if wrap else None,
    )
