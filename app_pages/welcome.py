"""Welcome: what the workbench is, the demo offer on an empty home, the collections otherwise."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.text import shown_name
from workbench.ui import session
from workbench.ui.access import read_only
from workbench.ui.demo_loader import load_demo_with_progress
from workbench.ui.pages import (
    CHUNKING_LAB,
    DOCUMENTS,
    EMBEDDING_MAP,
    EVALUATION,
    PRESETS_MCP,
    RETRIEVAL_LAB,
    TOUR,
)
from workbench.ui.text import md_escape
from workbench.ui.widgets import page_link

st.title("RAG Workbench")
st.markdown(
    "Build a knowledge base from your documents and see every stage of retrieval: how documents are "
    "chunked, what dense and BM25 search each find, how fusion, MMR and reranking reorder them, and "
    "how the choices score on a golden set. The same knowledge base is served to AI assistants over MCP."
)

infos = session.collections()
if not infos:
    st.subheader("Start with the demo")
    st.markdown(
        "This home is empty. The bundled demo holds 40 SciFact abstracts, four short documents about RAG "
        "(Markdown, PDF and Word) and a golden set of 24 questions. Loading it takes about 30 seconds; "
        "after that every page has something to show."
    )
    if not read_only() and st.button(
        "Load the demo", key="welcome_load_demo", type="primary", icon=":material/rocket_launch:"
    ):
        load_demo_with_progress()
    st.markdown("Prefer your own files? Create a collection and upload them on the Documents page.")
    page_link(DOCUMENTS, "Go to Documents")
    st.stop()

demo = session.demo_status()
if demo.total and not demo.complete:
    if demo.partial:
        st.subheader("Finish loading the demo")
        st.warning(
            f"The demo is incomplete ({md_escape(demo.describe())}): its last load was interrupted. "
            "Loading it again adds the missing documents; nothing already in is parsed or embedded again."
        )
    else:
        st.subheader("Try the demo")
        st.markdown(
            "The bundled demo (40 SciFact abstracts, four documents about RAG and a 24-question golden set) "
            "loads beside your collections as “demo”."
        )
    if not read_only() and st.button(
        "Load the demo", key="welcome_load_demo", type="primary", icon=":material/rocket_launch:"
    ):
        load_demo_with_progress()

st.subheader("Collections in this home")
st.dataframe(
    pd.DataFrame(
        [
            {
                "collection": shown_name(i.name),
                "documents": i.documents,
                "chunks": i.chunks,
                "embedding model": i.embedding_model,
                "default preset": i.default_preset,
                "incomplete": i.interrupted,
            }
            for i in infos
        ]
    ),
    hide_index=True,
    width="stretch",
)

st.subheader("Where to go next")
left, right = st.columns(2)
with left:
    page_link(TOUR, "Guided tour: the stages, one at a time")
    page_link(DOCUMENTS, "Documents: upload, inspect, delete")
    page_link(CHUNKING_LAB, "Chunking lab: compare chunkings on one document")
    page_link(RETRIEVAL_LAB, "Retrieval lab: one query, every stage, two configurations")
with right:
    page_link(EMBEDDING_MAP, "Embedding map: the chunk vectors in 2-D")
    page_link(EVALUATION, "Evaluation: score configurations on a golden set")
    page_link(PRESETS_MCP, "Presets & MCP: save a configuration, connect an assistant")
