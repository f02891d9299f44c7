"""What the Evaluation page's tabs share: the golden-set picker that follows the sidebar's
collection, the level and metrics pickers, export buttons, and the session key of the run shown."""

from __future__ import annotations

import streamlit as st

from workbench.evaluation import export
from workbench.evaluation import golden as golden_sets
from workbench.evaluation import metrics as m
from workbench.evaluation.compare import Comparison
from workbench.evaluation.judged import LEVELS, choose_level
from workbench.evaluation.runner import EvaluationResult
from workbench.ui import session
from workbench.ui.text import md_escape

#: the Evaluation page's tab picker (its value is the open tab's label); only the open tab is drawn
TAB_KEY = "evaluation_tab"

METRIC_CHOICES = (
    "ndcg@5",
    "ndcg@10",
    "map@100",
    "mrr@10",
    "recall@5",
    "recall@10",
    "recall@20",
    "recall@50",
    "recall@100",
    "precision@5",
    "precision@10",
    "hit@1",
    "hit@5",
    "hit@10",
)
LEVEL_HELP = (
    "**doc**: a document ranks where its best chunk ranks. **span**: the unit is the chunk; a chunk "
    "is relevant when it overlaps a judged span (or holds the quote), so the judgement survives "
    "re-chunking. Queries without spans are skipped at span level."
)
SHOWN_RUN_KEY = "evaluation_shown_run"
COMPARISON_KEY = "evaluation_comparison"
SWEEP_KEY = "evaluation_sweep"
#: query-time keys offered first in the sweep builder, with example values
SWEEP_SUGGESTIONS = {
    "fusion.method": "rrf,weighted",
    "fusion.k": "10,30,60",
    "fusion.weights": "0.3,0.7;0.5,0.5;0.7,0.3",
    "fusion.normalization": "minmax,zscore",
    "retrieval.mode": "bm25,dense,hybrid",
    "retrieval.candidates": "50,100,200",
    "mmr.enabled": "false,true",
    "mmr.lambda": "0.5,0.7,0.9",
    "chunking.size": "500,1000",
    "chunking.strategy": "recursive,markdown",
    "query.enhance": "none,keywords,multi,hyde",
    "rerank.method": "cross_encoder,llm",
}


# -- shared pickers -------------------------------------------------------------------------------


def follow_collection(key: str, collection: str, options: list[str], default: str) -> None:
    """Point ``key``'s picker at ``default`` when the sidebar's collection changes (another
    collection's golden set is not this one's) or its pick is no longer offered. Set through the
    session state, which the browser's widget follows, rather than forgotten, which it would not."""
    marker = f"{key}_collection"
    if st.session_state.get(marker) != collection or st.session_state.get(key) not in options:
        st.session_state[key] = default
        st.session_state[marker] = collection


def golden_picker(collection: str, key: str) -> golden_sets.GoldenSet | None:
    names = session.golden_sets_for(collection)
    if not names:
        st.info(
            f"No golden set judges the documents of {md_escape(collection)} yet. Create one in the **Golden "
            "sets** tab or the **From your documents** tab (or mark hits relevant in the Retrieval lab), or "
            "import a BEIR folder: `python -m workbench import-beir FOLDER`.",
            icon=":material/info:",
        )
        return None
    follow_collection(key, collection, names, session.preferred_golden_set(collection) or names[0])
    name = st.selectbox(
        "Golden set",
        names,
        key=key,
        help="The golden sets that judge this collection's documents: JSONL files in the home's "
        "golden_sets/ folder and the project's golden_sets/.",
    )
    return golden_sets.find(name, session.workbench().home)


def level_and_metrics(key: str, golden: golden_sets.GoldenSet | None = None) -> tuple[str, tuple[str, ...]]:
    """The level (by default the one ``golden`` was judged at) and the metrics chosen."""
    left, right = st.columns([1, 3])
    level = left.radio(
        "Level", LEVELS, index=judged_index(golden), horizontal=True, key=f"{key}_level", help=LEVEL_HELP
    )
    chosen = right.multiselect(
        "Metrics",
        METRIC_CHOICES,
        default=list(m.DEFAULT_METRICS),
        key=f"{key}_metrics",
        accept_new_options=True,
        help="Type any metric@k, e.g. recall@30.",
    )
    valid: list[str] = []
    for name in chosen:
        try:
            valid.extend(m.validate([name]))
        except ValueError as error:  # a typed metric: say why it is left out, keep the others
            st.error(md_escape(error))
    return level, tuple(dict.fromkeys(valid)) or m.DEFAULT_METRICS


def judged_index(golden: golden_sets.GoldenSet | None) -> int:
    """The position in ``LEVELS`` of the level ``golden`` was judged at (doc without a set)."""
    return LEVELS.index(choose_level(golden).level) if golden is not None else 0


def download_buttons(what: EvaluationResult | Comparison, stem: str, key: str) -> None:
    columns = st.columns(3)
    for column, fmt, mime in zip(columns, export.FORMATS, ("text/markdown", "text/html", "text/csv"), strict=False):
        column.download_button(
            f"Export {fmt.upper()}",
            export.render(what, fmt),
            file_name=f"{stem}.{fmt}",
            mime=mime,
            key=f"{key}_{fmt}",
            icon=":material/download:",
        )
