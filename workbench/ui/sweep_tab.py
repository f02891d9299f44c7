"""The Evaluation page's sweep tab: a grid of settings evaluated, ranked, the best saved as a preset."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.config import ConfigError, known_keys
from workbench.evaluation import charts, export
from workbench.evaluation.sweep import (
    SweepProgress,
    SweepResult,
    default_sweep_keys,
    expand,
    parse_grid_argument,
    plan,
    run_sweep,
    save_best_as_preset,
)
from workbench.retrieval.llm_cost import llm_calls_for_run
from workbench.ui import session
from workbench.ui.access import hidden_in_read_only
from workbench.ui.evaluation_widgets import (
    SWEEP_KEY,
    SWEEP_SUGGESTIONS,
    golden_picker,
    level_and_metrics,
)
from workbench.ui.text import md_escape


def render(collection: str) -> None:
    if hidden_in_read_only("Running sweeps"):
        return
    golden = golden_picker(collection, "sweep_golden")
    if golden is None:
        return
    level, metric_names = level_and_metrics("sweep", golden)
    rank_by = st.selectbox("Best by", metric_names, key="sweep_rank_by")
    base = session.current_config()
    offered = list(SWEEP_SUGGESTIONS) + [k for k in known_keys() if k not in SWEEP_SUGGESTIONS]
    keys = st.multiselect(
        "Keys to vary",
        offered,
        default=default_sweep_keys(base),
        key="sweep_keys",
        help="Any config key, chunking included. Query-time keys reuse the indexes; a new "
        "chunking is built once and embeds only texts not in the cache.",
    )
    grid: dict[str, list[str]] = {}
    for key in keys:
        typed = st.text_input(
            f"Values of {key}",
            value=SWEEP_SUGGESTIONS.get(key, str(base.get(key))),
            key=f"sweep_values_{key}",
            help="Comma separated; use ';' between values that hold commas (fusion.weights).",
        )
        grid[key] = parse_grid_argument(f"{key}={typed}")[1] if typed.strip() else []
    try:
        points = expand(base, grid) if grid else []
    except ConfigError as error:
        st.error(md_escape(error))
        return
    layouts = len(plan(points))
    llm_calls = llm_calls_for_run([point.config for point in points if point.same_as is None], len(golden))
    same = sum(1 for point in points if point.same_as is not None)
    st.caption(
        f"{len(points) - same} configurations × {len(golden)} queries, {layouts} layout(s)"
        + (
            f"; {same} more differ only in keys their configuration ignores and are reported as the same, not run"
            if same
            else ""
        )
        + (" — new chunkings are built on first use (only uncached texts are embedded)" if layouts > 1 else "")
        + (f"; {llm_calls.describe()}, cached replies cost nothing" if llm_calls.calls else "")
    )
    if st.button(
        f"Run sweep ({len(points)} configurations)",
        key="sweep_run",
        type="primary",
        disabled=not points,
        icon=":material/play_arrow:",
    ):
        bar = st.progress(0.0, text="Preparing…")

        def show_progress(event: SweepProgress) -> None:
            bar.progress(event.fraction, text=event.describe())

        swept = run_sweep(
            session.workbench(),
            collection,
            golden,
            base,
            grid,
            level=level,
            metric_names=tuple(dict.fromkeys((*metric_names, rank_by))),
            progress=show_progress,
        )
        bar.empty()
        st.session_state[SWEEP_KEY] = swept
    result = st.session_state.get(SWEEP_KEY)
    if result is not None and result.collection == collection:
        show_sweep(result, rank_by if rank_by in result.metric_names else result.metric_names[0])


def show_sweep(result: SweepResult, rank_by: str) -> None:
    best = result.best(rank_by)
    same = len(result.entries) - len(result.distinct)
    same_note = f" ({same} the same as another: they differ only in keys their configuration ignores)" if same else ""
    st.success(
        f"Sweep {result.sweep_id}: {len(result.entries)} configurations{same_note} in "
        f"{result.elapsed_s:.1f} s; "
        f"{md_escape(result.reuse_summary())}. Best {md_escape(rank_by)} = "
        f"**{best.result.metrics[rank_by]:.4f}** with {md_escape(best.point.label)}."
    )
    rows = result.table(rank_by)
    st.dataframe(pd.DataFrame(rows).sort_values(rank_by, ascending=False), hide_index=True, width="stretch")
    st.plotly_chart(charts.sweep_chart(rows, list(result.grid), rank_by), key="sweep_chart")
    name_col, button_col = st.columns([3, 1])
    name = name_col.text_input("Preset name", value=f"{result.collection}-best", key="sweep_preset_name")
    if button_col.button("Save best as preset", key="sweep_save_best", icon=":material/save:"):
        saved = save_best_as_preset(session.workbench(), result, name, rank_by)
        shown = ", ".join(f"{k}={v}" for k, v in sorted(saved.items())) or "the defaults"
        session.flash("success", f"Saved preset **{md_escape(name)}**: {md_escape(shown)}. Pick it in the sidebar.")
        st.rerun()
    summary = (result.reuse_summary(),)
    columns = st.columns(3)
    for column, fmt, text in (
        (columns[0], "md", export.to_markdown(export.sweep_report(rows, rank_by, summary))),
        (columns[1], "html", export.to_html(export.sweep_report(rows, rank_by, summary))),
        (columns[2], "csv", export.sweep_csv(rows)),
    ):
        column.download_button(
            f"Export {fmt.upper()}",
            text,
            file_name=f"sweep-{result.sweep_id}.{fmt}",
            key=f"export_sweep_{fmt}",
            icon=":material/download:",
        )
