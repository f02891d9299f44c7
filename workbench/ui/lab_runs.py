"""Both sides' runs of one Retrieval lab query, and everything the page shows of them, built
before anything is drawn (``run_ahead``: by the router before the sidebar on a page run, by the
lab's fragment on a query): the page then reaches the browser in one burst rather than in pieces
between the runs, and the browser redraws the page once per burst (a diagnostic run that held
back a run's messages to its end took the round trip from 0.43 to 0.36 s)."""

from __future__ import annotations

from contextlib import nullcontext
from typing import NamedTuple

import streamlit as st

from store.index_set import Snapshot
from workbench.analysis.golden_matches import GoldenLookup, relevant_in_run
from workbench.analysis.side_config import differences, side_config
from workbench.config import ConfigError, WorkbenchConfig, dumps
from workbench.retrieval.trace import Trace
from workbench.service import BackendError
from workbench.service.first_use import embedding_warmed
from workbench.ui import session
from workbench.ui.lab_diff import DIFF_PANEL_KEY, DiffView, diff_view
from workbench.ui.lab_golden import QUERY_KEY, golden_files_signature, golden_lookup, preferred_set, relevant_chunks
from workbench.ui.lab_side import SIDES, SideView, held_values, may_be_slow, run_side, side_view, sync_with_preset
from workbench.ui.text import md_escape

#: the query the sides' settings last folded away for
FOLDED_FOR_KEY = "lab_settings_folded_for"
#: the runs made ahead of this script run's drawing, for the page to take (``take_ran_ahead``)
RAN_AHEAD_KEY = "_lab_ran_ahead"


def asked_query() -> str:
    return str(st.session_state.get(QUERY_KEY) or "").strip()


def lab_signature(collection: str, preset: str | None, base: WorkbenchConfig) -> str:
    """What the sides start from: a change of it starts them from the preset again."""
    return f"{collection}\x00{preset}\x00{dumps(base)}"


def settle_sides(base: WorkbenchConfig, signature: str, query: str) -> None:
    """Start each side from the preset when it changed, and fold the settings at a new query."""
    _fold_settings(query)
    for side in SIDES:
        sync_with_preset(side, base, signature)


def _fold_settings(query: str) -> None:
    """Each side's settings start folded and fold away again at every new query, so the verdicts
    and final lists come first (two open panels pushed them below the fold at 1400 px); one the
    user opens stays open until the next query. The panels' state is tracked (a keyed expander)
    and set here, before they are drawn."""
    panels = [f"lab_config_{side}" for side in SIDES]
    if st.session_state.get(FOLDED_FOR_KEY) == query and all(panel in st.session_state for panel in panels):
        return
    for panel in panels:
        st.session_state[panel] = False
    st.session_state[FOLDED_FOR_KEY] = query


def run_ahead() -> None:
    """The lab's query run and its answer built before the app draws anything, when both sides'
    settings are folded (read from the session, no widget drawn) and neither side waits on a
    reranker or an LLM (their spinners belong beside the sides). The page takes the result with
    ``take_ran_ahead`` and uses it only if it asks the same of the same collection (``SideRuns.asks``). A broken
    preset or a busy catalog is left to the page, which says so where it belongs."""
    st.session_state[RAN_AHEAD_KEY] = None  # asked, and nothing made until the end says otherwise
    query = asked_query()
    if not query:
        return
    session.apply_requested_selection()
    try:
        collection = session.current_collection()
        if collection is None:
            return
        preset = session.current_preset()
        base = session.current_config(collection, preset)
    except Exception:
        return
    _embed_the_query_ahead(base.embedding.key, query)
    settle_sides(base, lab_signature(collection, preset, base), query)
    if any(st.session_state.get(f"lab_config_{side}") for side in SIDES):
        return
    try:
        configs = {side: side_config(base, held_values(side, base)) for side in SIDES}
    except ConfigError:
        return  # the page draws the side's error where its settings are
    if any(may_be_slow(config) for config in configs.values()):
        return
    # the golden lookup while the query's vector is computed on its own thread
    home = session.home_path()
    golden = golden_for(str(home), collection, golden_files_signature(home), query, configs["a"])
    runs = run_sides(collection, query, configs)
    st.session_state[RAN_AHEAD_KEY] = (runs, answer_for(runs, golden))


def take_ran_ahead() -> tuple[SideRuns, Answer] | None:
    """The runs and answer ``run_ahead`` made in this script run, if it made them. A query asked
    in the lab reruns only the lab's fragment, not the router: the runs are made here then."""
    if RAN_AHEAD_KEY not in st.session_state:
        run_ahead()
    return st.session_state.pop(RAN_AHEAD_KEY, None)


def _embed_the_query_ahead(model: str, query: str) -> None:
    """Embed the query on a thread of its own while the sides' settings and the golden sets are
    read. Only for a local model that already ran (a first load stays in the first-use cost the
    page reports, and an endpoint model is not sent a query neither side may need)."""
    if embedding_warmed(model):
        session.workbench().embed_query_ahead(model, query)


class SideRuns(NamedTuple):
    """Both sides' runs of one query: what each ran with, its trace and snapshot, why a side
    could not run, and the first-use cost paid before them (``FirstUseCost.describe``)."""

    collection: str
    query: str
    configs: dict[str, WorkbenchConfig]
    traces: dict[str, Trace]
    snapshots: dict[str, Snapshot]
    problems: dict[str, str]
    first_use: str

    def asks(self, collection: str, query: str, configs: dict[str, WorkbenchConfig]) -> bool:
        """Whether these are the runs of ``query`` on ``collection`` with ``configs``."""
        return (self.collection, self.query, self.configs) == (collection, query, configs)


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
    return SideRuns(collection, query, configs, traces, snapshots, problems, first_use)


class Answer(NamedTuple):
    """All the page shows of the runs, built before drawing: the query's golden-set entry, each
    side's relevant chunks by rank (empty when unjudged), each side's view and the A/B diff."""

    lookup: GoldenLookup
    relevant: dict[str, dict[int, int]]
    sides: dict[str, SideView]
    diff: DiffView | None


class Golden(NamedTuple):
    """The query's golden-set entry, and the chunks it judges relevant (by chunk id, over the
    collection's current layout; empty when the query is not in a golden set)."""

    lookup: GoldenLookup
    judged: dict[int, int]


def golden_for(home: str, collection: str, signature: tuple, query: str, config: WorkbenchConfig) -> Golden:
    lookup = golden_lookup(home, query, preferred_set(collection), signature)
    if lookup.match is None:
        return Golden(lookup, {})
    return Golden(lookup, relevant_chunks(lookup.match.query, session.workbench().snapshot(collection, config)))


def answer_for(runs: SideRuns, golden: Golden) -> Answer:
    traces = runs.traces
    if not traces:
        return Answer(golden.lookup, {}, {}, None)
    relevant = {side: relevant_in_run(golden.judged, trace.chunks) for side, trace in traces.items()}
    same = len(runs.configs) == 2 and not differences(runs.configs["a"], runs.configs["b"])
    sides = {
        side: side_view(side, trace, runs.configs[side], relevant[side], same_as_a=same and side == "b")
        for side, trace in traces.items()
    }
    both = {**relevant.get("a", {}), **relevant.get("b", {})}
    with_rows = bool(st.session_state.get(DIFF_PANEL_KEY))
    return Answer(golden.lookup, relevant, sides, diff_view(traces, both, with_rows) if len(traces) == 2 else None)
