"""Retrieval lab: one query, two query-time configurations side by side, every stage explained.

A thin page: it draws widgets and renders values. The numbers come from ``workbench.analysis``
(rank flow, diff, explanations, relevance, table rows), ``workbench.generation.context`` and
``workbench.generation.answer``. Both sides run through ``Workbench.query``, which reuses the loaded
indexes and the query-vector cache, so changing a parameter re-runs only the cheap stages.
All document text, file names and queries are shown as text (dataframes, ``st.text``,
``st.code``) or as escaped Markdown, never as HTML.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd
import streamlit as st

from workbench.analysis.charts import rank_flow_figure
from workbench.analysis.diff import diff_finals
from workbench.analysis.explain import HitExplanation, explain_hit
from workbench.analysis.rank_flow import rank_flow
from workbench.analysis.relevance import (
    DOCUMENT_LEVEL,
    MARK_LEVELS,
    SPAN_LEVEL,
    GoldenLookup,
    describe_item,
    find_golden_query,
    golden_query_key,
    judgement_for_hit,
    judgements_of_document,
    relevant_in_collection,
    relevant_in_run,
)
from workbench.analysis.side_config import (
    describe,
    differences,
    instructive_variant,
    side_config,
    side_values,
)
from workbench.analysis.tables import (
    RELEVANT_COLUMN,
    chunk_label,
    context_rows,
    diff_rows,
    hit_choices,
    stage_rows,
    timing_rows,
)
from workbench.config import CHOICES, KEY_DOCS, ConfigError, WorkbenchConfig, dumps
from workbench.generation.context import DEFAULT_BUDGET_CHARS, assemble_context, build_prompt, check_citations
from workbench.evaluation import golden
from workbench.evaluation.golden import GoldenSetError
from workbench.generation.answer import generate, settings_from_env
from workbench.retrieval.trace import Trace
from workbench.ui import session
from workbench.ui.pages import run_through_router
from workbench.ui.text import md_escape

run_through_router()

SIDES = ("a", "b")
QUERY_KEY = "lab_query"
GOLDEN_PICK_KEY = "lab_golden_pick"
TRACE_CACHE_KEY = "lab_trace_cache"
ANSWER_KEY = "lab_answer"
TRACE_CACHE_SIZE = 8
MARK_SET_KEY = "lab_mark_set"
MARK_NEW_NAME_KEY = "lab_mark_new_name"
MARK_LEVEL_KEY = "lab_mark_level"
MARK_GRADE_KEY = "lab_mark_grade"
MARK_MESSAGE_KEY = "lab_mark_message"
#: the golden-set choice that creates a new set rather than naming one
NEW_SET = "New golden set…"
RELEVANT_STYLE = "background-color: rgba(46, 160, 67, 0.22)"
TABLE_HEIGHT = 320
#: the lab's settings and query survive a visit to another page
PERSIST = "session"
WEIGHT_KEYS = ("fusion.weights.dense", "fusion.weights.bm25")
#: widget limits, generous so a preset's values always fit
INT_LIMITS = {
    "retrieval.top_k": (1, 1000),
    "retrieval.candidates": (1, 10_000),
    "fusion.k": (0, 10_000),
    "mmr.pool": (1, 10_000),
    "rerank.top_m": (1, 10_000),
    "dense.ef_search": (1, 100_000),
}


def _key(side: str, name: str) -> str:
    return f"lab_{side}_{name}"


# -- side configuration widgets ------------------------------------------------------------------

def _starting_values(side: str, base: WorkbenchConfig) -> dict[str, object]:
    values = side_values(base)
    return instructive_variant(values) if side == "b" else values


def _write_widget_state(side: str, values: dict[str, object]) -> None:
    for name, value in values.items():
        if name == "fusion.weights":
            weights = list(value) + [0.0, 0.0]
            for weight_key, weight in zip(WEIGHT_KEYS, weights):
                st.session_state[_key(side, weight_key)] = min(max(float(weight), 0.0), 10.0)
        elif name in INT_LIMITS:
            low, high = INT_LIMITS[name]
            st.session_state[_key(side, name)] = min(max(int(value), low), high)
        elif name == "mmr.lambda":
            st.session_state[_key(side, name)] = float(value)
        else:
            st.session_state[_key(side, name)] = value


def _sync_with_preset(side: str, base: WorkbenchConfig, signature: str) -> None:
    """Start (or restart) a side from the sidebar's collection and preset when they change;
    in between, the side's widgets keep whatever the user set."""
    marker = _key(side, "base")
    if st.session_state.get(marker) != signature:
        _write_widget_state(side, _starting_values(side, base))
        st.session_state[marker] = signature


