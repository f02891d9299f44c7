"""Widgets several pages share: empty states, page links, chunking controls, the config editor."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import streamlit as st

from workbench.chunking import CHUNKERS
from workbench.config import KEY_DOCS, ChunkingConfig, ConfigError, Lifetime, WorkbenchConfig, key_limits, lifetime_of
from workbench.text import shown_name
from workbench.ui import config_inputs, llm_panels, session
from workbench.ui.pages import DOCUMENTS, PageSpec
from workbench.ui.text import md_escape


def page_link(page: PageSpec, label: str | None = None) -> None:
    """A link to ``page``, or nothing while that page does not exist yet."""
    if page.exists:
        st.page_link(page.path, label=label or page.title, icon=page.icon)


def require_collection(purpose: str) -> str:
    """The current collection; without one, explain what to do next and stop the page."""
    name = session.current_collection()
    if name is None:
        st.info(
            f"There is no collection yet, so there is nothing to {purpose}. Load the bundled demo with "
            "the button in the sidebar (about 30 s), or create a collection and upload files on the "
            "Documents page.",
            icon=":material/info:",
        )
        page_link(DOCUMENTS, "Go to Documents")
        st.stop()
    return name


def require_documents(collection: str, purpose: str) -> list:
    """The collection's successfully ingested documents; without any, explain and stop."""
    documents = [doc for doc in session.documents(collection) if doc.status == "success"]
    if not documents:
        st.info(
            f"Collection **{md_escape(collection)}** has no ingested documents yet, so there is nothing "
            f"to {purpose}. Upload files on the Documents page.",
            icon=":material/info:",
        )
        page_link(DOCUMENTS, "Go to Documents")
        st.stop()
    return documents


def document_label(doc) -> str:
    """How a document appears in pickers (selectbox options are plain text)."""
    title = " ".join((doc.title or "").split())
    name = doc.source if not title or title == doc.source else f"{doc.source} — {title}"
    name = shown_name(name)
    return name if len(name) <= 90 else name[:89] + "…"


# -- chunking ---------------------------------------------------------------------------------

STRATEGY_NAMES = CHUNKERS.names()
#: which strategies read which settings (the rest ignore them, so they are not shown)
USES_OVERLAP = {"fixed", "recursive", "markdown", "semantic"}


def chunking_controls(prefix: str, initial: ChunkingConfig) -> ChunkingConfig:
    """Widgets for one chunking; keys start with ``prefix`` so two can sit side by side."""
    strategy = st.selectbox(
        "Strategy",
        STRATEGY_NAMES,
        index=STRATEGY_NAMES.index(initial.strategy),
        key=f"{prefix}.strategy",
        help="\n\n".join(f"**{name}**: {chunker.doc}" for name, chunker in CHUNKERS.items()),
    )
    left, right = st.columns(2)
    units = config_inputs.choices("chunking.unit")
    unit = left.radio(
        "Unit",
        units,
        index=units.index(initial.unit),
        key=f"{prefix}.unit",
        horizontal=True,
        help=KEY_DOCS["chunking.unit"],
    )
    size = config_inputs.number_input(
        right,
        "Size",
        "chunking.size",
        step=50,
        key=f"{prefix}.size",
        value=config_inputs.clamped("chunking.size", initial.size),
    )
    overlap, window, threshold = initial.overlap, initial.window, initial.threshold
    if strategy in USES_OVERLAP:
        overlap = config_inputs.number_input(
            left,
            "Overlap",
            "chunking.overlap",
            step=10,
            key=f"{prefix}.overlap",
            value=config_inputs.clamped("chunking.overlap", initial.overlap),
        )
    if strategy == "sentence_window":
        window = config_inputs.number_input(
            left,
            "Window (sentences each side)",
            "chunking.window",
            value=config_inputs.clamped("chunking.window", initial.window),
            key=f"{prefix}.window",
        )
    if strategy == "semantic":
        threshold = config_inputs.slider(
            right,
            "Break threshold (quantile)",
            "chunking.threshold",
            step=0.05,
            value=config_inputs.clamped("chunking.threshold", initial.threshold),
            key=f"{prefix}.threshold",
        )
    context_headers = st.checkbox(
        "Index the heading path with each chunk",
        value=initial.context_headers,
        key=f"{prefix}.context_headers",
        help=KEY_DOCS["chunking.context_headers"],
    )
    fit_window = st.checkbox(
        "Cut chunks to the model's window",
        value=initial.fit_window,
        key=f"{prefix}.fit_window",
        help=KEY_DOCS["chunking.fit_window"],
    )
    enrich, enrich_index = llm_panels.enrichment_controls(prefix, initial)
    return ChunkingConfig(
        strategy=strategy,
        size=int(size),
        overlap=int(overlap),
        unit=unit,
        window=int(window),
        threshold=float(threshold),
        context_headers=bool(context_headers),
        enrich=enrich,
        enrich_index=enrich_index,
        fit_window=bool(fit_window),
    )


