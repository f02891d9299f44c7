"""The Retrieval lab's "Context and prompt": one side's final hits assembled into a context under
a character budget (``workbench.generation.context``), the prompt it makes, and, when an
OpenAI-compatible endpoint is configured, the generated answer with its citations checked."""

from __future__ import annotations

import hashlib

import streamlit as st

from workbench.analysis.tables import context_rows
from workbench.generation.answer import answer_request
from workbench.generation.citing import matched_places
from workbench.generation.context import DEFAULT_BUDGET_CHARS, assemble_context, build_prompt, check_citations
from workbench.retrieval.confidence import AMBIGUOUS, NO_ANSWER, Confidence
from workbench.retrieval.trace import Trace
from workbench.ui import session
from workbench.ui.access import hidden_in_read_only
from workbench.ui.data_tables import show_table
from workbench.ui.text import md_escape

#: the lab's "Context and prompt" panel: folded, it draws nothing
PANEL_KEY = "lab_context_open"
SIDE_KEY = "lab_context_side"
BUDGET_KEY = "lab_context_budget"
ANSWER_KEY = "lab_answer"
BUDGET_RANGE = (200, 1_000_000)


def render_context(traces: dict[str, Trace], snapshots: dict, relevant: dict[str, dict[int, int]]) -> None:
    left, right = st.columns(2)
    with left:
        sides = list(traces)
        session.forget_stale_choice(SIDE_KEY, sides)
        side = (
            st.segmented_control(
                "Build the context from", sides, format_func=str.upper, key=SIDE_KEY, default=sides[0], required=True
            )
            or sides[0]
        )
    budget = right.number_input(
        "Character budget",
        *BUDGET_RANGE,
        value=DEFAULT_BUDGET_CHARS,
        step=500,
        key=BUDGET_KEY,
        help="Whole hits are kept while they fit; the next one is cut if enough room is left, the rest are left out.",
    )
    trace = traces[side]
    # each source cited where its match lies, as MCP's citations are (a document read only for a
    # chunk that may cross a section or page boundary)
    chunks = trace.final_chunks()
    places = matched_places(trace.query, chunks, snapshots[side], session.workbench().markdown)
    context = assemble_context(chunks, int(budget), places)
    if not context.sources:
        st.caption(f"Side {side.upper()} returned no hits, so there is no context.")
    else:
        show_table(context_rows(context, trace.chunks, relevant[side]), "", "auto", highlight=True)
        if context.omitted:
            st.caption(f"{len(context.omitted)} more hits did not fit the {context.budget}-character budget.")
        st.code(context.text, language=None, wrap_lines=True)
    prompt = build_prompt(trace.query, context)
    with st.expander("The prompt it would make"):
        st.code(prompt.as_text(), language=None, wrap_lines=True)
    render_generation(trace.query, prompt, context, trace.confidence)


def retrieval_doubt(confidence: Confidence | None) -> str:
    """What the answer step must say first when retrieval is not sure the context holds the answer."""
    if confidence is None:
        return ""
    if confidence.verdict == NO_ANSWER:
        return (
            "Retrieval's verdict is no_answer: this context probably does not hold the answer. Whatever the "
            "model writes from it is a reply to check against the sources, not an answer."
        )
    if confidence.verdict == AMBIGUOUS:
        return "Retrieval's verdict is ambiguous: check the answer against the sources it cites."
    return ""


def render_generation(question: str, prompt, context, confidence: Confidence | None = None) -> None:
    if hidden_in_read_only("Answer generation (an LLM call)"):
        return
    llm = session.workbench().llm()
    settings = llm.settings  # None when no endpoint is available
    if settings is None:
        st.info(f"Answer generation is off: {md_escape(llm.problem)}.", icon=":material/key:")
        return
    doubt = retrieval_doubt(confidence)
    if doubt:
        st.warning(doubt, icon=":material/help:")
    prompt_id = hashlib.sha256(prompt.as_text().encode("utf-8")).hexdigest()
    st.caption(f"Endpoint {md_escape(settings.endpoint)} · model {md_escape(settings.model)}")
    if st.button("Generate the answer", key="lab_generate", icon=":material/auto_awesome:"):
        with st.spinner("Waiting for the model…"):
            # through the reply cache: the same context and question never pay twice
            call = llm.complete(answer_request(question, context), timeout_s=settings.timeout_s)
            st.session_state[ANSWER_KEY] = (prompt_id, call)
    stored = st.session_state.get(ANSWER_KEY)
    if not stored or stored[0] != prompt_id:
        return
    result = stored[1]
    if not result.ok:
        st.error(md_escape(result.error))
        return
    if confidence is not None and confidence.verdict == NO_ANSWER:
        st.caption("The model's reply (not an answer: retrieval found nothing it trusts)")
    st.text(result.text)
    cited, unknown = check_citations(result.text, context)
    if cited:
        st.caption("Cited sources")
        st.text("\n".join(s.header for s in cited))
    else:
        st.warning("The answer cites no source; it may not come from the context.")
    if unknown:
        st.warning(f"The answer cites sources the context does not have: {md_escape(', '.join(unknown))}.")
    st.caption(md_escape(result.describe()) + f" · {md_escape(result.model)}")
