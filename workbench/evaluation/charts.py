"""Plotly figures for the Evaluation page: per-stage metrics, comparisons and sweeps.

Builders only: each takes plain results and returns a ``plotly.graph_objects.Figure``, so the
page stays thin and the figures can be checked without a browser.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from workbench.evaluation.compare import Comparison
from workbench.evaluation.intervals import BEST, NOT_DISTINGUISHABLE


def stage_chart(stage_metrics: Mapping[str, Mapping[str, float]], metric_names: Sequence[str]) -> go.Figure:
    """Grouped bars: each metric at each stage, in pipeline order."""
    stages = list(stage_metrics)
    figure = go.Figure(
        [go.Bar(name=name, x=stages, y=[stage_metrics[s].get(name, 0.0) for s in stages]) for name in metric_names]
    )
    figure.update_layout(
        barmode="group",
        yaxis=dict(title="value", range=[0, 1.05]),
        xaxis_title="stage",
        title="Metrics per pipeline stage",
        legend_title="metric",
        height=380,
    )
    return figure


def significance_chart(comparison: Comparison) -> go.Figure:
    """The randomization null distribution with the observed mean difference marked on both sides."""
    test = comparison.test
    observed = test.mean_difference
    figure = go.Figure(
        go.Histogram(
            x=list(test.null_distribution), nbinsx=60, name="permuted mean differences", marker_color="#9aa7b8"
        )
    )
    # a line with an annotation of None would make Plotly draw its "new text" placeholder
    figure.add_vline(x=observed, line_color="#d62728", line_dash="dash", annotation_text=f"observed {observed:+.4f}")
    figure.add_vline(x=-observed, line_color="#f0a0a0", line_dash="dash")
    figure.update_layout(
        title=f"{comparison.metric}: mean difference b - a = {observed:+.4f}, p = {test.p_value:.4f} "
        f"({test.permutations} sign flips)",
        xaxis_title=f"mean {comparison.metric} difference under the null hypothesis",
        yaxis_title="permutations",
        showlegend=False,
        height=360,
    )
    return figure


def query_delta_chart(comparison: Comparison) -> go.Figure:
    """Per-query differences, sorted: wins above zero, losses below."""
    changes = sorted(comparison.changes, key=lambda c: c.delta, reverse=True)
    colours = ["#2ca02c" if c.delta > 0 else "#d62728" if c.delta < 0 else "#bbbbbb" for c in changes]
    figure = go.Figure(
        go.Bar(
            x=[str(c.query_id) for c in changes],
            y=[c.delta for c in changes],
            marker_color=colours,
            hovertext=[f"{c.query[:120]}<br>{c.a:.4f} -> {c.b:.4f}" for c in changes],
            hoverinfo="text",
        )
    )
    figure.update_layout(
        title=f"{comparison.metric} per query (b - a): {comparison.wins} wins, {comparison.losses} losses, "
        f"{comparison.ties} ties",
        xaxis=dict(title="query", type="category", showticklabels=len(changes) <= 60),
        yaxis_title="difference",
        height=360,
    )
    return figure


#: a heatmap cell's mark by its standing against the best point (``workbench.evaluation.intervals``)
CELL_MARKS = {BEST: " ★", NOT_DISTINGUISHABLE: " ≈"}


def sweep_heatmap(rows: Sequence[Mapping[str, Any]], x_key: str, y_key: str, metric: str) -> go.Figure:
    """The metric over two grid keys; cells with several points (other keys varied) show their best.
    With the rows' ``vs best`` column (``SweepResult.table(rank_by)``), the best cell is marked ★ and
    the cells whose paired 95% interval against it reaches zero ≈: not distinguishable from it."""
    xs = list(dict.fromkeys(str(row[x_key]) for row in rows))
    ys = list(dict.fromkeys(str(row[y_key]) for row in rows))
    best: dict[tuple[str, str], float] = {}
    marks: dict[tuple[str, str], str] = {}
    for row in rows:
        cell = (str(row[x_key]), str(row[y_key]))
        if float(row[metric]) > best.get(cell, float("-inf")):
            best[cell] = float(row[metric])
            marks[cell] = CELL_MARKS.get(str(row.get("vs best", "")), "")
    z = [[best.get((x, y)) for x in xs] for y in ys]
    marked = any(marks.values())
    figure = go.Figure(
        go.Heatmap(
            x=xs,
            y=ys,
            z=z,
            colorscale="Viridis",
            colorbar_title=metric,
            text=[
                [f"{v:.4f}{marks.get((x, y), '')}" if v is not None else "" for x, v in zip(xs, line, strict=True)]
                for y, line in zip(ys, z, strict=True)
            ],
            texttemplate="%{text}",
        )
    )
    note = " (★ best; ≈ not distinguishable from it, paired bootstrap 95%)" if marked else ""
    figure.update_layout(
        title=f"{metric} by {x_key} and {y_key}{note}",
        xaxis=dict(title=x_key, type="category"),
        yaxis=dict(title=y_key, type="category"),
        height=420,
    )
    return figure


def sweep_parallel(rows: Sequence[Mapping[str, Any]], keys: Sequence[str], metric: str) -> go.Figure:
    """Parallel coordinates: one line per point across every grid key, coloured by the metric."""
    dimensions = []
    for key in keys:
        values = [row[key] for row in rows]
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            dimensions.append(dict(label=key, values=values))
        else:
            labels = list(dict.fromkeys(str(v) for v in values))
            dimensions.append(
                dict(
                    label=key,
                    values=[labels.index(str(v)) for v in values],
                    tickvals=list(range(len(labels))),
                    ticktext=labels,
                )
            )
    scores = [float(row[metric]) for row in rows]
    dimensions.append(dict(label=metric, values=scores))
    figure = go.Figure(
        go.Parcoords(
            line=dict(color=scores, colorscale="Viridis", showscale=True, colorbar=dict(title=metric)),
            dimensions=dimensions,
        )
    )
    figure.update_layout(title=f"{metric} across the grid", height=440)
    return figure


def sweep_line(rows: Sequence[Mapping[str, Any]], key: str, metric: str) -> go.Figure:
    """One grid key: the metric against its values."""
    xs = [str(row[key]) for row in rows]
    figure = go.Figure(go.Scatter(x=xs, y=[row[metric] for row in rows], mode="lines+markers"))
    figure.update_layout(
        title=f"{metric} by {key}", xaxis=dict(title=key, type="category"), yaxis_title=metric, height=360
    )
    return figure


def sweep_chart(rows: Sequence[Mapping[str, Any]], keys: Sequence[str], metric: str) -> go.Figure:
    """The chart that fits the grid: a line for one key, a heatmap for two, parallel coordinates beyond."""
    if len(keys) == 1:
        return sweep_line(rows, keys[0], metric)
    if len(keys) == 2:
        return sweep_heatmap(rows, keys[0], keys[1], metric)
    return sweep_parallel(rows, keys, metric)
