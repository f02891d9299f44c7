"""The Retrieval lab's A against B: which final hits the sides share, which moved and by how
much, which entered or left; a summary line always, the table of every chunk when its panel is
open."""

from __future__ import annotations

from typing import NamedTuple

import streamlit as st

from workbench.analysis.diff import diff_finals
from workbench.analysis.tables import diff_rows
from workbench.retrieval.trace import Trace
from workbench.text import count
from workbench.ui.data_tables import show_table


class DiffView(NamedTuple):
    """A against B, built before the page draws: what the two final lists share, and one row per
    chunk while the table's panel is open (``DIFF_PANEL_KEY``)."""

    caption: str
    rows: list[dict] | None


#: the A-vs-B table's panel: folded, the page sends the summary line only
DIFF_PANEL_KEY = "lab_diff_panel"


def diff_view(traces: dict[str, Trace], relevant: dict[int, int], with_rows: bool = True) -> DiffView:
    """Which final hits A and B share, which moved and by how much, which entered or left."""
    diff = diff_finals(traces["a"].final, traces["b"].final)
    if diff.identical:
        caption = "A and B return the same final list in the same order."
    else:
        caption = (
            f"{count(diff.overlap, 'chunk')} in both ({len(diff.moved)} moved), {len(diff.entered)} entered B, "
            f"{len(diff.left)} left A. ▲ n: B ranks it n places higher than A; — : not in that list."
        )
    if not with_rows:
        return DiffView(caption, None)
    # the rows' chunks only: merging both traces' views would read every candidate either side
    # held (some 170 chunks' text from the store, 15 ms a query) for the 10-20 rows shown
    views = {}
    for change in diff.changes:
        view = traces["b"].chunks.get(change.chunk_id) or traces["a"].chunks.get(change.chunk_id)
        if view is not None:
            views[change.chunk_id] = view
    return DiffView(caption, diff_rows(diff, views, relevant))


def render_diff(view: DiffView) -> None:
    """The summary line, and the table of every chunk either side returned while its panel is
    open. It stays open across queries once opened; folded, it is not sent: a third table cost the
    browser a sixth of a query's answer (``bench/bench_app_elements.py``: a lab table 10 ms, a
    caption 2 ms)."""
    st.subheader("A vs B: the final lists", divider="gray")
    st.caption(view.caption)
    panel = st.expander("Chunk by chunk", key=DIFF_PANEL_KEY, on_change="rerun", icon=":material/compare_arrows:")
    if panel.open and view.rows is not None:
        with panel:
            show_table(view.rows, "Both final lists are empty.", highlight=True)
