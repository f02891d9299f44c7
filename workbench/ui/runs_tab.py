"""The Evaluation page's runs tab: every stored run, and two compared with a significance test."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.evaluation import charts
from workbench.evaluation.compare import Comparison, compare_pickers, compare_runs
from workbench.evaluation.intervals import MeanInterval
from workbench.evaluation.runs import delete_run, describe, list_runs, load_run, run_intervals, shown_metrics
from workbench.ui import session
from workbench.ui.access import read_only
from workbench.ui.evaluation_widgets import (
    COMPARISON_KEY,
    SHOWN_RUN_KEY,
    download_buttons,
)
from workbench.ui.text import md_escape


def render(collection: str) -> None:
    catalog = session.workbench().catalog
    include_sweeps = st.toggle("Include sweep runs", value=False, key="runs_include_sweeps")
    rows = list_runs(catalog, collection=collection, include_sweeps=include_sweeps)
    if not rows:
        st.info(
            "No runs stored for this collection yet: evaluate in the first tab, or run `python -m workbench eval`.",
            icon=":material/info:",
        )
        return
    intervals = _intervals(str(session.home_path()), session.catalog_version(), tuple(shown_metrics(rows).items()))
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "run": r.id,
                    "created": r.created_at,
                    "golden": r.golden,
                    "level": r.level,
                    "label": r.label,
                    "mode": r.config.get("retrieval", {}).get("mode"),
                    "queries": r.queries,
                    **_with_intervals(r.metrics, intervals.get(r.id, {})),
                    "sweep": r.sweep_id,
                }
                for r in rows
            ]
        ),
        hide_index=True,
        width="stretch",
        column_config={"created": st.column_config.DatetimeColumn(format="YYYY-MM-DD HH:mm")},
    )
    by_id = {r.id: r for r in rows}
    ids = list(by_id)

    st.subheader("Compare two runs")
    _distinct_compare_defaults(ids)
    left, right = st.columns(2)
    run_a = left.selectbox("Run a (baseline)", ids, key="compare_a", format_func=lambda i: describe(by_id[i]))
    run_b = right.selectbox("Run b (new)", ids, key="compare_b", format_func=lambda i: describe(by_id[i]))
    shared = [n for n in by_id[run_a].metrics if n in by_id[run_b].metrics] or ["ndcg@10"]
    metric_col, perm_col = st.columns(2)
    metric = metric_col.selectbox("Metric", shared, key="compare_metric")
    permutations = int(
        perm_col.number_input(
            "Permutations", min_value=100, max_value=100_000, value=10_000, step=1000, key="compare_permutations"
        )
    )
    if st.button("Compare", key="compare_run", type="primary", disabled=run_a == run_b):
        st.session_state[COMPARISON_KEY] = compare_runs(
            load_run(catalog, run_a), load_run(catalog, run_b), metric, permutations
        )
    comparison = st.session_state.get(COMPARISON_KEY)
    if comparison is not None and {comparison.run_a, comparison.run_b} <= set(ids):
        show_comparison(comparison)

    with st.expander("Show or delete a run"):
        chosen = st.selectbox("Run", ids, key="runs_show", format_func=lambda i: describe(by_id[i]))
        if st.button("Show", key="runs_show_button"):
            st.session_state[SHOWN_RUN_KEY] = chosen
            session.flash("info", f"Showing run {chosen} in the Evaluate tab.")
            st.rerun()
        if not read_only() and st.button("Delete", key="runs_delete_button", icon=":material/delete:"):
            session.workbench().require_writable("Deleting a run")
            delete_run(catalog, chosen)
            st.session_state.pop(COMPARISON_KEY, None)
            session.flash("success", f"Deleted run {chosen}.")
            st.rerun()


@st.cache_data(show_spinner=False, max_entries=16)
def _intervals(home: str, version: tuple, shown: tuple[tuple[int, tuple[str, ...]], ...]) -> dict:
    return run_intervals(session.workbench().catalog, dict(shown))


def _with_intervals(metrics: dict[str, float], intervals: dict[str, MeanInterval]) -> dict[str, object]:
    """Each metric, and beside the first few their 95% interval over the run's queries."""
    cells: dict[str, object] = {}
    for name, value in metrics.items():
        cells[name] = value
        if name in intervals:
            cells[f"{name} 95% interval"] = intervals[name].interval.describe_mean()
    return cells


def _distinct_compare_defaults(ids: list[int]) -> None:
    """Baseline a = the older run, new b = the newest; a new run resets them to that (the user's
    pick holds otherwise)."""
    state = st.session_state
    state["compare_a"], state["compare_b"] = compare_pickers(
        ids, state.get("compare_a"), state.get("compare_b"), state.get("compare_known_runs")
    )
    state["compare_known_runs"] = frozenset(ids)


def show_comparison(comparison: Comparison) -> None:
    test = comparison.test
    for warning in comparison.warnings:
        st.warning(md_escape(warning))
    columns = st.columns(4)
    columns[0].metric("Wins (b better)", comparison.wins)
    columns[1].metric("Losses", comparison.losses)
    columns[2].metric("Ties", comparison.ties)
    columns[3].metric(
        "p-value",
        f"{test.p_value:.4f}",
        help=f"{test.method} test, two-sided, {test.permutations} sign flips, seed {test.seed}",
    )
    verdict = "significant at 0.05" if test.p_value < 0.05 else "not significant at 0.05"
    st.markdown(f"Mean {md_escape(comparison.metric)} difference (b − a): **{test.mean_difference:+.4f}**, {verdict}.")
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "metric": d.metric,
                    "run a": d.a,
                    "run b": d.b,
                    "delta (b − a)": d.delta,
                    "95% interval of the delta": d.interval.describe() if d.interval else "",
                    "queries": len(comparison.changes),
                }
                for d in comparison.deltas
            ]
        ),
        hide_index=True,
        width="stretch",
    )
    if comparison.config_changes:
        st.caption(
            "Configuration changes: " + md_escape(", ".join(f"{k}: {a} → {b}" for k, a, b in comparison.config_changes))
        )
    st.plotly_chart(charts.significance_chart(comparison), key="comparison_null")
    st.plotly_chart(charts.query_delta_chart(comparison), key="comparison_deltas")
    changed = comparison.most_changed(15)
    if changed:
        st.markdown("**Queries that changed most**")
        st.dataframe(
            pd.DataFrame(
                [
                    {"query id": c.query_id, "query": c.query, "run a": c.a, "run b": c.b, "delta": c.delta}
                    for c in changed
                ]
            ),
            hide_index=True,
            width="stretch",
        )
    download_buttons(comparison, f"compare-{comparison.run_a}-{comparison.run_b}", "export_comparison")
