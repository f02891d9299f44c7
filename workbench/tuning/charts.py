"""The Pareto chart of a study: each trial's metric against its p95 latency, the front joined, the winner marked."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from workbench.tuning.study import TrialRecord, pareto_front


def pareto_chart(trials: Sequence[TrialRecord], metric: str, winner: TrialRecord | None = None) -> go.Figure:
    """Every trial as a point (metric up, p95 ms across); the trials no other beats on both, joined;
    ``winner`` as a star. Hovering a point shows its settings."""
    figure = go.Figure()
    if trials:
        figure.add_trace(_points(trials, metric, "trials", mode="markers", marker={"size": 8, "color": "#8c9bb0"}))
        figure.add_trace(
            _points(
                pareto_front(list(trials)),
                metric,
                "Pareto front",
                mode="lines+markers",
                line={"shape": "hv", "color": "#1f77b4"},
                marker={"size": 9, "color": "#1f77b4"},
            )
        )
    if winner is not None:
        figure.add_trace(
            _points(
                [winner],
                metric,
                f"winner (trial {winner.number})",
                mode="markers",
                marker={"size": 18, "symbol": "star", "color": "#d62728"},
                text=[winner.label()],
                hovertemplate="winner: %{text}<br>p95 %{x:.1f} ms<br>" + metric + " %{y:.4f}<extra></extra>",
            )
        )
    figure.update_layout(
        title={"text": f"{metric} on the tuning queries against p95 latency"},
        xaxis_title="p95 latency (ms)",
        yaxis_title=f"{metric} (tuning queries)",
        height=420,
        margin={"l": 60, "r": 20, "t": 50, "b": 50},
        legend={"orientation": "h", "y": -0.2},
    )
    return figure


def _points(trials: Sequence[TrialRecord], metric: str, name: str, **style: object) -> go.Scatter:
    """Trials as points at (p95 ms, metric), each hovering its number and settings."""
    hover = {
        "text": [f"trial {t.number}: {t.label()}" for t in trials],
        "hovertemplate": "%{text}<br>p95 %{x:.1f} ms<br>" + metric + " %{y:.4f}<extra></extra>",
    }
    return go.Scatter(x=[t.p95_ms for t in trials], y=[t.metric for t in trials], name=name, **{**hover, **style})
