"""The Retrieval lab's "Explain a hit": one chunk's rank and score at every stage, and the
arithmetic behind each (BM25 terms, cosine, the fusion sum, MMR, rerank), from
``workbench.analysis.explain``; plus the widgets that mark the hit relevant in a golden set."""

from __future__ import annotations

import streamlit as st

from workbench.analysis.explain import HitExplanation, explain_hit
from workbench.analysis.explain_routes import route_text
from workbench.analysis.golden_matches import GoldenLookup
from workbench.analysis.tables import hit_choices
from workbench.analysis.verdict import hit_term_coverage, verdict_view
from workbench.config import WorkbenchConfig
from workbench.retrieval.stages import DENSE, MMR
from workbench.retrieval.trace import Trace
from workbench.ui import session
from workbench.ui.data_tables import show_table
from workbench.ui.lab_golden import render_marking
from workbench.ui.text import md_escape

#: the lab's "Explain a hit" panel: folded, it draws nothing
PANEL_KEY = "lab_explain_open"
SIDE_KEY = "lab_explain_side"


def render_explain(
    traces: dict[str, Trace],
    configs: dict[str, WorkbenchConfig],
    snapshots: dict,
    relevant: dict[str, dict[int, int]],
    lookup: GoldenLookup,
) -> None:
    sides = list(traces)
    session.forget_stale_choice(SIDE_KEY, sides)
    side = (
        st.segmented_control("Side", sides, format_func=str.upper, key=SIDE_KEY, default=sides[0], required=True)
        or sides[0]
    )
    trace = traces[side]
    select_key = f"lab_explain_hit_{side}"
    choices = hit_choices(trace) if len(trace.final) else []
    if not choices:
        st.session_state.pop(select_key, None)
        st.caption(
            f"Side {side.upper()} returned no hits for this query, so there is none to explain; change the "
            "query or the configuration."
        )
        return
    labels = dict(choices)
    # a pick belongs to the query it was made for: a new query starts from its own first hit (set,
    # not forgotten, so that the browser's widget follows)
    asked_key = f"{select_key}_query"
    if st.session_state.get(asked_key) != trace.query or st.session_state.get(select_key) not in labels:
        st.session_state[select_key] = choices[0][0]
        st.session_state[asked_key] = trace.query
    chunk_id = st.selectbox(
        "Hit",
        list(labels),
        format_func=lambda cid: ("✓ " if cid in relevant[side] else "") + labels[cid],
        key=select_key,
        help="Any chunk of any stage: the final list first, then the ones that dropped out",
    )
    render_marking(trace.chunks.get(chunk_id), trace.query, lookup)
    if trace.confidence is not None:
        view = verdict_view(trace.confidence)
        st.caption(f"Side {side.upper()}'s verdict: {md_escape(view.headline)} ({md_escape(view.reason)})")
    config = configs[side]
    vector = None
    if trace.stage(DENSE) is not None or trace.stage(MMR) is not None:
        # the text the dense route searched with: the query, or a rewrite or HyDE passage
        vector = session.workbench().embed_query(config.embedding.key, route_text(trace, DENSE)[0])
    show_explanation(explain_hit(trace, snapshots[side], chunk_id, vector))


def show_explanation(explained: HitExplanation) -> None:
    if explained.chunk is not None:
        with st.expander("Chunk text"):
            st.text(explained.chunk.text)
    if explained.query is not None:
        query = explained.query
        st.markdown(f"**Query stage ({md_escape(query.method)})** — the routes searched with:")
        show_table(
            [{"text": v.text, "from": v.origin, "routes": " + ".join(v.routes)} for v in query.variants], "", "auto"
        )
        for call in query.calls:
            st.caption(md_escape(call.describe()))
    st.caption("Rank and score at each stage")
    show_table([{"stage": p.stage, "rank": p.rank, "score": p.score} for p in explained.positions], "", "auto")
    for route in explained.variants:
        st.markdown(
            f"**{md_escape(route.terms[0].route.split(' (')[0])}: RRF over the query texts** — "
            f"score {route.stage_score:.6f}"
        )
        st.code("\n".join([route.formula, *(t.formula for t in route.terms)]), language=None, wrap_lines=True)
    if explained.bm25 is not None:
        bm25 = explained.bm25
        listed = (
            f"bm25 stage: rank {bm25.stage_rank}, score {bm25.stage_score:.4f}"
            if bm25.stage_score is not None
            else "the bm25 stage did not list this chunk (or did not run)"
        )
        st.markdown(f"**BM25** (k1 = {bm25.k1:g}, b = {bm25.b:g}, N = {bm25.num_chunks} chunks) — {listed}")
        show_table(
            [
                {
                    "word": t.shown,
                    "indexed as": t.term,
                    "query count": t.query_count,
                    "tf": t.tf,
                    "df": t.df,
                    "idf": t.idf,
                    "doc length": t.doc_len,
                    "avg length": t.avg_doc_len,
                    "contribution": t.contribution,
                }
                for t in bm25.terms
            ],
            "The query has no terms BM25 indexes (all stopwords?).",
            "auto",
        )
        coverage = hit_term_coverage(bm25.terms, bm25.num_chunks)
        if coverage is not None:
            words = {t.term: t.shown for t in bm25.terms}  # the query's words, not the index's stems
            missing = f"; missing: {', '.join(words.get(m, m) for m in coverage.missing)}" if coverage.missing else ""
            st.caption(
                md_escape(
                    f"This hit holds {len(coverage.matched)} of the query's "
                    f"{len(coverage.matched) + len(coverage.missing)} terms, {coverage.coverage:.0%} of "
                    f"their idf weight (the confidence verdict's terms signal){missing}."
                )
            )
        st.code("\n".join([bm25.formula, *(t.formula for t in bm25.terms)]), language=None, wrap_lines=True)
    if explained.bm25_server is not None:
        server = explained.bm25_server
        st.markdown(f"**BM25**, scored by {server.backend}: no term breakdown — {md_escape(server.reason)}")
        show_table(
            [
                {"term": term, "query count": in_query, "tf (workbench tokenizer)": in_chunk}
                for term, in_query, in_chunk in server.matched
            ],
            "No query term occurs in this chunk.",
            "auto",
        )
        st.code(server.formula, language=None, wrap_lines=True)
    if explained.cosine is not None:
        cosine = explained.cosine
        listed = (
            f"dense stage: rank {cosine.stage_rank}, score {cosine.stage_score:.6f}"
            if cosine.stage_score is not None
            else "the dense stage did not list this chunk (or did not run)"
        )
        st.markdown(f"**Cosine similarity** — {listed}")
        st.code(cosine.formula, language=None, wrap_lines=True)
    if explained.fusion is not None:
        fusion = explained.fusion
        st.markdown(f"**Fusion ({fusion.method})** — rank {fusion.stage_rank}, score {fusion.stage_score:.6f}")
        st.code("\n".join([fusion.formula, *(t.formula for t in fusion.terms)]), language=None, wrap_lines=True)
    if explained.mmr is not None:
        st.markdown(
            f"**MMR** — rank {explained.mmr.stage_rank}" + ("" if explained.mmr.selected else " (not selected)")
        )
        st.code(explained.mmr.formula, language=None, wrap_lines=True)
    if explained.rerank is not None:
        st.markdown("**Rerank**" + (" (LLM, pointwise)" if explained.rerank.call is not None else ""))
        st.code(explained.rerank.formula, language=None, wrap_lines=True)
    for note in explained.notes:
        st.caption(md_escape(note))
