"""The sides (A and B) of the Retrieval lab: each side's query-time settings, run and stages.

The settings are widgets bounded by each key's limits in ``workbench.config``. A side starts
from the sidebar's collection and preset (B as the preset with MMR switched the other way,
``instructive_variant``) and keeps the user's changes until the collection or preset changes.
Traces are kept per session, so widgets that do not change the query (explain, context) never
re-run a slow rerank.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import NamedTuple

import streamlit as st

from workbench.analysis.charts import rank_flow_figure
from workbench.analysis.rank_flow import rank_flow
from workbench.analysis.side_config import describe, instructive_variant, side_values
from workbench.analysis.tables import chunk_label, stage_overview, stage_rows, timing_rows
from workbench.analysis.verdict import VerdictView, evidence_rows, verdict_view
from workbench.config import KEY_DOCS, WorkbenchConfig, dumps
from workbench.models.catalogue import RERANK
from workbench.retrieval.llm_cost import llm_calls_per_query
from workbench.retrieval.stages import FINAL
from workbench.retrieval.trace import StageTrace, Trace
from workbench.ui import config_inputs, llm_panels, session
from workbench.ui.data_tables import WRAPPED_SNIPPET_CHARS, show_table
from workbench.ui.model_choice import OTHER, model_picker, picker_state
from workbench.ui.text import md_escape

SIDES = ("a", "b")
#: the lab's settings survive a visit to another page
PERSIST = "session"
WEIGHT_KEYS = ("fusion.weights.dense", "fusion.weights.bm25")
TRACE_CACHE_KEY = "lab_trace_cache"
TRACE_CACHE_SIZE = 8
#: the stage picker's first choice: every stage of the run, one line each
ALL_STAGES = "All stages"


def side_key(side: str, name: str) -> str:
    return f"lab_{side}_{name}"


def starting_values(side: str, base: WorkbenchConfig) -> dict[str, object]:
    values = side_values(base)
    return instructive_variant(values) if side == "b" else values


def write_widget_state(side: str, values: dict[str, object]) -> None:
    """Put ``values`` into the side's widgets, each inside its key's range."""
    for name, value in values.items():
        if name == "fusion.weights":
            for weight_key, weight in zip(WEIGHT_KEYS, _pair(value), strict=True):  # a missing weight reads as 0
                st.session_state[side_key(side, weight_key)] = config_inputs.clamped("fusion.weights", weight)
        elif name == "rerank.model":
            st.session_state.update(picker_state(side_key(side, name), str(value), RERANK))
        elif name == "rerank.method":
            # a toggle; without an endpoint it stays off (the widget is disabled)
            st.session_state[side_key(side, "rerank.method.llm")] = value == "llm" and not llm_panels.llm_problem()
        elif name == "query.enhance":
            usable = llm_panels.usable_enhance_methods()
            st.session_state[side_key(side, name)] = value if value in usable else "none"
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            st.session_state[side_key(side, name)] = config_inputs.clamped(name, value)
        else:
            st.session_state[side_key(side, name)] = value


def sync_with_preset(side: str, base: WorkbenchConfig, signature: str) -> None:
    """Start (or restart) a side from the sidebar's collection and preset when they change;
    in between, the side's widgets keep whatever the user set."""
    marker = side_key(side, "base")
    if st.session_state.get(marker) != signature:
        write_widget_state(side, starting_values(side, base))
        st.session_state[marker] = signature


