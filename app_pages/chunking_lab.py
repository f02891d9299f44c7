"""Chunking lab: two chunkings of one document side by side, drawn over its Markdown, with chunk
lengths against the model's limit; either one can be applied to the whole collection."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from workbench.chunking.preview import ChunkPreview, preview_chunking
from workbench.chunking.window import LEFT_WHOLE
from workbench.config import DEFAULT_PRESET, ChunkingConfig, WorkbenchConfig, overrides_between
from workbench.ui import session
from workbench.ui.access import hidden_in_read_only
from workbench.ui.chunk_bands import bands_html
from workbench.ui.figures import token_histogram
from workbench.ui.text import md_escape
from workbench.ui.widgets import chunking_controls, document_label, require_collection, require_documents


@st.cache_data(show_spinner="Chunking…", max_entries=64)
def cached_preview(doc_id: int, sha256: str, chunking: ChunkingConfig, model: str) -> ChunkPreview:
    # keyed by the document's content hash too: a re-uploaded document gets a fresh preview
    markdown, _ = session.document_markdown(doc_id)
    return preview_chunking(markdown, chunking, session.embedder(model))


def contrasting_chunking(chunking: ChunkingConfig) -> ChunkingConfig:
    """Side B's starting point: fixed token windows near the model's limit, unless A is that."""
    if chunking.strategy == "fixed" and chunking.unit == "tokens":
        return replace(chunking, strategy="recursive", unit="chars", size=1000, overlap=100)
    return replace(chunking, strategy="fixed", unit="tokens", size=200, overlap=40)


def window_advice(described: str, chunking: ChunkingConfig) -> str:
    """What the chunks over the window mean, and the setting that changes it."""
    if not chunking.fit_window:
        return f"{described}. Tick “Cut chunks to the model's window” (chunking.fit_window) to cut them to fit."
    return f"{described}; {LEFT_WHOLE}."


def preset_name_for(chunking: ChunkingConfig) -> str:
    unit = "t" if chunking.unit == "tokens" else "c"
    return f"{chunking.strategy}-{chunking.size}{unit}-{chunking.overlap}"


def show_side(side: str, initial: ChunkingConfig, markdown: str, doc, model: str, collection: str) -> None:
    st.subheader(f"Chunking {side}")
    with st.expander("Settings", expanded=True):
        chunking = chunking_controls(f"chunk_lab_{side}", initial)
    try:
        preview = cached_preview(doc.id, doc.sha256, chunking, model)
    except ValueError as error:  # settings no splitter can honour; the message names the key
        st.error(md_escape(error))
        return
    stats = preview.token_stats()
    count, median, over = st.columns(3)
    count.metric("Chunks", preview.count)
    median.metric("Median tokens", f"{stats['median']:.0f}")
    over.metric(
        "Over the model's window",
        preview.over_limit,
        help=f"Chunks longer than the model's maximum sequence length ({preview.max_tokens} tokens) "
        "are cut off when embedded: vector search never sees their end.",
    )
    overflow = preview.overflow
    if overflow is not None and overflow.over:
        st.warning(md_escape(window_advice(overflow.describe(model), chunking)), icon=":material/content_cut:")
    uncovered = len(markdown) - preview.covered_chars
    st.caption(
        f"{preview.overlap_chars:,} characters repeated in overlaps; "
        + (
            f"{uncovered:,} characters in no chunk (whitespace or markup the strategy drops)."
            if uncovered
            else "every character is in some chunk."
        )
    )
    st.plotly_chart(token_histogram(preview.token_counts, preview.max_tokens), key=f"chunk_lab_hist_{side}")
    st.html(bands_html(markdown, preview.spans))
    apply_panel(side, chunking, collection)


def apply_panel(side: str, chunking: ChunkingConfig, collection: str) -> None:
    if hidden_in_read_only(f"Applying chunking {side}"):
        return
    with st.expander(f"Apply chunking {side} to the collection", icon=":material/done_all:"):
        st.caption(
            "Chunks every document of the collection this way and builds its indexes. Only chunk texts "
            "that are not already in the embedding cache are embedded. Queries use the new chunking "
            "through a preset, which is saved and selected."
        )
        suggested = preset_name_for(chunking)
        # keyed by the suggestion, so the name follows the settings (a keyed widget keeps its value)
        name = st.text_input("Preset name", value=suggested, key=f"chunk_lab_{side}_preset_{suggested}")
        make_default = st.checkbox(
            f"Make it the default preset of {md_escape(collection)}", value=True, key=f"chunk_lab_{side}_default"
        )
        if st.button(f"Apply chunking {side}", key=f"chunk_lab_apply_{side}", type="primary"):
            apply_chunking(collection, chunking, name.strip(), make_default)


def apply_chunking(collection: str, chunking: ChunkingConfig, preset: str, make_default: bool) -> None:
    if not preset:
        st.error("Give the preset a name: it is how queries select this chunking.")
        return
    bench = session.workbench()
    bench.require_writable("Applying a chunking")  # it writes chunks, indexes and a preset
    target: WorkbenchConfig = replace(session.current_config(), chunking=chunking)
    embedded = {"texts": 0}
    with st.status(
        f"Applying {md_escape(preset_name_for(chunking))} to {md_escape(collection)}", expanded=True
    ) as status:
        bar = st.progress(0.0, text="Checking which documents need chunks")

        def on_progress(event) -> None:
            if event.stage == "chunk":
                bar.progress(
                    0.5 * event.done / max(event.total, 1), text=f"Chunking document {event.done}/{event.total}"
                )
            elif event.stage == "embed":
                embedded["texts"] = event.total
                bar.progress(
                    0.5 + 0.4 * event.done / max(event.total, 1),
                    text=f"Embedding {event.done}/{event.total} new chunk texts",
                )

        bench.snapshot(collection, target, progress=on_progress)
        bar.progress(1.0, text="Indexes ready")
        status.update(
            label=f"Applied: embedded {embedded['texts']} new chunk texts, the rest came from the cache",
            state="complete",
            expanded=False,
        )
    overrides = overrides_between(bench.config_for(collection, DEFAULT_PRESET), target)
    bench.save_preset(preset, overrides, f"chunking {preset_name_for(chunking)} (Chunking lab)")
    if make_default:
        bench.set_default_preset(collection, preset)
    session.request_preset(preset)
    session.flash(
        "success",
        f"Applied the chunking to **{md_escape(collection)}**: embedded "
        f"{embedded['texts']} new chunk texts. Preset **{md_escape(preset)}** is selected"
        + (" and is now the collection's default." if make_default else "."),
    )
    st.rerun()


st.title("Chunking lab")
current = require_collection("chunk")
ready = require_documents(current, "chunk")
by_id = {doc.id: doc for doc in ready}
chosen = by_id[
    st.selectbox("Document", list(by_id), format_func=lambda i: document_label(by_id[i]), key="chunk_lab_document")
]
base = session.current_config()
text, _ = session.document_markdown(chosen.id)
st.caption(
    f"{len(text):,} characters of canonical Markdown. Coloured bands are chunks (numbered where they "
    f"start); striped text with a red underline is in two chunks (overlap); grey text is in none. "
    f"Token counts use {md_escape(base.embedding.model)}'s tokenizer."
)
side_a, side_b = st.columns(2, gap="medium")
with side_a:
    show_side("A", base.chunking, text, chosen, base.embedding.model, current)
with side_b:
    show_side("B", contrasting_chunking(base.chunking), text, chosen, base.embedding.model, current)
