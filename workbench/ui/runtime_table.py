"""The runtime tables of the Documents page: each encoder (and cross-encoder) runtime's measured
speed on this machine and its SciFact nDCG@10 cost, from ``workbench.embedding.runtime_report``."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from workbench.embedding.runtime_report import (
    encoder_runtime_rows,
    how_to_measure_quality,
    rows_from_record,
    table_cells,
)
from workbench.retrieval.rerank_calibration import read_rerank_calibrations
from workbench.ui.text import md_escape

RERANK_COLUMNS = (
    "model",
    "runtime",
    "auto picks",
    "pairs/s",
    "vs torch fp32",
    "agreement with fp32",
    "export s",
    "unavailable",
)


#: the Documents page's "Encoder runtimes" panel: folded, it draws (and reads) nothing
PANEL_KEY = "documents_runtimes_open"


def runtime_panel(bench, collection: str | None, page: str = "documents") -> None:
    """The panel, on the Documents page (``page``'s prefix keeps each page's widget keys apart:
    the Models page shows the same tables, unfolded)."""
    panel: Any
    if page == "documents":
        panel = st.expander(
            "Encoder runtimes on this machine", icon=":material/speed:", key=PANEL_KEY, on_change="rerun"
        )
        if not panel.open:
            return
    else:
        panel = st.container(key=f"{page}_runtimes")
    rows = encoder_runtime_rows(bench.home)
    with panel:
        if collection is not None:
            embedding = bench.config_for(collection).embedding
            st.caption(
                f"“{md_escape(collection)}” encodes with {embedding.runtime}-{embedding.precision}, fixed when "
                "it was made (embedding.runtime); a new collection takes what auto picks below."
            )
        if not rows:
            st.caption(
                "Not measured on this machine yet: the first collection made with embedding.runtime=auto "
                "measures every runtime once (about 10 s), or run python bench/bench_encode.py."
            )
        else:
            st.dataframe(
                pd.DataFrame([table_cells(row, "texts") for row in rows]),
                hide_index=True,
                width="stretch",
                key=f"{page}_encoder_runtimes",
            )
            st.caption(
                "Speed from this machine's calibration (auto picks the fastest with cosine ≥ 0.999 to torch "
                "fp32, ≥ 0.99 for int8 on texts its quantization never saw, and no more than 0.005 SciFact "
                "nDCG@10 lost where measured); export s is the one-off export, not counted in the speed."
            )
            if not any(row.quality for row in rows):
                st.caption(md_escape(how_to_measure_quality(bench.home)))
        reranks = [
            row
            for model, record in sorted(read_rerank_calibrations().items())
            for row in rows_from_record(model, record, "pairs_per_s")
        ]
        if reranks:
            st.markdown("**Cross-encoder runtimes** (rerank.runtime)")
            st.dataframe(
                pd.DataFrame(
                    [{k: v for k, v in table_cells(row, "pairs").items() if k in RERANK_COLUMNS} for row in reranks]
                ),
                hide_index=True,
                width="stretch",
                key=f"{page}_rerank_runtimes",
            )
