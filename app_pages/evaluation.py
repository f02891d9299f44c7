"""Evaluation: score a golden set (per query, per stage), keep every run, compare two runs with a
significance test, sweep a grid of settings and save the best as a preset, tune with a held-out
verdict (``workbench.ui.tune_tab``), export any of it.

The page only arranges widgets; the work is done by ``workbench.evaluation``."""

import streamlit as st

from workbench.ui import evaluate_tab, golden_builder, golden_tab, runs_tab, sweep_tab, tune_tab
from workbench.ui.evaluation_widgets import TAB_KEY
from workbench.ui.widgets import require_collection

st.title("Evaluation")
current = require_collection("evaluate")
# keyed and tracked: a rerun (a saved review, a message above the tabs) keeps the tab the user is
# on; only that tab is drawn (the others' tables, charts and forms would cost every run of the page)
TABS = {
    "Evaluate": evaluate_tab.render,
    "Runs & compare": runs_tab.render,
    "Sweep": sweep_tab.render,
    "Tune": tune_tab.render,
    "Golden sets": golden_tab.render,
    "From your documents": golden_builder.render,
}
for tab, render in zip(st.tabs(list(TABS), key=TAB_KEY, on_change="rerun"), TABS.values(), strict=True):
    if tab.open:
        with tab:
            render(current)
