"""Download or remove a model from inside the app, wherever a missing model is named.

``offer_download`` puts a "Download NAME (size)" button where a model is missing: the Models
page, the model pickers (rerank, new collection), the language advice. Pressing it shows the
exact size first (from the Hub's metadata), then a progress bar while the files arrive, then
verifies them; a failure shows its message (offline, disk full, interrupted: press again to
resume, corrupt: removed) and nothing else changes. The work is ``workbench.models.download``.
"""

from __future__ import annotations

import re

import streamlit as st

from workbench.models.catalogue import ModelCard
from workbench.models.download import (
    DownloadPlan,
    DownloadProgress,
    ModelDownloadError,
    ModelRemoveError,
    download,
    format_bytes,
    remove,
    size_on_disk,
)
from workbench.ui import session
from workbench.ui.text import md_escape


def widget_key(prefix: str, name: str) -> str:
    return f"{prefix}_{re.sub(r'[^a-z0-9]+', '_', name.lower()).strip('_')}"


def size_label(card: ModelCard) -> str:
    return f" ({card.download_size})" if card.download_size else ""


def offer_download(card: ModelCard, key_prefix: str = "download", *, label: str | None = None) -> None:
    """A button that downloads ``card``'s model here, with its size first and a progress bar."""
    key = widget_key(key_prefix, card.name)
    text = label or f"Download {card.name}{size_label(card)}"
    if st.button(
        text,
        key=key,
        icon=":material/download:",
        help="Fetched once from the Hugging Face Hub (or HF_ENDPOINT) into the Hugging Face cache, "
        "then verified; after that it loads offline.",
    ):
        run_download(card)


def run_download(card: ModelCard) -> None:
    status = st.status(f"Downloading {card.name}: asking the Hub for its files…", expanded=True)
    with status:
        bar = st.progress(0.0, text="Waiting for the file list…")

        def on_plan(plan: DownloadPlan) -> None:
            fetched = plan.total_bytes - plan.to_fetch
            resumed = f", {format_bytes(fetched)} already here" if fetched else ""
            status.update(
                label=f"Downloading {card.name}: {format_bytes(plan.to_fetch)} to fetch "
                f"({plan.files} files, {format_bytes(plan.total_bytes)} in all{resumed})",
                expanded=True,
            )

        def on_progress(progress: DownloadProgress) -> None:
            bar.progress(
                progress.fraction,
                text=f"{format_bytes(progress.done)} of {format_bytes(progress.total)}"
                + (f" · {progress.file}" if progress.file else ""),
            )

        failure: ModelDownloadError | None
        try:
            folder = download(card.name, card.kind, on_plan=on_plan, on_progress=on_progress)
        except ModelDownloadError as error:
            failure = error
        else:
            failure = None
    if failure is not None:  # outside the status box, which folds away
        status.update(label=f"{card.name} was not downloaded", state="error", expanded=False)
        st.error(md_escape(failure), icon=":material/error:")
        return
    status.update(label=f"Downloaded and verified {card.name}", state="complete")
    session.flash(
        "success",
        f"Downloaded and verified **{md_escape(card.name)}** into {md_escape(str(folder))}; it now loads offline.",
    )
    st.rerun()


def offer_remove(card: ModelCard, key_prefix: str = "remove") -> None:
    """A Remove button that asks first: what the removal frees and which collections use the model."""
    pending_key = widget_key(f"{key_prefix}_pending", card.name)
    if st.button(
        f"Remove {card.name}",
        key=widget_key(key_prefix, card.name),
        icon=":material/delete:",
        help="Deletes its files from the Hugging Face cache, after you confirm; collections that use it "
        "cannot embed queries until it is downloaded again.",
    ):
        st.session_state[pending_key] = True
    if not st.session_state.get(pending_key):
        return
    users = [info.name for info in session.collections() if info.embedding_model == card.name]
    uses = (
        f" {'Collection' if len(users) == 1 else 'Collections'} {', '.join(users)} "
        f"{'uses' if len(users) == 1 else 'use'} it and cannot embed queries until it is downloaded again."
        if users
        else " No collection here uses it."
    )
    st.warning(
        md_escape(
            f"Remove {card.name}? This deletes {format_bytes(size_on_disk(card.name, card.kind))} from "
            f"the Hugging Face cache.{uses}"
        ),
        icon=":material/warning:",
    )
    confirm, cancel = st.columns(2)
    if cancel.button("Cancel", key=widget_key(f"{key_prefix}_cancel", card.name)):
        st.session_state.pop(pending_key, None)
        st.rerun()
    if confirm.button(f"Yes, remove {card.name}", key=widget_key(f"{key_prefix}_confirm", card.name), type="primary"):
        st.session_state.pop(pending_key, None)
        try:
            freed = remove(card.name, card.kind)
        except ModelRemoveError as error:
            st.error(md_escape(error))
            return
        session.flash("success", f"Removed **{md_escape(card.name)}**: {format_bytes(freed)} freed.")
        st.rerun()
