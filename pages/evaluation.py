"""Evaluation: score a golden set (per query, per stage), keep every run, compare two runs with a
significance test, sweep a grid of settings and save the best as a preset, tune with a held-out
verdict (``workbench.ui.tune_tab``), export any of it.

The page only arranges widgets; the work is done by ``workbench.evaluation``."""

import streamlit as st

from workbench.ui import evaluate_tab, golden_builder, golden_tab, runs_tab, sweep_tab, tune_tab
from workbench.ui.widgets import require_collection

st.title("Evaluation")
current = require_collection("evaluate")
# keyed and tracked: a rerun (a saved review, a message above the tabs) keeps the tab the user is on
evaluate, runs, sweep, tune, golden_edit, from_documents = st.tabs(
    ["Evaluate", "Runs & compare", "Sweep", "Tune", "Golden sets", "From your documents"],
    key="evaluation_tab",
    on_change="rerun",
)
with evaluate:
    evaluate_tab.render(current)
with runs:
    runs_tab.render(current)
with sweep:
    sweep_tab.render(current)
with tune:
    tune_tab.render(current)
with golden_edit:
    golden_tab.render(current)
with from_documents:
    golden_builder.render(current)
