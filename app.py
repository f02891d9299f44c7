"""RAG Workbench, the Streamlit app: ``streamlit run app.py``.

The router: it registers the pages that exist, each under its own URL (``/retrieval_lab``; the
root switches to the page to start on), draws the shared sidebar, shows messages carried over
from the previous run, and runs the chosen page. Before any of that, ``gate`` keeps a shared
session's visitors out until they bring the token (``workbench.ui.access``). Expected errors
(an unknown preset, a bad configuration value, a busy catalog, a write refused in a read-only
session) are shown as messages that name the fix, not tracebacks.
"""

from __future__ import annotations

import os

# nothing may download model weights; the bundled model loads from disk
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import streamlit as st

from workbench.service.sharing import SharingError
from workbench.ui import session, warmup
from workbench.ui.access import gate, read_only
from workbench.ui.demo_loader import load_demo_with_progress
from workbench.ui.expected_errors import shown_as_messages
from workbench.ui.lab_runs import run_ahead
from workbench.ui.pages import FAVICON, RETRIEVAL_LAB, navigate
from workbench.ui.sidebar import render_sidebar
from workbench.ui.text import md_escape

st.set_page_config(page_title="RAG Workbench", page_icon=str(FAVICON), layout="wide")

# the sign-in gate before anything reads the home: a visitor without the token sees only its box
try:
    gate()
except SharingError as error:
    st.error(md_escape(str(error)))
    st.stop()

# the models and indexes a first query needs load in the background (``make app`` started this
# already, before the server answered; a bare ``streamlit run`` starts it here)
warmup.start(session.home_path(), read_only())

# navigation first: Streamlit clears what was drawn before it when the page changes
# the welcome page while there is nothing to search, or while the demo's load needs finishing
page = navigate(has_collections=bool(session.collection_names()) and not session.demo_status().partial)
if page.url_path == RETRIEVAL_LAB.url_path:
    run_ahead()  # the query's runs before anything is drawn: the page then arrives in one burst
load_demo_requested = render_sidebar()

session.show_flashes()
if load_demo_requested:
    load_demo_with_progress()

with shown_as_messages():
    page.run()