def _reset_side(side: str, values: dict[str, object]) -> None:
    _write_widget_state(side, values)


def _side_controls(side: str, base: WorkbenchConfig) -> dict[str, object]:
    """The side's query-time settings as widgets; returns their values keyed like QUERY_TIME_KEYS."""

    def widget(name: str, doc_key: str | None = None) -> dict:
        # every setting: its own session key, kept across page visits, documented from KEY_DOCS
        return {"key": _key(side, name), "persist_state": PERSIST, "help": KEY_DOCS[doc_key or name]}

    values: dict[str, object] = {}
    left, right = st.columns(2)
    values["retrieval.mode"] = left.selectbox("Retrieval mode", CHOICES["retrieval.mode"], **widget("retrieval.mode"))
    values["retrieval.top_k"] = right.number_input("Top k", *INT_LIMITS["retrieval.top_k"], step=1,
                                                   **widget("retrieval.top_k"))
    values["retrieval.candidates"] = left.number_input("Candidates per route", *INT_LIMITS["retrieval.candidates"],
                                                       step=10, **widget("retrieval.candidates"))
    hybrid = values["retrieval.mode"] == "hybrid"
    values["fusion.method"] = right.selectbox("Fusion", CHOICES["fusion.method"], disabled=not hybrid,
                                              **widget("fusion.method"))
    rrf = values["fusion.method"] == "rrf"
    values["fusion.k"] = left.number_input("RRF k", *INT_LIMITS["fusion.k"], step=10, disabled=not (hybrid and rrf),
                                           **widget("fusion.k"))
    values["fusion.normalization"] = right.selectbox("Normalisation", CHOICES["fusion.normalization"],
                                                     disabled=not hybrid or rrf, **widget("fusion.normalization"))
    dense_weight = left.number_input("Dense weight", 0.0, 10.0, step=0.1, disabled=not hybrid or rrf,
                                     **widget(WEIGHT_KEYS[0], "fusion.weights"))
    bm25_weight = right.number_input("BM25 weight", 0.0, 10.0, step=0.1, disabled=not hybrid or rrf,
                                     **widget(WEIGHT_KEYS[1], "fusion.weights"))
    values["fusion.weights"] = (float(dense_weight), float(bm25_weight))
    values["mmr.enabled"] = left.toggle("MMR", **widget("mmr.enabled"))
    values["mmr.lambda"] = right.slider("MMR λ", 0.0, 1.0, step=0.05, disabled=not values["mmr.enabled"],
                                        **widget("mmr.lambda"))
    values["mmr.pool"] = left.number_input("MMR pool", *INT_LIMITS["mmr.pool"], step=10,
                                           disabled=not values["mmr.enabled"], **widget("mmr.pool"))
    no_dense = values["retrieval.mode"] == "bm25"
    values["dense.ef_search"] = right.number_input("HNSW ef_search", *INT_LIMITS["dense.ef_search"], step=16,
                                                   disabled=no_dense, **widget("dense.ef_search"))
    values["dense.exact"] = left.toggle("Exact dense search", disabled=no_dense, **widget("dense.exact"))
    values["rerank.model"] = st.text_input("Rerank model", placeholder="empty = no rerank; a CrossEncoder id or "
                                           "local path", **widget("rerank.model")).strip()
    values["rerank.top_m"] = st.number_input("Rerank top m", *INT_LIMITS["rerank.top_m"], step=5,
                                             disabled=not values["rerank.model"], **widget("rerank.top_m"))
    st.button("Reset to the preset", key=_key(side, "reset"), on_click=_reset_side,
              args=(side, _starting_values(side, base)),
              help="Side A starts as the sidebar preset; side B as the preset with MMR switched the other way.")
    return values


# -- running --------------------------------------------------------------------------------------

