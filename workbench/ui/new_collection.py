"""Creating a collection from the Documents page: say what the wait is, then select the new one.

A first collection on ``embedding.runtime = auto`` measures every encoder runtime before it exists
(a minute or more; after the demo's load, the measuring it started in the background), so the
button's run says so under a spinner instead of leaving the page still.
A click that arrives while that run is still going reruns the page and finds the collection made;
the name being created is remembered in the session, so that second click reports the creation too.
A collection of that name made elsewhere (another tab, a command) with the same settings is joined
and selected, and with other settings refused naming both (``workbench.service.joining``).
"""

from __future__ import annotations

import streamlit as st

from workbench.config import WorkbenchConfig
from workbench.embedding.calibration import background_calibration, will_calibrate
from workbench.models.availability import ModelNotAvailableError
from workbench.ui import session
from workbench.ui.text import md_escape

#: the collection this session is creating (set before the catalog is written)
CREATING_KEY = "_documents_creating_collection"


def waiting_message(name: str, calibrates: bool, model: str, under_way: bool = False) -> str:
    if calibrates and under_way:
        return (
            f"Creating {name}: waiting for the measurement of which encoder runtime runs {model} fastest "
            "on this machine, which began when the demo was loaded…"
        )
    if calibrates:
        return (
            f"Creating {name}: first measuring which encoder runtime runs {model} fastest on this machine "
            "(once per home and model; a minute or more)…"
        )
    return f"Creating {name}…"


def create_and_select(name: str, config: WorkbenchConfig) -> None:
    """Create ``name`` (or join it: ``Workbench.create_or_join_collection``), select it in the
    sidebar and say so (on the next run); errors show here."""
    bench = session.workbench()
    name = (name or "").strip()
    pending = st.session_state.get(CREATING_KEY)
    st.session_state[CREATING_KEY] = name
    calibrates = will_calibrate(bench.home, config.embedding)
    under_way = background_calibration(bench.home, config.embedding.model) is not None
    try:
        with st.spinner(md_escape(waiting_message(name, calibrates, config.embedding.model, under_way))):
            _, created = bench.create_or_join_collection(name, config)
    except (ValueError, ModelNotAvailableError) as error:  # the message names the fix
        st.session_state.pop(CREATING_KEY, None)
        st.error(md_escape(error))
        return
    st.session_state.pop(CREATING_KEY, None)
    # not made by this run but by this session's first click, cut short by this one before it could say so
    made_here = created or pending == name
    session.flash(
        "success",
        f"Created collection **{md_escape(name)}** and selected it in the sidebar. Upload files below."
        if made_here
        else f"Collection **{md_escape(name)}** already exists with these settings (made elsewhere, another "
        "tab or a command, perhaps moments ago); selected it in the sidebar. Uploads below add to it.",
    )
    session.request_collection(name)
    st.rerun()
