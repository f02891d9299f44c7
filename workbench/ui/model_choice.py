"""Picking an embedding or rerank model from the catalogue, with what each one covers and costs.

Each option shows the model's languages, its download size and whether it is on this machine
(bundled, downloaded, or not yet: then choosing it gives the download command). "Other" takes
any sentence-transformers id or local folder.
"""

from __future__ import annotations

import streamlit as st

from workbench.models.availability import locate
from workbench.models.catalogue import ModelCard, entry, models

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


def model_picker(label: str, kind: str, key: str, current: str, *, allow_none: bool = False,
                 none_label: str = "none", help: str | None = None, disabled: bool = False) -> str:
    """A selectbox over the catalogue (plus "none" and "other"); returns the chosen model name."""
    cards = {card.name: card for card in models(kind)}
    options = ([NONE] if allow_none else []) + list(cards) + [OTHER]
    current = (current or "").strip()
    known = entry(current, kind)
    if known is not None:
        index = options.index(known.name)
    elif not current and allow_none:
        index = 0
    else:
        index = options.index(OTHER)

    def show(option: str) -> str:
        if option == NONE:
            return none_label
        if option == OTHER:
            return "other: a sentence-transformers id or a local folder…"
        return option_label(cards[option])

    chosen = st.selectbox(label, options, index=index, format_func=show, key=key, help=help, disabled=disabled)
    if chosen != OTHER:
        return chosen
    typed = st.text_input(f"{label}: id or folder", value=current if known is None else "", key=f"{key}_other",
                          placeholder="e.g. sentence-transformers/all-mpnet-base-v2 or /models/my-model",
                          disabled=disabled)
    return typed.strip()
