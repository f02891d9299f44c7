"""Retrieval lab: one query, two query-time configurations side by side, every stage explained.

A thin page: it lays out the sections and passes values between them. The sides' settings and
stage lists are in ``workbench.ui.lab_side``, A against B in ``workbench.ui.lab_diff``, both
sides' runs of a query and all the page shows of them (built before drawing) in
``workbench.ui.lab_runs``; golden-set lookups and marking in ``workbench.ui.lab_golden``;
"Explain a hit" in ``workbench.ui.hit_explanation``; context,
prompt and answer in ``workbench.ui.context_panel``. Both sides run through ``Workbench.query``,
which reuses the loaded indexes and the query-vector cache, so changing a parameter re-runs only
the cheap stages. All document text, file names and queries are shown as text (dataframes,
``st.text``, ``st.code``) or as escaped Markdown, never as HTML.
"""

from __future__ import annotations

import streamlit as st

from workbench.analysis.side_config import describe_differences, differences, side_config
from workbench.config import ConfigError
from workbench.ui import session
from workbench.ui.context_panel import PANEL_KEY as CONTEXT_PANEL
from workbench.ui.context_panel import render_context
from workbench.ui.expected_errors import shown_as_messages
from workbench.ui.hit_explanation import PANEL_KEY as EXPLAIN_PANEL
from workbench.ui.hit_explanation import render_explain
from workbench.ui.lab_diff import render_diff
from workbench.ui.lab_golden import (
    GOLDEN_PICK_KEY,
    QUERY_KEY,
    golden_files_signature,
    golden_queries,
    pick_golden_query,
    render_summary,
)
from workbench.ui.lab_runs import (
    answer_for,
    asked_query,
    golden_for,
    lab_signature,
    run_sides,
    settle_sides,
    take_ran_ahead,
)
from workbench.ui.lab_side import (
    PERSIST,
    SIDES,
    first_use_note,
    forget_asked,
    held_values,
    render_side,
    side_controls,
)
from workbench.ui.text import md_escape


def _nothing_to_search(collection: str | None) -> str | None:
    """What to do when there is no collection, or it has no chunks yet; None when there is
    something to search."""
    if collection is None:
        return (
            "There is no collection to search yet. Load the bundled demo from the sidebar, or create a "
            "collection and add documents on the Documents page; then come back here."
        )
    info = session.collection_info(collection)
    if info is not None and info.chunks == 0:
        return (
            f"Collection {md_escape(collection)} has no chunks yet. Add documents on the Documents page, "
            "or pick another collection in the sidebar, then come back to query it."
        )
    return None


def _query_box(queries: dict[str, str]) -> str:
    # one row (a horizontal container, not two columns: two elements fewer to redraw a query)
    row = st.container(horizontal=True, key="lab_query_row")
    row.text_input(
        "Query",
        key=QUERY_KEY,
        persist_state=PERSIST,
        placeholder="Ask a question or type keywords",
        help="Both sides run this query. A query from a golden set highlights its relevant chunks.",
    )
    if queries:
        row.selectbox(
            "…or pick a golden query",
            list(queries),
            index=None,
            key=GOLDEN_PICK_KEY,
            on_change=pick_golden_query,
            args=(queries,),
            placeholder=f"{len(queries)} golden queries",
            format_func=lambda pick: f"{pick}: {queries[pick]}",
            width=440,
        )
    return asked_query()


def _configure_sides(base, signature: str, query: str) -> tuple[dict, dict]:
    """Each side's column with its settings; returns the containers and the valid configs."""
    containers, configs = {}, {}
    settle_sides(base, signature, query)
    for side, column in zip(SIDES, st.columns(2, gap="medium"), strict=True):
        with column:
            containers[side] = st.container(key=f"side_{side}")
            with containers[side]:
                st.subheader(f"{side.upper()}")
                panel = st.expander(
                    "Configuration", key=f"lab_config_{side}", on_change="rerun", icon=":material/tune:"
                )
                if panel.open:
                    with panel:
                        values = side_controls(side, base)
                else:  # folded: its 20-odd widgets cost every query more than its run; drawn when opened
                    values = held_values(side, base)
                try:
                    configs[side] = side_config(base, values)
                except ConfigError as error:
                    st.error(f"This configuration is not valid: {md_escape(error)}")
    if len(configs) == 2:
        changed = differences(configs["a"], configs["b"])
        with containers["b"]:
            st.caption("Differs from A in: " + md_escape(describe_differences(changed)))
    return containers, configs


def main() -> None:
    collection = session.current_collection()
    nothing = _nothing_to_search(collection)
    st.title("Retrieval lab")
    if collection is None or nothing:
        st.info(nothing or "")
        return
    _lab()


@st.fragment
def _lab() -> None:
    """The query, both sides and everything below them. A query reruns only this fragment: the
    sidebar and the title are not drawn again (each element costs the browser a few ms a query)."""
    with shown_as_messages():  # the router's own handler is not around a fragment's rerun
        _query_and_sides()


def _query_and_sides() -> None:
    collection = session.current_collection()
    if collection is None:
        return
    preset = session.current_preset()
    base = session.current_config(collection, preset)
    ran_ahead = take_ran_ahead()  # first: it starts the query's embedding
    home = str(session.home_path())
    golden_signature = golden_files_signature(session.home_path())
    queries = golden_queries(home, golden_signature, tuple(session.golden_sets_for(collection)))
    session.forget_stale_choice(GOLDEN_PICK_KEY, queries)  # another collection's query, say
    signature = lab_signature(collection, preset, base)
    query = _query_box(queries)
    containers, configs = _configure_sides(base, signature, query)
    if not query:
        forget_asked()
        st.info("Type a query above, or pick a golden query, to run A and B side by side.", icon=":material/search:")
        return
    if len(configs) < 2:
        return
    runs, answer = ran_ahead if ran_ahead and ran_ahead[0].asks(collection, query, configs) else (None, None)
    runs = runs or run_sides(collection, query, configs)
    for side, problem in runs.problems.items():
        with containers[side]:
            st.error(problem)
    traces, snapshots = runs.traces, runs.snapshots
    paid = first_use_note(traces)
    if paid:
        st.caption(
            md_escape(paid),
            help="Reading the indexes, loading the models (and their first, "
            "slower run) and embedding the query happen once, before either side is timed, so the two "
            "sides' stage times compare fairly.",
        )
    if not traces:
        return

    answer = answer or answer_for(runs, golden_for(home, collection, golden_signature, query, configs["a"]))
    relevant = answer.relevant
    render_summary(answer.lookup, next(iter(snapshots.values())), traces, relevant)
    for side, trace in traces.items():
        with containers[side]:
            render_side(side, trace, answer.sides[side], relevant[side])
    if answer.diff is not None:
        render_diff(answer.diff)
    # drawn while open, and kept open across queries once opened: their tables, formulas and the
    # context's text cost the browser as much again as both sides' answers
    explain = st.expander("Explain a hit", key=EXPLAIN_PANEL, on_change="rerun", icon=":material/calculate:")
    if explain.open:
        with explain:
            render_explain(traces, configs, snapshots, relevant, answer.lookup)
    context = st.expander("Context and prompt", key=CONTEXT_PANEL, on_change="rerun", icon=":material/description:")
    if context.open:
        with context:
            render_context(traces, snapshots, relevant)


main()