def held_values(side: str, base: WorkbenchConfig) -> dict[str, object]:
    """The side's settings as its widgets hold them, read without drawing them: what
    ``side_controls`` returns, while the side's panel is folded. The widgets keep their values
    across runs in which they are not drawn (``persist_state``); a value never set is the
    side's starting value."""
    start = starting_values(side, base)

    def held(name: str) -> object:
        return st.session_state.get(side_key(side, name), start[name] if name in start else None)

    values = {name: held(name) for name in start}
    values["fusion.weights"] = tuple(
        float(st.session_state.get(side_key(side, key), default))
        for key, default in zip(WEIGHT_KEYS, _pair(start["fusion.weights"]), strict=True)
    )
    llm_rerank = bool(st.session_state.get(side_key(side, "rerank.method.llm"))) and not llm_panels.llm_problem()
    values["rerank.method"] = "llm" if llm_rerank else "cross_encoder"
    picker = side_key(side, "rerank.model")
    chosen = st.session_state.get(picker, str(start["rerank.model"] or ""))
    values["rerank.model"] = str(st.session_state.get(f"{picker}_other") or "").strip() if chosen == OTHER else chosen
    return values


def _pair(weights: object) -> list[float]:
    listed = list(weights) if isinstance(weights, (list, tuple)) else []
    return [float(weight) for weight in listed + [0.0, 0.0]][: len(WEIGHT_KEYS)]


def side_controls(side: str, base: WorkbenchConfig) -> dict[str, object]:
    """The side's query-time settings as widgets; returns their values keyed like QUERY_TIME_KEYS."""

    def state(name: str) -> dict:
        # every setting: its own session key, kept across page visits
        return {"key": side_key(side, name), "persist_state": PERSIST}

    values: dict[str, object] = {}
    left, right = st.columns(2)
    values["retrieval.mode"] = config_inputs.selectbox(
        left, "Retrieval mode", "retrieval.mode", **state("retrieval.mode")
    )
    values["retrieval.top_k"] = config_inputs.number_input(
        right, "Top k", "retrieval.top_k", step=1, **state("retrieval.top_k")
    )
    values["retrieval.candidates"] = config_inputs.number_input(
        left, "Candidates per route", "retrieval.candidates", step=10, **state("retrieval.candidates")
    )
    hybrid = values["retrieval.mode"] == "hybrid"
    values["fusion.method"] = config_inputs.selectbox(
        right, "Fusion", "fusion.method", disabled=not hybrid, **state("fusion.method")
    )
    rrf = values["fusion.method"] == "rrf"
    values["fusion.k"] = config_inputs.number_input(
        left, "RRF k", "fusion.k", step=10, disabled=not (hybrid and rrf), **state("fusion.k")
    )
    values["fusion.normalization"] = config_inputs.selectbox(
        right, "Normalisation", "fusion.normalization", disabled=not hybrid or rrf, **state("fusion.normalization")
    )
    weights_off = not hybrid or rrf
    dense_weight = config_inputs.number_input(
        left, "Dense weight", "fusion.weights", step=0.1, disabled=weights_off, **state(WEIGHT_KEYS[0])
    )
    bm25_weight = config_inputs.number_input(
        right, "BM25 weight", "fusion.weights", step=0.1, disabled=weights_off, **state(WEIGHT_KEYS[1])
    )
    values["fusion.weights"] = (float(dense_weight), float(bm25_weight))
    values["mmr.enabled"] = left.toggle("MMR", help=KEY_DOCS["mmr.enabled"], **state("mmr.enabled"))
    mmr_off = not values["mmr.enabled"]
    values["mmr.lambda"] = config_inputs.slider(
        right, "MMR λ", "mmr.lambda", step=0.05, disabled=mmr_off, **state("mmr.lambda")
    )
    values["mmr.pool"] = config_inputs.number_input(
        left, "MMR pool", "mmr.pool", step=10, disabled=mmr_off, **state("mmr.pool")
    )
    no_dense = values["retrieval.mode"] == "bm25"
    values["dense.ef_search"] = config_inputs.number_input(
        right, "HNSW ef_search", "dense.ef_search", step=16, disabled=no_dense, **state("dense.ef_search")
    )
    values["dense.exact"] = left.toggle(
        "Exact dense search", disabled=no_dense, help=KEY_DOCS["dense.exact"], **state("dense.exact")
    )
    values["retrieval.language_guard"] = config_inputs.selectbox(
        right, "Language guard", "retrieval.language_guard", disabled=not hybrid, **state("retrieval.language_guard")
    )
    values.update(llm_panels.query_controls(state))
    values["rerank.method"] = (
        "llm"
        if llm_panels.llm_option(
            st.toggle, "LLM rerank (0-10 per candidate)", help=KEY_DOCS["rerank.method"], **state("rerank.method.llm")
        )
        else "cross_encoder"
    )
    llm_rerank = values["rerank.method"] == "llm"
    values["rerank.model"] = model_picker(
        "Rerank model",
        RERANK,
        side_key(side, "rerank.model"),
        str(base.rerank.model),
        allow_none=True,
        none_label="none (no rerank)",
        persist_state=PERSIST,
        disabled=llm_rerank,
        help=f"{KEY_DOCS['rerank.model']}. A model that is not downloaded gets a Download button right here; "
        "until it is downloaded the rerank stage falls back to the previous order and says so.",
    )
    values["rerank.top_m"] = config_inputs.number_input(
        st,
        "Rerank top m",
        "rerank.top_m",
        step=5,
        disabled=not (values["rerank.model"] or llm_rerank),
        **state("rerank.top_m"),
    )
    st.button(
        "Reset to the preset",
        key=side_key(side, "reset"),
        on_click=write_widget_state,
        args=(side, starting_values(side, base)),
        help="Side A starts as the sidebar preset; side B as the preset with MMR switched the other way.",
    )
    return values


