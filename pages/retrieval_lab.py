"""Retrieval lab: one query, two query-time configurations side by side, every stage explained.

A thin page: it lays out the sections and passes values between them. The sides' settings,
runs, stage lists and diff are in ``workbench.ui.lab_side``; golden-set lookups and marking in
``workbench.ui.lab_golden``; "Explain a hit" in ``workbench.ui.hit_explanation``; context,
prompt and answer in ``workbench.ui.context_panel``. Both sides run through ``Workbench.query``,
which reuses the loaded indexes and the query-vector cache, so changing a parameter re-runs only
the cheap stages. All document text, file names and queries are shown as text (dataframes,
``st.text``, ``st.code``) or as escaped Markdown, never as HTML.
"""

from __future__ import annotations

from contextlib import nullcontext

import streamlit as st

from workbench.analysis.golden_matches import relevant_in_run
from workbench.analysis.side_config import describe_differences, differences, side_config
from workbench.config import ConfigError, dumps
from workbench.service import BackendError
from workbench.ui import session
from workbench.ui.context_panel import PANEL_KEY as CONTEXT_PANEL
from workbench.ui.context_panel import render_context
from workbench.ui.hit_explanation import PANEL_KEY as EXPLAIN_PANEL
from workbench.ui.hit_explanation import render_explain
from workbench.ui.lab_golden import (
    GOLDEN_PICK_KEY,
    QUERY_KEY,
    golden_files_signature,
    golden_lookup,
    golden_queries,
    pick_golden_query,
    preferred_set,
    relevant_chunks,
    render_summary,
)
from workbench.ui.lab_side import (
    PERSIST,
    SIDES,
    first_use_note,
    forget_asked,
    held_values,
    may_be_slow,
    render_diff,
    render_side,
    run_side,
    side_controls,
    sync_with_preset,
)
from workbench.ui.pages import run_through_router
from workbench.ui.text import md_escape

run_through_router()

#: the query the sides' settings last folded away for
FOLDED_FOR_KEY = "lab_settings_folded_for"


def _nothing_to_search(collection: str | None) -> bool:
    """Explain what to do when there is no collection, or it has no chunks yet."""
    if collection is None:
        st.info(
            "There is no collection to search yet. Load the bundled demo from the sidebar, or create a "
            "collection and add documents on the Documents page; then come back here."
        )
        return True
    info = session.collection_info(collection)
    if info is not None and info.chunks == 0:
        st.info(
            f"Collection {md_escape(collection)} has no chunks yet. Add documents on the Documents page, "
            "or pick another collection in the sidebar, then come back to query it."
        )
        return True
    return False


def _query_box(queries: dict[str, str]) -> str:
    query_column, pick_column = st.columns([3, 2])
    query_column.text_input(
        "Query",
        key=QUERY_KEY,
        persist_state=PERSIST,
        placeholder="Ask a question or type keywords",
        help="Both sides run this query. A query from a golden set highlights its relevant chunks.",
    )
    session.forget_stale_choice(GOLDEN_PICK_KEY, queries)  # another collection's query, say
    if queries:
        pick_column.selectbox(
            "…or pick a golden query",
            list(queries),
            index=None,
            key=GOLDEN_PICK_KEY,
            on_change=pick_golden_query,
            args=(queries,),
            placeholder=f"{len(queries)} golden queries",
            format_func=lambda pick: f"{pick}: {queries[pick]}",
        )
    return st.session_state.get(QUERY_KEY, "").strip()


def _fold_settings(query: str) -> None:
    """Each side's settings are open before the first query and fold away at every new one, so the
    verdicts and final lists come first; one the user opens stays open until the next query. The
    panels' state is tracked (a keyed expander) and set here, before they are drawn."""
    panels = [f"lab_config_{side}" for side in SIDES]
    if st.session_state.get(FOLDED_FOR_KEY) == query and all(panel in st.session_state for panel in panels):
        return
    for panel in panels:
        st.session_state[panel] = not query
    st.session_state[FOLDED_FOR_KEY] = query


def _configure_sides(base, signature: str, query: str) -> tuple[dict, dict]:
    """Each side's column with its settings; returns the containers and the valid configs."""
    containers, configs = {}, {}
    _fold_settings(query)
    for side, column in zip(SIDES, st.columns(2, gap="medium"), strict=True):
        sync_with_preset(side, base, signature)
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


def _run_sides(collection: str, query: str, configs: dict, containers: dict, first_use: str) -> tuple[dict, dict]:
    traces, snapshots = {}, {}
    for side in SIDES:
        try:
            waiting = st.spinner(f"Running side {side.upper()}…") if may_be_slow(configs[side]) else nullcontext()
            with waiting:
                traces[side], snapshots[side] = run_side(collection, query, configs[side], side, first_use)
        except BackendError as error:  # a Milvus that is down, say: the message names the URI and the fix
            with containers[side]:
                st.error(f"Side {side.upper()} could not run: {md_escape(error)}")
        except Exception as error:  # shown, not raised: the other side and the rest of the page still work
            with containers[side]:
                st.error(
                    f"Side {side.upper()} could not run: {md_escape(f'{type(error).__name__}: {error}')}. "
                    "Check this side's configuration (a rerank or embedding model must be available "
                    "locally)."
                )
    return traces, snapshots


def main() -> None:
    st.title("Retrieval lab")
    collection = session.current_collection()
    if _nothing_to_search(collection):
        return
    preset = session.current_preset()
    base = session.current_config(collection, preset)
    home = str(session.home_path())
    golden_signature = golden_files_signature(session.home_path())
    query = _query_box(golden_queries(home, golden_signature, tuple(session.golden_sets_for(collection))))
    containers, configs = _configure_sides(base, f"{collection}\x00{preset}\x00{dumps(base)}", query)
    if not query:
        forget_asked()
        st.info("Type a query above, or pick a golden query, to run A and B side by side.", icon=":material/search:")
        return
    if len(configs) < 2:
        return
    first_use = session.warm_up(collection, query, list(configs.values()))
    traces, snapshots = _run_sides(collection, query, configs, containers, first_use.describe())
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

    lookup = golden_lookup(home, query, preferred_set(collection), golden_signature)
    snapshot = next(iter(snapshots.values()))
    judged = relevant_chunks(lookup.match.query, snapshot) if lookup.match else {}
    relevant = {side: relevant_in_run(judged, trace.chunks) for side, trace in traces.items()}
    render_summary(lookup, snapshot, traces, relevant)
    same = len(configs) == 2 and not differences(configs["a"], configs["b"])
    for side, trace in traces.items():
        with containers[side]:
            render_side(side, trace, configs[side], relevant[side], same_as_a=same and side == "b")
    st.divider()
    if len(traces) == 2:
        render_diff(traces, {**relevant["a"], **relevant["b"]})
        st.divider()
    # drawn while open, and kept open across queries once opened: their tables, formulas and the
    # context's text cost the browser as much again as both sides' answers
    explain = st.expander("Explain a hit", key=EXPLAIN_PANEL, on_change="rerun", icon=":material/calculate:")
    if explain.open:
        with explain:
            render_explain(traces, configs, snapshots, relevant, lookup)
    context = st.expander("Context and prompt", key=CONTEXT_PANEL, on_change="rerun", icon=":material/description:")
    if context.open:
        with context:
            render_context(traces, relevant)


main()
