"""Both sides' runs of one Retrieval lab query, and everything the page shows of them, built
before the page draws: the page then reaches the browser in one burst rather than in pieces
between the runs (each piece costs the browser a redraw of the page)."""

from __future__ import annotations

from contextlib import nullcontext
from typing import NamedTuple

import streamlit as st

from store.index_set import Snapshot
from workbench.analysis.golden_matches import GoldenLookup, relevant_in_run
from workbench.analysis.side_config import differences
from workbench.config import WorkbenchConfig
from workbench.retrieval.trace import Trace
from workbench.service import BackendError
from workbench.service.first_use import embedding_warmed
from workbench.ui import session
from workbench.ui.lab_diff import DIFF_PANEL_KEY, DiffView, diff_view
from workbench.ui.lab_golden import QUERY_KEY, golden_lookup, preferred_set, relevant_chunks
from workbench.ui.lab_side import SIDES, SideView, may_be_slow, run_side, side_view
from workbench.ui.text import md_escape


def embed_the_query_ahead() -> None:
    """Start embedding the lab's query on a thread of its own as the run starts, so that it runs
    while the sidebar and the page's top are drawn (20-40 ms of a query's round trip). Only for a
    local model that already ran (a first load stays in the first-use cost the page reports, and an
    endpoint model is not sent a query neither side may need)."""
    query = str(st.session_state.get(QUERY_KEY) or "").strip()
    if not query:
        return
    try:
        collection = session.current_collection()
        if collection is None:
            return
        model = session.current_config(collection, session.current_preset()).embedding.key
    except Exception:  # a broken preset, a busy catalog: the page itself says so, where it belongs
        return
    if embedding_warmed(model):
        session.workbench().embed_query_ahead(model, query)


class SideRuns(NamedTuple):
    """Both sides' runs of one query: what each ran with, its trace and snapshot, why a side
    could not run, and the first-use cost paid before them (``FirstUseCost.describe``)."""

    query: str
    configs: dict[str, WorkbenchConfig]
    traces: dict[str, Trace]
    snapshots: dict[str, Snapshot]
    problems: dict[str, str]
    first_use: str


def run_sides(collection: str, query: str, configs: dict[str, WorkbenchConfig]) -> SideRuns:
    first_use = session.warm_up(collection, query, list(configs.values())).describe()
    traces, snapshots, problems = {}, {}, {}
    for side in SIDES:
        try:
            waiting = st.spinner(f"Running side {side.upper()}…") if may_be_slow(configs[side]) else nullcontext()
            with waiting:
                traces[side], snapshots[side] = run_side(collection, query, configs[side], side, first_use)
        except BackendError as error:  # a Milvus that is down, say: the message names the URI and the fix
            problems[side] = f"Side {side.upper()} could not run: {md_escape(error)}"
        except Exception as error:  # shown, not raised: the other side and the rest of the page still work
            problems[side] = (
                f"Side {side.upper()} could not run: {md_escape(f'{type(error).__name__}: {error}')}. "
                "Check this side's configuration (a rerank or embedding model must be available locally)."
            )
    return SideRuns(query, configs, traces, snapshots, problems, first_use)


class Answer(NamedTuple):
    """All the page shows of the runs, built before drawing: the query's golden-set entry, each
    side's relevant chunks by rank (empty when unjudged), each side's view and the A/B diff."""

    lookup: GoldenLookup
    relevant: dict[str, dict[int, int]]
    sides: dict[str, SideView]
    diff: DiffView | None


def answer_for(home: str, collection: str, signature: tuple, runs: SideRuns) -> Answer:
    lookup = golden_lookup(home, runs.query, preferred_set(collection), signature)
    traces = runs.traces
    if not traces:
        return Answer(lookup, {}, {}, None)
    snapshot = next(iter(runs.snapshots.values()))
    judged = relevant_chunks(lookup.match.query, snapshot) if lookup.match else {}
    relevant = {side: relevant_in_run(judged, trace.chunks) for side, trace in traces.items()}
    same = len(runs.configs) == 2 and not differences(runs.configs["a"], runs.configs["b"])
    sides = {
        side: side_view(side, trace, runs.configs[side], relevant[side], same_as_a=same and side == "b")
        for side, trace in traces.items()
    }
    both = {**relevant.get("a", {}), **relevant.get("b", {})}
    with_rows = bool(st.session_state.get(DIFF_PANEL_KEY))
    return Answer(lookup, relevant, sides, diff_view(traces, both, with_rows) if len(traces) == 2 else None)