def may_be_slow(config: WorkbenchConfig) -> bool:
    """A run that reranks or calls an LLM takes seconds and earns a spinner; any other takes
    milliseconds, less than the thread each ``st.spinner`` starts."""
    return (
        bool(str(config.rerank.model).strip())
        or config.rerank.method == "llm"
        or bool(llm_calls_per_query(config).calls)
    )


class KeptRun(NamedTuple):
    """A side's run, kept for the session: its trace, when it was timed, and the first-use cost
    paid just before it (``FirstUseCost.describe``, "" when nothing was slow)."""

    trace: Trace
    timed_at: str
    first_use: str


def run_side(collection: str, query: str, config: WorkbenchConfig, side: str = "a", first_use: str = ""):
    """The side's trace and the snapshot it ran on, from this session's cache when it has them
    (``timing_note`` then says the times are that earlier run's). ``first_use``: what the warm-up
    just paid; a run made now keeps it, a kept run keeps its own."""
    bench = session.workbench()
    if config.retrieval.mode != "bm25" or config.mmr.enabled:
        session.embedder(config.embedding.key)  # the first load shows a spinner
    snapshot = bench.snapshot(collection, config)
    cache: dict = st.session_state.setdefault(TRACE_CACHE_KEY, {})
    cache_key = (collection, query, dumps(config), str(snapshot.folder))
    # asked anew: the query or the side's settings changed since the last run; any other rerun (a
    # click elsewhere on the page) redraws the run on screen, and what the page says of it stands
    asked = st.session_state.get(side_key(side, "cache_key")) != cache_key
    st.session_state[side_key(side, "cache_key")] = cache_key
    entry = cache.get(cache_key)
    if entry is None:
        entry = KeptRun(bench.query(query, collection, config, source="lab"), time.strftime("%H:%M:%S"), first_use)
        cache[cache_key] = entry
        while len(cache) > TRACE_CACHE_SIZE:
            cache.pop(next(iter(cache)))
        st.session_state[side_key(side, "timed")] = (entry.timed_at, False)
    elif asked:
        st.session_state[side_key(side, "timed")] = (entry.timed_at, True)
    st.session_state[side_key(side, "first_use")] = entry.first_use
    return entry.trace, snapshot


def forget_asked() -> None:
    """No query on the page: the next query is asked anew, even the same one again."""
    for side in SIDES:
        st.session_state.pop(side_key(side, "cache_key"), None)


