"""The Retrieval lab's A against B: which final hits the sides share, which moved and by how
much, which entered or left: a summary, which is the label of the panel that holds the table of
every chunk, drawn when it is open."""

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

    summary: str
    rows: list[dict] | None


#: the A-vs-B table's panel: folded, the page sends the summary line only
DIFF_PANEL_KEY = "lab_diff_panel"


def diff_view(traces: dict[str, Trace], relevant: dict[int, int], with_rows: bool = True) -> DiffView:
    """Which final hits A and B share, which moved and by how much, which entered or left."""
    diff = diff_finals(traces["a"].final, traces["b"].final)
    if diff.identical:
        summary = "A and B return the same final list in the same order"
    else:
        summary = (
            f"{count(diff.overlap, 'chunk')} in both ({len(diff.moved)} moved), {len(diff.entered)} entered B, "
            f"{len(diff.left)} left A"
        )
    if not with_rows:
        return DiffView(summary, None)
    # the rows' chunks only: merging both traces' views would read every candidate either side
    # held (some 170 chunks' text from the store, 15 ms a query) for the 10-20 rows shown
    views = {}
    for change in diff.changes:
        view = traces["b"].chunks.get(change.chunk_id) or traces["a"].chunks.get(change.chunk_id)
        if view is not None:
            views[change.chunk_id] = view
    return DiffView(summary, diff_rows(diff, views, relevant))


def render_diff(view: DiffView) -> None:
    """The summary, as the label of the panel that holds the table of every chunk either side
    returned, drawn while the panel is open. It stays open across queries once opened; folded, the
    table is not sent: a third table cost the browser a sixth of a query's answer
    (``bench/bench_app_elements.py``: a lab table 10 ms, a caption 2 ms), and a separate summary
    line was one element more a query."""
    st.subheader("A vs B: the final lists", divider="gray")
    panel = st.expander(
        f"{view.summary} · chunk by chunk", key=DIFF_PANEL_KEY, on_change="rerun", icon=":material/compare_arrows:"
    )
    if panel.open and view.rows is not None:
        with panel:
            st.caption("▲ n: B ranks the chunk n places higher than A; — : not in that list.")
            show_table(view.rows, "Both final lists are empty.", highlight=True)
