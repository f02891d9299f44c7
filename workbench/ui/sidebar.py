"""The sidebar every page shares: collection and preset pickers, the home folder, the demo offer,
and how far the background warm-up (``workbench.ui.warmup``) has got."""

from __future__ import annotations

import streamlit as st

from workbench.text import count, shown_name
from workbench.ui import session, warmup
from workbench.ui.access import read_only
from workbench.ui.polling import polling_fragment
from workbench.ui.text import md_escape

LOAD_DEMO_KEY = "sidebar_load_demo"
WARMUP_STATUS_KEY = "warmup_status"
WARMUP_POLL_S = 1.0


def render_sidebar() -> bool:
    """Draw the sidebar; True when the user asked to load the demo (the caller shows progress
    in the main area, where there is room for it)."""
    session.apply_requested_selection()
    infos = {info.name: info for info in session.collections()}
    load_demo = False
    with st.sidebar:
        if infos:
            _collection_picker(infos)
            _preset_picker(infos[st.session_state[session.COLLECTION_KEY]].default_preset)
            demo = session.demo_status()
            if demo.total and not demo.complete:
                # offered until the demo is complete, so every "load the demo" hint has a button to point at
                if demo.partial:
                    st.warning(
                        f"The demo is incomplete ({md_escape(demo.describe())}): its last load was "
                        "interrupted. Loading it again finishes it without re-embedding."
                    )
                load_demo = not read_only() and st.button(
                    "Load the demo", key=LOAD_DEMO_KEY, icon=":material/rocket_launch:", width="stretch"
                )
        else:
            st.info(
                "This home has no collections yet. Load the bundled demo (about 30 s) to see every "
                "page at work, or create a collection on the Documents page."
            )
            load_demo = not read_only() and st.button(
                "Load the demo", key=LOAD_DEMO_KEY, type="primary", icon=":material/rocket_launch:", width="stretch"
            )
        st.caption("Home folder (catalog, indexes, golden sets)")
        st.code(str(session.home_path()), language=None, wrap_lines=True)
        warm = warmup.current(session.home_path(), read_only())
        if warm is not None and warm.status().state == warmup.WARMING:
            _warming_status()
        elif warm is not None:
            _warmup_line(warm.status())
    return load_demo


@polling_fragment(WARMUP_POLL_S)
def _warming_status() -> bool:
    return poll_warmup()


def poll_warmup() -> bool:
    """The warm-up's line, redrawn every second while it runs; True while it still runs. Once it is
    over the line says so, the fragment stops its timer (``workbench.ui.polling``), and the rest of
    the page is left alone: a full rerun from here would wipe what the page's last run showed once
    (a failed download's error, a saved preset's note) or stop a run in progress."""
    warm = warmup.current(session.home_path(), read_only())
    if warm is None:
        return False
    status = warm.status()
    _warmup_line(status)
    return status.state == warmup.WARMING


def _warmup_line(status: warmup.WarmUpStatus) -> None:
    icon = {warmup.WARMING: ":material/hourglass_top:", warmup.READY: ":material/check_circle:"}.get(
        status.state, ":material/info:"
    )
    with st.container(key=WARMUP_STATUS_KEY):
        st.caption(f"{icon} {md_escape(status.describe())}")


def _collection_picker(infos: dict) -> None:
    names = list(infos)
    if st.session_state.get(session.COLLECTION_KEY) not in names:
        st.session_state[session.COLLECTION_KEY] = names[0]
    # counts go in a caption, not in the option labels: the browser keeps showing a picked
    # option's old label when only its label changes
    name = st.selectbox(
        "Collection",
        names,
        key=session.COLLECTION_KEY,
        format_func=shown_name,
        help="Every page works on this collection. Create or delete collections on the Documents page.",
    )
    info = infos[name]
    where = "" if info.backend == "local" else f" · {md_escape(info.backend)}"
    st.caption(
        f"{count(info.documents, 'document')} · {count(info.chunks, 'chunk')} · "
        f"{md_escape(info.embedding_model)}{where}"
    )
    if info.interrupted:
        st.caption(f"Incomplete: {md_escape(info.interrupted)}.")


def _preset_picker(collection_default: str) -> None:
    names = [name for name, _, _ in session.preset_list()]
    if st.session_state.get(session.PRESET_KEY) not in names:
        st.session_state[session.PRESET_KEY] = collection_default if collection_default in names else names[0]
    name = st.selectbox(
        "Preset",
        names,
        key=session.PRESET_KEY,
        format_func=session.preset_label,
        help="A named set of configuration overrides (chunking, retrieval, fusion, MMR, rerank). "
        "Save new ones on the Presets & MCP page.",
    )
    st.caption(
        (
            "The collection's default preset."
            if name == collection_default
            else f"The collection's default is {md_escape(collection_default)}."
        )
        + (
            " Forced: saved although its held-out gain was not distinguishable from zero."
            if session.preset_label(name) != name
            else ""
        )
    )
