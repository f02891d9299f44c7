"""Streamlit views of the LLM stages: what a call produced, what it cost, and why an option is off."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd
import streamlit as st

from workbench.analysis.tables import variant_rows
from workbench.chunking.enrich import stored_enrichment
from workbench.config import KEY_DOCS, key_limits
from workbench.llm.client import LlmCall, summarize_calls
from workbench.retrieval.enhance import needs_llm
from workbench.retrieval.llm_cost import setting_uses_endpoint
from workbench.ui import config_inputs, session
from workbench.ui.text import md_escape


def llm_problem() -> str:
    """Why LLM options are off ("" when an endpoint is configured)."""
    llm = session.workbench().llm()
    return "" if llm.available else llm.problem


def llm_option(widget: Callable, label: str, *, help: str = "", **kwargs):
    """An on/off widget for an LLM feature: off and disabled, with the reason, when there is no endpoint."""
    problem = llm_problem()
    if problem:
        if "key" in kwargs:
            st.session_state[kwargs["key"]] = False
        return widget(label, disabled=True, help=f"Needs an LLM endpoint, which is {problem}", **kwargs)
    return widget(label, help=help, **kwargs)


def usable_enhance_methods() -> tuple[str, ...]:
    """``query.enhance`` values that can run now: all with an endpoint, else none and keywords."""
    methods = key_limits("query.enhance").choices
    return methods if not llm_problem() else tuple(m for m in methods if not needs_llm(m))


def query_controls(state: Callable[[str], dict]) -> dict[str, object]:
    """The lab's query-enhancement settings; LLM methods are listed as disabled, with the reason,
    when there is no endpoint."""
    usable = usable_enhance_methods()
    values: dict[str, object] = {}
    left, right = st.columns(2)
    values["query.enhance"] = left.selectbox(
        "Query enhancement", usable, help=KEY_DOCS["query.enhance"], **state("query.enhance")
    )
    method = values["query.enhance"]
    values["query.variants"] = config_inputs.number_input(
        right,
        "Generated queries",
        "query.variants",
        step=1,
        disabled=method not in ("multi", "decompose"),
        **state("query.variants"),
    )
    values["query.keywords"] = config_inputs.number_input(
        right, "Keywords kept", "query.keywords", step=1, disabled=method != "keywords", **state("query.keywords")
    )
    disabled = [m for m in key_limits("query.enhance").choices if m not in usable]
    if disabled:
        left.caption(f"Disabled: {', '.join(disabled)} need an LLM endpoint, which is {md_escape(llm_problem())}")
    return values


def query_stage_view(trace, key: str) -> None:
    """What the query stage searched with, and its LLM calls (text, tokens, ms)."""
    enhanced = trace.enhancement
    if enhanced is None:
        return
    with st.expander(
        f"Query stage ({enhanced.method}, {enhanced.elapsed_ms:.0f} ms): "
        f"{len(enhanced.variants)} text{'s' if len(enhanced.variants) != 1 else ''} searched",
        expanded=True,
    ):
        st.dataframe(pd.DataFrame(variant_rows(trace)), hide_index=True, width="stretch", key=f"{key}_variants")
        calls_view(enhanced.calls, key=f"{key}_calls")


def answers_frame(per_query) -> pd.DataFrame | None:
    """One row per query evaluated with --answers: the answer, its metrics, its cost; None without any."""
    rows = []
    for result in per_query:
        answer = result.answer
        if answer is None:
            continue
        cost = answer.get("cost", {})
        rows.append(
            {
                "query id": result.query_id,
                "answer": answer.get("answer", "") or "; ".join(answer.get("notes", [])),
                **{
                    name: answer.get("metrics", {}).get(name)
                    for name in (
                        "faithfulness",
                        "answer_relevance",
                        "context_precision",
                        "citations_valid",
                        "quotes_supported",
                    )
                },
                "claims supported": f"{sum(1 for c in answer.get('claims', []) if c.get('supported'))}"
                f"/{len(answer.get('claims', []))}",
                "calls": cost.get("calls"),
                "to endpoint": cost.get("endpoint_calls"),
                "tokens": (cost.get("prompt_tokens") or 0) + (cost.get("completion_tokens") or 0),
                "ms": cost.get("elapsed_ms"),
                "notes": "; ".join(answer.get("notes", [])),
            }
        )
    return pd.DataFrame(rows) if rows else None


def enrichment_panel(metadata, mode: str) -> None:
    """A stored chunk's LLM title, summary and tags (``chunking.enrich``), or why it has none."""
    enrichment, error = stored_enrichment(metadata)
    if enrichment is not None:
        lines = [
            f"**{label}:** {md_escape(value)}"
            for label, value in (
                ("Title", enrichment.title),
                ("Summary", enrichment.summary),
                ("Tags", ", ".join(enrichment.tags)),
            )
            if value
        ]
        st.markdown("LLM enrichment  \n" + "  \n".join(lines))
    elif error:
        st.warning(f"The LLM enrichment of this chunk failed: {md_escape(error)}", icon=":material/warning:")
    elif mode != "none":
        st.caption("This chunk has no LLM enrichment.")


