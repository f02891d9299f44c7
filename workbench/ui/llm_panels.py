"""Streamlit views of the LLM stages: what a call produced, what it cost, and why an option is off."""

from __future__ import annotations

from typing import Callable, Sequence

import pandas as pd
import streamlit as st

from workbench.chunking.enrich import stored_enrichment
from workbench.llm.client import LlmCall, summarize_calls
from workbench.ui import session
from workbench.ui.text import md_escape


def llm_problem() -> str:
    """Why LLM options are off ("" when an endpoint is configured)."""
    llm = session.workbench().llm()
    return "" if llm.available else llm.problem


def llm_option(widget: Callable, label: str, *, help: str = "", **kwargs):
    """An on/off widget for an LLM feature: disabled, with the reason, when there is no endpoint."""
    problem = llm_problem()
    if problem:
        return widget(label, value=False, disabled=True, help=f"Needs an LLM endpoint, which is {problem}",
                      **kwargs)
    return widget(label, help=help, **kwargs)


def answers_frame(per_query) -> pd.DataFrame | None:
    """One row per query evaluated with --answers: the answer, its metrics, its cost; None without any."""
    rows = []
    for result in per_query:
        answer = result.answer
        if answer is None:
            continue
        cost = answer.get("cost", {})
        rows.append({
            "query id": result.query_id,
            "answer": answer.get("answer", "") or "; ".join(answer.get("notes", [])),
            **{name: answer.get("metrics", {}).get(name) for name in
               ("faithfulness", "answer_relevance", "context_precision", "citations_valid", "quotes_supported")},
            "claims supported": f"{sum(1 for c in answer.get('claims', []) if c.get('supported'))}"
                                f"/{len(answer.get('claims', []))}",
            "calls": cost.get("calls"), "to endpoint": cost.get("endpoint_calls"),
            "tokens": (cost.get("prompt_tokens") or 0) + (cost.get("completion_tokens") or 0),
            "ms": cost.get("elapsed_ms"),
            "notes": "; ".join(answer.get("notes", [])),
        })
    return pd.DataFrame(rows) if rows else None


def enrichment_panel(metadata, mode: str) -> None:
    """A stored chunk's LLM title, summary and tags (``chunking.enrich``), or why it has none."""
    enrichment, error = stored_enrichment(metadata)
    if enrichment is not None:
        lines = [f"**{label}:** {md_escape(value)}" for label, value in (
            ("Title", enrichment.title), ("Summary", enrichment.summary), ("Tags", ", ".join(enrichment.tags)))
            if value]
        st.markdown("LLM enrichment  \n" + "  \n".join(lines))
    elif error:
        st.warning(f"The LLM enrichment of this chunk failed: {md_escape(error)}", icon=":material/warning:")
    elif mode != "none":
        st.caption("This chunk has no LLM enrichment.")


def calls_table(calls: Sequence[LlmCall]) -> pd.DataFrame:
    """One row per call: purpose, what it is about, reply, tokens, milliseconds, cached."""
    return pd.DataFrame([{
        "call": call.purpose,
        "about": call.label,
        "reply": call.text if call.ok else f"failed: {call.error}",
        "prompt tokens": call.prompt_tokens,
        "completion tokens": call.completion_tokens,
        "ms": round(call.elapsed_ms, 1),
        "cached": "yes" if call.cached else "",
        "generated in ms": round(call.generated_ms, 1),
    } for call in calls])


def calls_caption(calls: Sequence[LlmCall]) -> str:
    """``3 LLM calls (1 from the endpoint, 2 cached), 412+9 tokens, 655 ms``."""
    totals = summarize_calls(calls)
    failed = f", {totals['failed']} failed" if totals["failed"] else ""
    return (f"{totals['calls']} LLM call{'s' if totals['calls'] != 1 else ''} ({totals['endpoint_calls']} to the "
            f"endpoint, {totals['cached']} cached{failed}), {totals['prompt_tokens']}+{totals['completion_tokens']} "
            f"tokens, {totals['elapsed_ms']:.0f} ms")


def calls_view(calls: Sequence[LlmCall], key: str) -> None:
    if not calls:
        return
    st.caption(calls_caption(calls))
    st.dataframe(calls_table(calls), hide_index=True, width="stretch", key=key)
