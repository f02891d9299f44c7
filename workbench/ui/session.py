"""Cached resources and the sidebar's current selection, shared by every page."""

from __future__ import annotations

import os

import streamlit as st

from workbench.service import Workbench

COLLECTION_KEY = "collection"
PRESET_KEY = "preset"


@st.cache_resource(show_spinner=False)
def _workbench_for(home: str) -> Workbench:
    # one Workbench per home and server process: it caches loaded index snapshots and query
    # vectors, and holds no database connection (see store.catalog), so sharing it is safe
    return Workbench(home)


def workbench() -> Workbench:
    from workbench.home import resolve_home

    return _workbench_for(str(resolve_home(os.environ.get("WORKBENCH_HOME"))))


def current_collection() -> str | None:
    """The collection picked in the sidebar, or None when the home has none yet."""
    name = st.session_state.get(COLLECTION_KEY)
    names = workbench().collection_names()
    if name in names:
        return name
    return names[0] if names else None


def current_preset() -> str | None:
    return st.session_state.get(PRESET_KEY)
