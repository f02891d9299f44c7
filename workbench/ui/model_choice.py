"""Picking an embedding or rerank model from the catalogue, with what each one covers and costs.

Each option shows the model's languages, its download size and whether it is on this machine
(bundled, downloaded, or not yet: then a button under the picker downloads it on the spot).
Models downloaded by id join the list; "Other" takes any sentence-transformers id or local folder.
"""

from __future__ import annotations

import streamlit as st

from workbench.models.availability import card_for, is_path_like, locate
from workbench.models.catalogue import ModelCard, entry, models
from workbench.models.inventory import downloaded_names
from workbench.ui.model_downloads import offer_download
from workbench.ui.text import md_escape

OTHER = "__other__"
NONE = ""


def status(card: ModelCard) -> str:
    if card.bundled:
        return "bundled"
    return "downloaded" if locate(card.name, card.kind) is not None else "not downloaded"


def option_label(card: ModelCard) -> str:
    """``BAAI/bge-small-zh-v1.5 — zh · 96 MB · not downloaded``"""
    parts = [card.describe_languages(), card.download_size, status(card)]
    return f"{card.name} — " + " · ".join(part for part in parts if part)


def picker_state(key: str, model: str, kind: str) -> dict[str, str]:
    """The widget values that show ``model`` in ``model_picker(key=key)``: the catalogue entry, a
    downloaded model, "none", or "other" with the name typed in."""
    model = (model or "").strip()
    known = entry(model, kind)
    if known is not None:
        return {key: known.name}
    if not model:
        return {key: NONE}
    if model in downloaded_names(kind):
        return {key: model}
    return {key: OTHER, f"{key}_other": model}


def model_picker(
    label: str,
    kind: str,
    key: str,
    current: str,
    *,
    allow_none: bool = False,
    none_label: str = "none",
    help: str | None = None,
    disabled: bool = False,
    **widget,
) -> str:
    """A selectbox over the catalogue (plus "none" and "other"); returns the chosen model name.

    The widgets start at ``current`` the first time; after that they keep what the user chose
    (set ``picker_state`` into the session to move them).
    """
    cards = {card.name: card for card in models(kind)}
    cards.update({name: card_for(name, kind) for name in downloaded_names(kind)})  # downloaded by id
    options = ([NONE] if allow_none else []) + list(cards) + [OTHER]
    if key not in st.session_state:
        st.session_state.update(picker_state(key, current, kind))
    if st.session_state.get(key) not in options:
        st.session_state[key] = OTHER

    def show(option: str) -> str:
        if option == NONE:
            return none_label
        if option == OTHER:
            return "other: a sentence-transformers id or a local folder…"
        return option_label(cards[option])

    chosen = st.selectbox(label, options, format_func=show, key=key, help=help, disabled=disabled, **widget)
    if chosen != OTHER:
        if chosen in cards and not disabled:
            offer_missing(cards[chosen], key)
        return chosen
    typed = (
        st.text_input(
            f"{label}: id or folder",
            key=f"{key}_other",
            disabled=disabled,
            placeholder="e.g. sentence-transformers/all-mpnet-base-v2 or /models/my-model",
            **widget,
        )
        or ""
    ).strip()
    if typed and not disabled and not is_path_like(typed):
        offer_missing(card_for(typed, kind), key)
    return typed


def offer_missing(card: ModelCard, key: str) -> None:
    """Under a picker: when the chosen model is not on this machine, the download, right there."""
    if card.bundled or locate(card.name, card.kind) is not None:
        return
    st.caption(f"{md_escape(card.name)} is not on this machine yet.")
    offer_download(card, key_prefix=f"{key}_download")