# -- the configuration editor -----------------------------------------------------------------


@dataclass(frozen=True)
class EditedConfig:
    config: WorkbenchConfig
    errors: dict[str, str]  # key -> message, for values that could not be used


def is_index_time(key: str) -> bool:
    return lifetime_of(key) is Lifetime.INDEX


#: the editor's widgets keep their values while their section is folded (not drawn)
PERSIST: Final = "session"


def config_editor(config: WorkbenchConfig, prefix: str) -> EditedConfig:
    """Every configuration key as a widget, one expander per section; returns the edited config.

    A value that does not validate keeps its previous value and is reported in ``errors`` (and
    next to its widget), so one typo never loses the other edits.
    """
    edited, errors = config, {}
    sections: dict[str, list[tuple[str, object]]] = {}
    for key, value in config.flat().items():
        sections.setdefault(key.split(".", 1)[0], []).append((key, value))
    for section, items in sections.items():
        index_time = all(is_index_time(key) for key, _ in items)
        title = f"{section}" + (" (index-time: new chunks or indexes, built on first use)" if index_time else "")
        panel = st.expander(
            title, expanded=section in ("retrieval", "fusion"), key=f"{prefix}::{section}", on_change="rerun"
        )
        if not panel.open:  # a folded section draws nothing; its widgets keep their values meanwhile
            for key, value in items:
                raw = _held_value(value, f"{prefix}.{key}")
                if raw != value:
                    try:
                        edited = edited.with_value(key, raw)
                    except ConfigError as error:
                        errors[key] = str(error)
            continue
        with panel:
            columns = st.columns(2)
            for position, (key, value) in enumerate(items):
                with columns[position % 2]:
                    raw = _key_widget(key, value, f"{prefix}.{key}")
                    if raw == value:
                        continue
                    try:
                        edited = edited.with_value(key, raw)
                    except ConfigError as error:
                        errors[key] = str(error)
                        st.error(md_escape(error))
    return EditedConfig(edited, errors)


def _held_value(value, widget_key: str):
    """What a key's widget holds while its section is folded (``persist_state``): the value it was
    last given, as ``_key_widget`` returns it, or ``value`` when it was never drawn."""
    if widget_key not in st.session_state:
        return value
    held = st.session_state[widget_key]
    if isinstance(value, (list, tuple)):
        return value if held == ", ".join(str(v) for v in value) else held
    return held


def _key_widget(key: str, value, widget_key: str):
    label = key.split(".", 1)[1]
    allowed = key_limits(key).describe()
    help_text = (
        KEY_DOCS.get(key, "")
        + (f"; allowed: {allowed}" if allowed else "")
        + (" (index-time)" if is_index_time(key) else " (query-time)")
    )
    limits = key_limits(key)
    if limits.choices:
        chosen = st.selectbox(
            label,
            limits.choices,
            index=limits.choices.index(value),
            key=widget_key,
            persist_state=PERSIST,
            help=help_text,
        )
        llm_panels.needs_endpoint_caption(key, chosen)
        return chosen
    if isinstance(value, bool):
        return st.checkbox(label, value=value, key=widget_key, persist_state=PERSIST, help=help_text)
    if isinstance(value, int):
        low, high = config_inputs.number_bounds(key)
        return int(
            st.number_input(
                label,
                low,
                high,
                value=config_inputs.clamped(key, value),
                step=1,
                key=widget_key,
                persist_state=PERSIST,
                help=help_text,
            )
        )
    if isinstance(value, float):
        low, high = config_inputs.number_bounds(key)
        return float(
            st.number_input(
                label,
                low,
                high,
                value=config_inputs.clamped(key, value),
                step=0.05,
                format="%.3f",
                key=widget_key,
                persist_state=PERSIST,
                help=help_text,
            )
        )
    if isinstance(value, (list, tuple)):
        shown = ", ".join(str(v) for v in value)
        typed = st.text_input(
            label, value=shown, key=widget_key, persist_state=PERSIST, help=help_text + "; comma separated"
        )
        return value if typed == shown else typed
    return st.text_input(label, value=str(value), key=widget_key, persist_state=PERSIST, help=help_text)
