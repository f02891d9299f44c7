"""The Evaluation page's golden-set tab: edit a golden set's queries and judgements, import a
BEIR folder."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.evaluation import golden as golden_sets
from workbench.text import shown_name
from workbench.ui import session
from workbench.ui.access import hidden_in_read_only
from workbench.ui.evaluation_widgets import (
    follow_collection,
)
from workbench.ui.text import md_escape


def render(collection: str) -> None:
    bench = session.workbench()
    names = golden_sets.available(bench.home)
    options = names + ["+ new golden set"]
    follow_collection("golden_edit_pick", collection, options, collection if collection in names else options[0])
    choice = st.selectbox("Golden set", options, key="golden_edit_pick")
    if choice == "+ new golden set":
        name = st.text_input("Name", value=collection, key="golden_new_name")
    else:
        name = choice
    try:
        path = golden_sets.path_for(name, bench.home)
    except golden_sets.GoldenSetError as error:
        st.error(md_escape(error))
        return
    if path.exists():
        golden = golden_sets.load(path)
        spans = sum(1 for q in golden.queries for item in q.relevant if item.is_span)
        st.caption(
            f"{md_escape(str(path))}: {len(golden)} queries, {spans} span judgements. A plain file: edit "
            "it, version it in git."
        )
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "id": q.id,
                        "query": q.query,
                        "documents": ", ".join(q.doc_grades()),
                        "span items": sum(1 for i in q.relevant if i.is_span),
                        "answer": q.answer or "",
                    }
                    for q in golden.queries
                ]
            ),
            hide_index=True,
            width="stretch",
        )
    else:
        st.caption(f"New file: {md_escape(str(path))}")
    if hidden_in_read_only("Changing golden sets"):
        return
    beir_import(bench, name)
    with st.form("golden_add", clear_on_submit=True):
        st.markdown("**Add a judgement** (the Retrieval lab does this when you mark a hit relevant)")
        query = st.text_input("Query id or text", key="golden_add_query")
        documents = [doc for doc in session.documents(collection) if doc.status == "success"]
        doc = st.selectbox(
            "Document", documents, key="golden_add_doc", format_func=lambda d: shown_name(d.external_id or d.source)
        )
        quote = st.text_area(
            "Quote (optional: the passage that answers; empty judges the whole document)", key="golden_add_quote"
        )
        grade = st.number_input(
            "Grade", min_value=0, max_value=3, value=1, key="golden_add_grade", help="0 removes the judgement"
        )
        if st.form_submit_button("Save judgement"):
            if not query.strip() or doc is None:
                st.error("Give a query and pick a document.")
            else:
                item = {"doc": doc.external_id or doc.source, "grade": int(grade)}
                if quote.strip():
                    item["quote"] = quote.strip()
                bench.require_writable("Changing a golden set")
                updated = golden_sets.mark_relevant(path, query, item)
                session.flash(
                    "success", f"Saved: query **{md_escape(updated.id)}** now has {len(updated.relevant)} judgements."
                )
                st.rerun()


def beir_import(bench, name: str) -> None:
    with st.expander("Import judgements from a BEIR folder"):
        st.caption(
            "Reads `queries.jsonl`, `qrels/test.tsv` and `qrels/test_spans.jsonl` (spans are shifted to point "
            "into each document's Markdown). The corpus itself is ingested with "
            "`python -m workbench import-beir FOLDER`."
        )
        folder = st.text_input("BEIR folder", key="golden_beir_folder", placeholder="../shared/datasets/scifact")
        if st.button("Import as this golden set", key="golden_beir_import", disabled=not folder.strip()):
            from pathlib import Path

            from workbench.ingestion.beir import BeirFormatError, import_golden

            try:
                bench.require_writable("Importing a golden set")
                path = import_golden(Path(folder.strip()).expanduser(), name, bench.home)
            except (BeirFormatError, OSError) as error:
                st.error(md_escape(error))
                return
            if path is None:
                st.error("That folder has no queries.jsonl and qrels/test.tsv to import.")
                return
            session.flash("success", f"Imported {len(golden_sets.load(path))} queries into **{md_escape(name)}**.")
            st.rerun()
