"""Judging: grade a pool's chunks 0-3 by keyboard, resume any time, export a golden set, and see how
two golden sets agree. The page arranges widgets; ``workbench.ui.judging_panel`` and
``workbench.golden`` do the work."""

from __future__ import annotations

import streamlit as st

from workbench.ui.judging_panel import (
    judge_name,
    render_agreement,
    render_pool_and_judging,
    render_pool_builder,
    stored_pools,
)
from workbench.ui.widgets import require_collection

st.title("Judging")
st.caption(
    "Pool several configurations' top results per query, grade each pooled chunk blind to who found it, "
    "and export the grades as a golden set with spans, which survives re-chunking."
)
collection = require_collection("judge")
found = stored_pools()
render_pool_builder(collection, found)
render_pool_and_judging(found, judge_name())
st.subheader("Agreement", anchor=False)
render_agreement(collection)