def _run_side(collection: str, query: str, config: WorkbenchConfig):
    """The side's trace and the snapshot it ran on; traces are kept per session, so widgets that
    do not change the query (explain, context) never re-run a slow rerank."""
    bench = session.workbench()
    if config.retrieval.mode != "bm25" or config.mmr.enabled:
        session.embedder(config.embedding.model)  # the first load shows a spinner
    snapshot = bench.snapshot(collection, config)
    cache: dict = st.session_state.setdefault(TRACE_CACHE_KEY, {})
    cache_key = (collection, query, dumps(config), str(snapshot.folder))
    trace = cache.get(cache_key)
    if trace is None:
        trace = bench.query(query, collection, config)
        cache[cache_key] = trace
        while len(cache) > TRACE_CACHE_SIZE:
            cache.pop(next(iter(cache)))
    return trace, snapshot


def _golden_files_signature(home: Path) -> tuple:
    """Changes whenever a golden set file is added, removed or rewritten."""
    entries = []
    for folder in golden.search_paths(home):
        if folder.is_dir():
            for path in sorted(folder.glob("*.jsonl")):
                stat = path.stat()
                entries.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(entries)


@st.cache_data(show_spinner=False, max_entries=256)
def _golden_lookup(home: str, query: str, prefer: str | None, signature: tuple) -> GoldenLookup:
    return find_golden_query(query, Path(home), prefer)


@st.cache_data(show_spinner=False, max_entries=16)
def _golden_queries(home: str, signature: tuple) -> dict[str, str]:
    """Every query of every readable golden set: "set · id" -> query text."""
    found = {}
    for name in golden.available(Path(home)):
        try:
            found.update({f"{name} · {q.id}": q.query for q in golden.find(name, Path(home)).queries})
        except GoldenSetError:
            continue  # reported by the lookup when the query is run
    return found


@st.cache_data(show_spinner=False, max_entries=64)
def _cached_relevance(folder: str, generation, query, _snapshot) -> dict[int, int]:
    return relevant_in_collection(query, _snapshot, markdown=lambda doc_id: session.document_markdown(doc_id)[0])


def _relevant_in_collection(query, snapshot) -> dict[int, int]:
    """The query's relevant chunks over the whole layout, judged once per query and index version."""
    return _cached_relevance(str(snapshot.folder), snapshot.generation, query, snapshot)


def _pick_golden_query(golden_queries: dict[str, str]) -> None:
    picked = st.session_state.get(GOLDEN_PICK_KEY)
    if picked in golden_queries:
        st.session_state[QUERY_KEY] = golden_queries[picked]


# -- rendering ------------------------------------------------------------------------------------