def calls_table(calls: Sequence[LlmCall]) -> pd.DataFrame:
    """One row per call: purpose, what it is about, reply, tokens, milliseconds, cached."""
    return pd.DataFrame(
        [
            {
                "call": call.purpose,
                "about": call.label,
                "reply": call.text if call.ok else f"failed: {call.error}",
                "prompt tokens": call.prompt_tokens,
                "completion tokens": call.completion_tokens,
                "ms": round(call.elapsed_ms, 1),
                "cached": "yes" if call.cached else "",
                "generated in ms": round(call.generated_ms, 1),
            }
            for call in calls
        ]
    )


def calls_caption(calls: Sequence[LlmCall]) -> str:
    """``3 LLM calls (1 from the endpoint, 2 cached), 412+9 tokens, 655 ms``."""
    totals = summarize_calls(calls)
    failed = f", {totals['failed']} failed" if totals["failed"] else ""
    return (
        f"{totals['calls']} LLM call{'s' if totals['calls'] != 1 else ''} ({totals['endpoint_calls']} to the "
        f"endpoint, {totals['cached']} cached{failed}), {totals['prompt_tokens']}+{totals['completion_tokens']} "
        f"tokens, {totals['elapsed_ms']:.0f} ms"
    )


def calls_view(calls: Sequence[LlmCall], key: str) -> None:
    if not calls:
        return
    st.caption(calls_caption(calls))
    st.dataframe(calls_table(calls), hide_index=True, width="stretch", key=key)


def needs_endpoint_caption(key: str, value) -> None:
    """Under a setting whose value calls the LLM: that it will not, and why, when there is no endpoint."""
    problem = llm_problem() if setting_uses_endpoint(key, value) else ""
    if problem:
        st.caption(f":orange[{key}={value} needs an LLM endpoint, which is {md_escape(problem)}]")


def enrichment_controls(prefix: str, initial) -> tuple[str, bool]:
    """``chunking.enrich`` and ``chunking.enrich_index``: disabled, with the reason, without an endpoint."""
    problem = llm_problem()
    modes = key_limits("chunking.enrich").choices
    if problem:
        # disabled, and its help says why (a caption here would crowd both Chunking lab columns)
        st.selectbox(
            "LLM enrichment (title, summary, tags)",
            modes,
            index=modes.index(initial.enrich),
            disabled=True,
            key=f"{prefix}.enrich",
            help=f"Needs an LLM endpoint, which is {problem}",
        )
        return initial.enrich, initial.enrich_index
    enrich = st.selectbox(
        "LLM enrichment (title, summary, tags)",
        modes,
        index=modes.index(initial.enrich),
        key=f"{prefix}.enrich",
        help=KEY_DOCS["chunking.enrich"],
    )
    enrich_index = st.checkbox(
        "Index the enrichment with the chunk",
        value=initial.enrich_index,
        disabled=enrich == "none",
        key=f"{prefix}.enrich_index",
        help=KEY_DOCS["chunking.enrich_index"],
    )
    return enrich, bool(enrich_index)