def first_use_note(sides: Iterable[str]) -> str:
    """The first-use cost paid before the runs on screen were timed, when they were timed together
    after it. A rerun that draws the same runs (a click elsewhere, the same query asked again)
    shows what those runs paid, not what this rerun's warm-up measured (nothing, or noise); once a
    side is timed again, the two were not timed after one warm-up and the page says nothing."""
    notes = {st.session_state.get(side_key(side, "first_use"), "") for side in sides}
    return notes.pop() if len(notes) == 1 else ""


def forget_timing(side: str) -> None:
    """ "Time again": drop the side's kept run, so the rerun measures the query afresh."""
    cache: dict = st.session_state.get(TRACE_CACHE_KEY, {})
    cache.pop(st.session_state.get(side_key(side, "cache_key")), None)


def timing_note(side: str) -> str:
    """ "timed at 10:42:01", and when the run was kept from earlier in the session, that it was."""
    timed_at, kept = st.session_state.get(side_key(side, "timed"), ("", False))
    if not timed_at:
        return ""
    if kept:
        return (
            f"kept from this query's run at {timed_at} with these settings, not measured again (Time again, "
            "under Timings and rank flow, re-measures)"
        )
    return f"timed at {timed_at}"


class SideView(NamedTuple):
    """What a side shows of its run, built before the page draws anything: the page then reaches
    the browser in one burst, and each burst costs the browser a redraw of the page."""

    caption: str
    same_as_a: bool
    verdict: VerdictView | None
    final_rows: list[dict]
    #: the stage picker's labels ("All stages", "fusion · 50", …) and the stage picked, if one is
    stage_labels: list[str]
    picked: StageTrace | None
    picked_rows: list[dict]
    overview: list[str]


def side_view(
    side: str, trace: Trace, config: WorkbenchConfig, relevant: dict[int, int], same_as_a: bool = False
) -> SideView:
    """The side's caption, verdict, final list and stage lists. ``same_as_a``: B has A's
    settings, so it shows A's run (the page says so rather than passing it off as a second)."""
    if same_as_a:
        when = f"{trace.total_ms:.1f} ms in total, A's timings"
    else:
        note = timing_note(side)
        when = f"{trace.total_ms:.1f} ms in total" + (f", {note}" if note else "")
    labels = [ALL_STAGES] + [f"{stage.stage} · {len(stage.ranked)}" for stage in trace.stages]
    picked_label = _keep_the_picked_stage(side_key(side, "stage"), labels)
    picked = next((stage for label, stage in zip(labels[1:], trace.stages, strict=True) if label == picked_label), None)
    return SideView(
        caption=f"{md_escape(describe(config))} · {md_escape(when)}",
        same_as_a=same_as_a,
        verdict=verdict_view(trace.confidence) if trace.confidence is not None else None,
        final_rows=stage_rows(trace, trace.stages[-1].stage, relevant, WRAPPED_SNIPPET_CHARS) if trace.stages else [],
        stage_labels=labels,
        picked=picked,
        picked_rows=stage_rows(trace, picked.stage, relevant, WRAPPED_SNIPPET_CHARS) if picked is not None else [],
        overview=stage_overview(trace, relevant) if picked is None else [],
    )


def render_side(side: str, trace: Trace, view: SideView, relevant: dict[int, int]) -> None:
    """The side's notes, verdict, final list, stage lists, and (when open) its timings and
    rank-flow chart."""
    if view.same_as_a:
        st.caption(
            "Same settings as A, so B shows A's run: one run, shown on both sides. Change a setting in B's "
            "configuration to compare."
        )
    render_verdict(side, trace, view.verdict)
    # the answer first: the final list sits right under the verdict, its heading saying what ran
    # and how long it took (one element, not two: each costs the browser a few ms a query)
    st.caption(f"**Final · {len(trace.final)}** · {view.caption}")
    if trace.stages:
        show_table(view.final_rows, "the final stage returned nothing", highlight=True, wrap=True)
    if trace.notes:
        st.info("  \n".join(f"• {md_escape(note)}" for note in trace.notes), icon=":material/info:")
    llm_panels.query_stage_view(trace, key=f"query_stage_{side}")
    _stage_lists(side, view)
    # drawn only while open, and it stays open across queries once opened: a chart and a table a
    # side cost the browser more than the rest of a query's answer
    timings = st.expander("Timings and rank flow", key=side_key(side, "timings"), on_change="rerun")
    if timings.open:
        with timings:
            render_timings(side, trace, relevant, retime=not view.same_as_a)


