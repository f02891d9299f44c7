"""Models: every embedding and rerank model, where it stands on this machine, download and remove.

A thin page over ``workbench.models.inventory`` (the rows) and ``workbench.ui.model_downloads``
(the buttons, the progress bar and the messages).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.models.availability import card_for, hub_cache_dir, is_path_like
from workbench.models.catalogue import EMBEDDING, RERANK
from workbench.models.download import format_bytes, hub_endpoint
from workbench.models.inventory import BUNDLED, DOWNLOADED, inventory
from workbench.ui import session
from workbench.ui.model_downloads import offer_download, offer_remove, widget_key
from workbench.ui.runtime_table import runtime_panel
from workbench.ui.text import md_escape

KIND_TITLES = {EMBEDDING: "Embedding models (embedding.model)", RERANK: "Rerank models (rerank.model)"}


def model_table(rows) -> None:
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "model": row.card.name,
                    "languages": row.card.describe_languages(),
                    "download": row.card.download_size or "",
                    "on disk": format_bytes(row.size_on_disk) if row.size_on_disk else "",
                    "status": row.status,
                    "cached in": str(row.folder or row.cache_folder),
                    "about": row.card.summary,
                }
                for row in rows
            ]
        ),
        hide_index=True,
        width="stretch",
    )


def model_actions(rows) -> None:
    for row in rows:
        with st.container(border=True, key=widget_key("model", row.card.name)):
            name_column, action_column = st.columns([3, 2], vertical_alignment="center")
            facts = " · ".join(
                part
                for part in (
                    row.card.describe_languages(),
                    row.status,
                    format_bytes(row.size_on_disk) if row.size_on_disk else "",
                )
                if part
            )
            name_column.markdown(f"**{md_escape(row.card.name)}** — {md_escape(facts)}")
            with action_column:
                if row.status == BUNDLED:
                    st.caption("Bundled with the workbench; nothing to download.")
                elif row.status == DOWNLOADED:
                    offer_remove(row.card)
                else:
                    offer_download(row.card)


def other_model() -> None:
    st.subheader("Another model from the Hub")
    name = st.text_input(
        "Model id",
        key="models_other_id",
        placeholder="e.g. BAAI/bge-base-zh-v1.5",
        help="Any sentence-transformers or cross-encoder model on the Hugging Face Hub. Once "
        "downloaded it is listed above (a cross-encoder among the rerank models) and offered "
        "in the pickers.",
    ).strip()
    if name and not is_path_like(name):
        offer_download(card_for(name, EMBEDDING), key_prefix="models_other_download")


st.title("Models")
st.caption(
    f"Downloaded models live in {md_escape(str(hub_cache_dir()))} (HF_HUB_CACHE) and come from "
    f"{md_escape(hub_endpoint())} (HF_ENDPOINT). A download shows its size first, then its progress, and "
    "checks every file against the Hub's sizes and hashes; after that the model loads offline. The same from "
    "a terminal: python -m workbench models list / download NAME / remove NAME."
)
all_rows = inventory()
for kind, title in KIND_TITLES.items():
    st.subheader(title)
    rows = [row for row in all_rows if row.card.kind == kind]
    model_table(rows)
    model_actions(rows)
other_model()
# last: the tables read the home's calibration, and the download box above must not wait for them
st.subheader("Encoder runtimes on this machine (embedding.runtime, rerank.runtime)")
runtime_panel(session.workbench(), None, page="models")