def _frame(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    for column in frame.columns:
        values = frame[column]
        present = values.dropna()
        # ranks with gaps would otherwise turn into floats and show as "3.0000"
        if len(present) < len(values) and len(present) and all(
                isinstance(v, int) and not isinstance(v, bool) for v in present):
            frame[column] = values.astype("Int64")
    return frame


def _show_table(rows: list[dict], empty: str, height: int | str = TABLE_HEIGHT, highlight: bool = False) -> None:
    """A read-only table; relevant rows are marked ✓ and, with ``highlight``, get a green background.

    Row styling goes through a pandas Styler, which costs tens of milliseconds per table against
    about one for a plain one. Styling every stage list of both sides would blow the lab's
    half-second re-render budget, so only the lists a reader compares (finals, diff, context)
    are styled; the candidate lists keep the ✓ column.
    """
    if not rows:
        st.caption(empty)
        return
    frame = _frame(rows)
    column_config = {column: st.column_config.NumberColumn(format="%.4f")
                     for column in frame.columns if pd.api.types.is_float_dtype(frame[column])}
    column_config[RELEVANT_COLUMN] = st.column_config.TextColumn(RELEVANT_COLUMN, width="small",
                                                                 help="relevant in the golden set")
    data = frame
    if highlight and RELEVANT_COLUMN in frame.columns and (frame[RELEVANT_COLUMN] != "").any():
        data = frame.style.format(precision=4, na_rep="").apply(
            lambda row: [RELEVANT_STYLE if row[RELEVANT_COLUMN] else ""] * len(row), axis=1)
    st.dataframe(data, hide_index=True, height=height if len(rows) > 8 else "auto", column_config=column_config)


def _render_side(side: str, trace: Trace, config: WorkbenchConfig, relevant: dict[int, int]) -> None:
    st.caption(f"{md_escape(describe(config))} · {trace.total_ms:.1f} ms in total")
    if trace.notes:
        st.info("  \n".join(f"• {md_escape(note)}" for note in trace.notes), icon=":material/info:")
    stage_names = trace.stage_names()
    tabs = st.tabs([f"{stage.stage} · {len(stage.ranked)}" for stage in trace.stages])
    for tab, name in zip(tabs, stage_names):
        with tab:
            _show_table(stage_rows(trace, name, relevant), f"the {name} stage returned nothing",
                        highlight=name == "final")
    st.caption("Timings")
    _show_table(timing_rows(trace), "no stages ran", height="auto")
    flow = rank_flow(trace)
    if flow.paths:
        labels = {cid: chunk_label(trace.chunks.get(cid), cid) for cid in (p.chunk_id for p in flow.paths)}
        st.plotly_chart(rank_flow_figure(flow, relevant=set(relevant), labels=labels), key=f"rank_flow_{side}",
                        config={"displayModeBar": False})
    else:
        st.caption("Nothing to chart: no stage returned a hit.")


def _render_golden_summary(lookup: GoldenLookup, snapshot, traces: dict[str, Trace],
                           relevant: dict[str, dict[int, int]]) -> None:
    for problem in lookup.problems:
        st.warning(f"A golden set could not be read: {md_escape(problem)}")
    if lookup.match is None:
        return
    in_collection = _relevant_in_collection(lookup.match.query, snapshot)
    in_final = {side: sum(1 for cid in trace.final.chunk_ids() if cid in relevant[side])
                for side, trace in traces.items()}
    found = ", ".join(f"{side.upper()} has {count} in its final list" for side, count in in_final.items())
    st.success(
        f"This is query {md_escape(lookup.match.query.id)} of golden set {md_escape(lookup.match.set_name)}: "
        f"{len(in_collection)} relevant chunks in this collection; {found}. Relevant chunks are marked ✓ in "
        "every list, highlighted in the final lists, the diff and the context, and starred in the rank flow.",
        icon=":material/verified:")


def _render_diff(traces: dict[str, Trace], relevant: dict[int, int]) -> None:
    st.subheader("A vs B: the final lists")
    diff = diff_finals(traces["a"].final, traces["b"].final)
    if diff.identical:
        st.caption("A and B return the same final list in the same order.")
    else:
        st.caption(f"{diff.overlap} chunks in both ({len(diff.moved)} moved), {len(diff.entered)} entered B, "
                   f"{len(diff.left)} left A. ▲ n: B ranks it n places higher than A.")
    views = {**traces["a"].chunks, **traces["b"].chunks}
    _show_table(diff_rows(diff, views, relevant), "Both final lists are empty.", highlight=True)


def _forget_stale_choice(key: str, options) -> None:
    """Drop a remembered choice that is no longer offered (a new query, a side that failed),
    so the widget starts from its default instead of refusing the old value."""
    if key in st.session_state and st.session_state[key] not in options:
        del st.session_state[key]


def _render_explain(traces: dict[str, Trace], configs: dict[str, WorkbenchConfig], snapshots: dict,
                    relevant: dict[str, dict[int, int]], lookup: GoldenLookup) -> None:
    st.subheader("Explain a hit")
    sides = list(traces)
    _forget_stale_choice("lab_explain_side", sides)
    side = st.segmented_control("Side", sides, format_func=str.upper, key="lab_explain_side",
                                default=sides[0], required=True) or sides[0]
    trace = traces[side]
    choices = hit_choices(trace)
    if not choices:
        st.caption("This side returned no hits; change the query or the configuration.")
        return
    labels = dict(choices)
    select_key = f"lab_explain_hit_{side}"
    _forget_stale_choice(select_key, labels)
    chunk_id = st.selectbox("Hit", list(labels), format_func=lambda cid: ("✓ " if cid in relevant[side] else "")
                            + labels[cid], key=select_key,
                            help="Any chunk of any stage: the final list first, then the ones that dropped out")
    _render_marking(trace.chunks.get(chunk_id), trace.query, lookup)
    config = configs[side]
    vector = None
    if trace.stage("dense") is not None or trace.stage("mmr") is not None:
        vector = session.workbench().embed_query(config.embedding.model, trace.query)
    _show_explanation(explain_hit(trace, snapshots[side], chunk_id, vector))


# -- marking hits relevant -----------------------------------------------------------------------------

def _chosen_set_name() -> str | None:
    """The golden set the marking widgets point at: an existing set, or the new name typed."""
    chosen = st.session_state.get(MARK_SET_KEY)
    if chosen == NEW_SET:
        return (st.session_state.get(MARK_NEW_NAME_KEY) or "").strip() or None
    return chosen


def _mark_hit(chunk, query_text: str, lookup: GoldenLookup, mark: bool) -> None:
    """Button callback: runs before the rerun, so the rerun already highlights the new judgement."""
    name = _chosen_set_name()
    if name is None:
        st.session_state[MARK_MESSAGE_KEY] = ("error", "Type a name for the new golden set first.")
        return
    try:
        path = golden.path_for(name, session.home_path())
        item = judgement_for_hit(chunk, st.session_state.get(MARK_LEVEL_KEY, SPAN_LEVEL),
                                 int(st.session_state.get(MARK_GRADE_KEY, 1)))
        query_key = golden_query_key(name, lookup, query_text)
        if mark:
            recorded = golden.mark_relevant(path, query_key, item)
            message = ("success", f"Marked {describe_item(item)} relevant to query {recorded.id} in {path}.")
        elif golden.unmark_relevant(path, query_key, item) is None:
            message = ("warning", f"Golden set {name} has no such query, so there was nothing to unmark.")
        else:
            message = ("success", f"Removed {describe_item(item)} from golden set {name} ({path}).")
    except (GoldenSetError, OSError) as error:
        message = ("error", f"Could not change golden set {name}: {error}")
    else:
        # a new set now exists: point the choice at it, so the next mark goes to the same file
        st.session_state[MARK_SET_KEY] = name
    st.session_state[MARK_MESSAGE_KEY] = message


def _render_marking(chunk, query_text: str, lookup: GoldenLookup) -> None:
    """Widgets that record the chosen hit as relevant (or not) in a golden set file."""
    if chunk is None:
        return
    with st.container(border=True):
        st.markdown("**Mark this hit relevant** to the query, in a golden set (JSONL in the home's "
                    "`golden_sets/`, or where an existing set lives)")
        names = golden.available(session.home_path())
        options = names + [NEW_SET]
        _forget_stale_choice(MARK_SET_KEY, options)
        preferred = lookup.match.set_name if lookup.match else None
        left, middle, right = st.columns([2, 2, 1])
        chosen = left.selectbox("Golden set", options, key=MARK_SET_KEY,
                                index=options.index(preferred) if preferred in options else len(options) - 1,
                                help="Its judgements are the ones highlighted while it holds the query.")
        if chosen == NEW_SET:
            left.text_input("New set name", key=MARK_NEW_NAME_KEY, placeholder="letters, digits, - or _",
                            help="Creates <home>/golden_sets/<name>.jsonl on the first mark.")
        middle.radio("Judge", MARK_LEVELS, key=MARK_LEVEL_KEY, index=MARK_LEVELS.index(SPAN_LEVEL),
                     horizontal=True, format_func=lambda level: {
                         DOCUMENT_LEVEL: "the whole document", SPAN_LEVEL: "this chunk's span"}[level],
                     help="A span records the chunk's character range in its document, so it survives "
                          "re-chunking; the whole document makes every chunk of it relevant.")
        right.number_input("Grade", 1, 10, value=1, step=1, key=MARK_GRADE_KEY,
                           help="Graded relevance: the gain nDCG gives this judgement.")
        buttons = st.columns([1, 1, 3])
        buttons[0].button("Mark relevant", key="lab_mark", icon=":material/check:", on_click=_mark_hit,
                          args=(chunk, query_text, lookup, True))
        buttons[1].button("Unmark", key="lab_unmark", icon=":material/close:", on_click=_mark_hit,
                          args=(chunk, query_text, lookup, False),
                          help="Removes the judgement of the chosen kind (document or span) for this hit.")
        name = _chosen_set_name()
        if lookup.match is not None and name == lookup.match.set_name:
            recorded = judgements_of_document(lookup.match.query, chunk)
            st.caption(f"What {md_escape(name)} records about this document for the query:")
            st.text("\n".join(describe_item(item) for item in recorded) or "nothing")
        elif name:
            st.caption(f"Golden set {md_escape(name)} does not hold this query yet; marking adds it.")
        message = st.session_state.pop(MARK_MESSAGE_KEY, None)
        if message is not None:
            kind, text = message
            {"success": st.success, "warning": st.warning, "error": st.error}[kind](md_escape(text))


def _show_explanation(explained: HitExplanation) -> None:
    if explained.chunk is not None:
        with st.expander("Chunk text"):
            st.text(explained.chunk.text)
    st.caption("Rank and score at each stage")
    _show_table([{"stage": p.stage, "rank": p.rank, "score": p.score} for p in explained.positions], "", "auto")
    if explained.bm25 is not None:
        bm25 = explained.bm25
        listed = (f"bm25 stage: rank {bm25.stage_rank}, score {bm25.stage_score:.4f}" if bm25.stage_score is not None
                  else "the bm25 stage did not list this chunk (or did not run)")
        st.markdown(f"**BM25** (k1 = {bm25.k1:g}, b = {bm25.b:g}, N = {bm25.num_chunks} chunks) — {listed}")
        _show_table([{"term": t.term, "query count": t.query_count, "tf": t.tf, "df": t.df, "idf": t.idf,
                      "doc length": t.doc_len, "avg length": t.avg_doc_len, "contribution": t.contribution}
                     for t in bm25.terms], "The query has no terms BM25 indexes (all stopwords?).", "auto")
        st.code("\n".join([bm25.formula, *(t.formula for t in bm25.terms)]), language=None, wrap_lines=True)
    if explained.cosine is not None:
        cosine = explained.cosine
        listed = (f"dense stage: rank {cosine.stage_rank}, score {cosine.stage_score:.6f}"
                  if cosine.stage_score is not None else "the dense stage did not list this chunk (or did not run)")
        st.markdown(f"**Cosine similarity** — {listed}")
        st.code(cosine.formula, language=None, wrap_lines=True)
    if explained.fusion is not None:
        fusion = explained.fusion
        st.markdown(f"**Fusion ({fusion.method})** — rank {fusion.stage_rank}, score {fusion.stage_score:.6f}")
        st.code("\n".join([fusion.formula, *(t.formula for t in fusion.terms)]), language=None, wrap_lines=True)
    if explained.mmr is not None:
        st.markdown(f"**MMR** — rank {explained.mmr.stage_rank}"
                    + ("" if explained.mmr.selected else " (not selected)"))
        st.code(explained.mmr.formula, language=None, wrap_lines=True)
    if explained.rerank is not None:
        st.markdown("**Rerank**")
        st.code(explained.rerank.formula, language=None, wrap_lines=True)
    for note in explained.notes:
        st.caption(md_escape(note))


def _render_context(traces: dict[str, Trace], relevant: dict[str, dict[int, int]]) -> None:
    st.subheader("Context and prompt")
    left, right = st.columns(2)
    with left:
        sides = list(traces)
        _forget_stale_choice("lab_context_side", sides)
        side = st.segmented_control("Build the context from", sides, format_func=str.upper,
                                    key="lab_context_side", default=sides[0], required=True) or sides[0]
    budget = right.number_input("Character budget", 200, 1_000_000, value=DEFAULT_BUDGET_CHARS, step=500,
                                key="lab_context_budget", help="Whole hits are kept while they fit; the next one "
                                "is cut if enough room is left, the rest are left out.")
    trace = traces[side]
    context = assemble_context(trace.final_chunks(), int(budget))
    if not context.sources:
        st.caption(f"Side {side.upper()} returned no hits, so there is no context.")
    else:
        _show_table(context_rows(context, trace.chunks, relevant[side]), "", "auto", highlight=True)
        if context.omitted:
            st.caption(f"{len(context.omitted)} more hits did not fit the {context.budget}-character budget.")
        st.code(context.text, language=None, wrap_lines=True)
    prompt = build_prompt(trace.query, context)
    with st.expander("The prompt it would make"):
        st.code(prompt.as_text(), language=None, wrap_lines=True)
    _render_generation(prompt, context)


def _render_generation(prompt, context) -> None:
    lookup = settings_from_env()
    if not lookup.configured:
        st.info(f"Answer generation is off: {md_escape(lookup.problem)}.", icon=":material/key:")
        return
    settings = lookup.settings
    prompt_id = hashlib.sha256(prompt.as_text().encode("utf-8")).hexdigest()
    st.caption(f"Endpoint {md_escape(settings.endpoint)} · model {md_escape(settings.model)}")
    if st.button("Generate the answer", key="lab_generate", icon=":material/auto_awesome:"):
        with st.spinner("Waiting for the model…"):
            st.session_state[ANSWER_KEY] = (prompt_id, generate(prompt.messages(), settings))
    stored = st.session_state.get(ANSWER_KEY)
    if not stored or stored[0] != prompt_id:
        return
    result = stored[1]
    if not result.ok:
        st.error(md_escape(result.error))
        return
    st.text(result.text)
    cited, unknown = check_citations(result.text, context)
    if cited:
        st.caption("Cited sources")
        st.text("\n".join(s.header for s in cited))
    else:
        st.warning("The answer cites no source; it may not come from the context.")
    if unknown:
        st.warning(f"The answer cites sources the context does not have: {md_escape(', '.join(unknown))}.")
    st.caption(f"{result.elapsed_ms / 1000:.1f} s · {md_escape(result.model)}")


# -- the page -------------------------------------------------------------------------------------

def main() -> None:
    st.title("Retrieval lab")
    collection = session.current_collection()
    if collection is None:
        st.info("There is no collection to search yet. Load the bundled demo from the sidebar, or create a "
                "collection and add documents on the Documents page; then come back here.")
        return
    info = session.collection_info(collection)
    if info is not None and info.chunks == 0:
        st.info(f"Collection {md_escape(collection)} has no chunks yet. Add documents on the Documents page "
                "(or load the demo from the sidebar), then come back to query it.")
        return
    preset = session.current_preset()
    base = session.current_config(collection, preset)
    home = session.home_path()
    golden_signature = _golden_files_signature(home)

    golden_queries = _golden_queries(str(home), golden_signature)
    query_column, pick_column = st.columns([3, 2])
    query_column.text_input("Query", key=QUERY_KEY, persist_state=PERSIST,
                            placeholder="Ask a question or type keywords",
                            help="Both sides run this query. A query from a golden set highlights its relevant chunks.")
    if golden_queries:
        pick_column.selectbox("…or pick a golden query", list(golden_queries), index=None, key=GOLDEN_PICK_KEY,
                              on_change=_pick_golden_query, args=(golden_queries,),
                              placeholder=f"{len(golden_queries)} golden queries",
                              format_func=lambda pick: f"{pick}: {golden_queries[pick]}")
    query = st.session_state.get(QUERY_KEY, "").strip()

    signature = f"{collection}\x00{preset}\x00{dumps(base)}"
    columns = st.columns(2, gap="medium")
    containers, configs = {}, {}
    for side, column in zip(SIDES, columns):
        _sync_with_preset(side, base, signature)
        with column:
            containers[side] = st.container(key=f"side_{side}")
            with containers[side]:
                st.subheader(f"{side.upper()}")
                with st.expander("Configuration", expanded=True):
                    values = _side_controls(side, base)
                try:
                    configs[side] = side_config(base, values)
                except ConfigError as error:
                    st.error(f"This configuration is not valid: {md_escape(error)}")
    if "a" in configs and "b" in configs:
        changed = differences(configs["a"], configs["b"])
        with containers["b"]:
            st.caption("Differs from A in: " + (md_escape(", ".join(f"{k} = {v}" for k, v in changed.items()))
                                                if changed else "nothing (both sides run the same configuration)"))
    if not query:
        st.info("Type a query above, or pick a golden query, to run A and B side by side.", icon=":material/search:")
        return
    if len(configs) < 2:
        return

    traces, snapshots = {}, {}
    for side in SIDES:
        try:
            with st.spinner(f"Running side {side.upper()}…"):
                traces[side], snapshots[side] = _run_side(collection, query, configs[side])
        except Exception as error:  # shown, not raised: the other side and the rest of the page still work
            with containers[side]:
                st.error(f"Side {side.upper()} could not run: {md_escape(f'{type(error).__name__}: {error}')}. "
                         "Check this side's configuration (a rerank or embedding model must be available "
                         "locally).")
    if not traces:
        return

    # the set the user marks hits into is the one whose judgements are shown, when it has the query
    prefer = st.session_state.get(MARK_SET_KEY) or collection
    lookup = _golden_lookup(str(home), query, prefer, golden_signature)
    snapshot = next(iter(snapshots.values()))
    judged = _relevant_in_collection(lookup.match.query, snapshot) if lookup.match else {}
    relevant = {side: relevant_in_run(judged, trace.chunks) for side, trace in traces.items()}
    _render_golden_summary(lookup, snapshot, traces, relevant)
    for side, trace in traces.items():
        with containers[side]:
            _render_side(side, trace, configs[side], relevant[side])
    st.divider()
    if len(traces) == 2:
        _render_diff(traces, {**relevant["a"], **relevant["b"]})
        st.divider()
    _render_explain(traces, configs, snapshots, relevant, lookup)
    st.divider()
    _render_context(traces, relevant)


main()