def render_timings(side: str, trace: Trace, relevant: dict[int, int], retime: bool = True) -> None:
    """Each stage's time, "Time again", and the rank-flow chart: where each final hit ranked at
    every stage. ``retime``: False for a side that shows the other side's run."""
    show_table(timing_rows(trace), "no stages ran", height="auto")
    if retime:
        st.button(
            "Time again",
            key=side_key(side, "retime"),
            on_click=forget_timing,
            args=(side,),
            help="Run this side's query again and measure it afresh (the page otherwise keeps a query's run "
            "for the session, so that clicking around does not re-run a slow rerank).",
        )
    flow = rank_flow(trace)
    if flow.paths:
        labels = {cid: chunk_label(trace.chunks.get(cid), cid) for cid in (p.chunk_id for p in flow.paths)}
        st.plotly_chart(
            rank_flow_figure(flow, relevant=set(relevant), labels=labels),
            key=f"rank_flow_{side}",
            config={"displayModeBar": False},
        )
    else:
        st.caption("Nothing to chart: no stage returned a hit.")


def _stage_lists(side: str, view: SideView) -> None:
    """Every stage at a glance (each stage's hits, time and relevant ranks, one line each), and a
    picker that opens one stage's whole list. Only what is picked is built and sent: a stage's
    list of 50 candidates cost the browser about 80 ms a side on every query, so it is drawn for
    the stage a person picks, and the pick stays for the next queries. The picker is a segmented
    control, not ``st.tabs``: six tabs cost a query's round trip 13-15 ms, the same six choices
    under 1 ms (``bench/bench_app_elements.py``)."""
    st.segmented_control(
        "Stage",
        view.stage_labels,
        key=side_key(side, "stage"),
        label_visibility="collapsed",
        help="All stages: one line a stage. A stage: its whole ranked list.",
    )
    stage = view.picked
    if stage is None:
        st.markdown("  \n".join(md_escape(line) for line in view.overview))
        return
    show_table(view.picked_rows, f"the {stage.stage} stage returned nothing", highlight=stage.stage == FINAL, wrap=True)
    llm_panels.calls_view(stage.llm_calls, key=f"llm_calls_{side}_{stage.stage}")


def _keep_the_picked_stage(key: str, labels: list[str]) -> str:
    """The stage picked, as this run's label: All stages before anything is picked; a stage picked
    for one query stays picked for the next, whose label counts differently ("fusion · 50", then
    "fusion · 0")."""
    picked = st.session_state.get(key, ALL_STAGES)
    if picked is None:  # a click on the picked choice unpicks it
        return ALL_STAGES
    if picked not in labels:
        stage = str(picked).split(" · ")[0]
        picked = next((label for label in labels if label.split(" · ")[0] == stage), ALL_STAGES)
    st.session_state[key] = picked
    return str(picked)


def render_verdict(side: str, trace: Trace, view: VerdictView | None) -> None:
    """Is this side's final list worth answering from? The verdict, and its evidence on demand."""
    confidence = trace.confidence
    if confidence is None or view is None:
        return
    getattr(st, view.kind)(f"**{view.headline}** ({md_escape(view.reason)})", icon=":material/fact_check:")
    evidence = st.expander("Confidence evidence", key=side_key(side, "evidence"), on_change="rerun")
    if not evidence.open:  # drawn when opened, not sent folded with every query
        return
    with evidence:
        show_table(evidence_rows(confidence), "no evidence", height="auto")
        st.caption(
            "Each signal says no_answer below its first threshold and relevant from its second; the verdict "
            "is the mean of the signals counted. Fit the thresholds to this collection with "
            "python -m workbench calibrate."
        )
