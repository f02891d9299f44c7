"""Plotly figures for the analyses (plotly only; the pages decide where to show them)."""

from __future__ import annotations

import html
from collections.abc import Collection, Mapping

import plotly.graph_objects as go
from plotly.colors import qualitative

from workbench.analysis.rank_flow import RankFlow

_PALETTE = qualitative.D3 + qualitative.Set2
RELEVANT_MARK = "✓"


def rank_flow_figure(
    flow: RankFlow,
    relevant: Collection[int] = frozenset(),
    labels: Mapping[int, str] | None = None,
    title: str | None = None,
) -> go.Figure:
    """A bump chart: one line per chunk across the stages, rank 1 at the top.

    Ranks deeper than ``flow.depth`` are drawn on one "below" row (the hover still gives the
    true rank) so a chunk ranked 80th by BM25 does not squash the rest. Chunks that did not reach
    the final list are dotted; relevant chunks are thick and marked with a star.
    Labels are HTML-escaped: plotly renders a subset of HTML in legends and hovers, and labels
    carry file names and headings.
    """
    labels = labels or {}
    below_row = flow.depth + 1
    traces = []
    for index, path in enumerate(flow.paths):
        is_relevant = path.chunk_id in relevant
        in_final = path.final_rank is not None
        label = html.escape(labels.get(path.chunk_id, f"chunk {path.chunk_id}"))
        if is_relevant:
            label = f"{RELEVANT_MARK} {label}"
        y_values = [None if rank is None else min(rank, below_row) for rank in path.ranks]
        hover = [
            f"{label}<br>{html.escape(stage)}: "
            + ("not listed" if rank is None else f"rank {rank}")
            + (
                f"<br>searched with: {html.escape(_shorten(flow.searched_with[stage], 120))}"
                if stage in flow.searched_with
                else ""
            )
            for stage, rank in zip(flow.stages, path.ranks, strict=False)
        ]
        name = f"#{path.final_rank} {label}" if in_final else f"out · {label}"
        # the chart sits in half a page: a legend of long labels would squash it, so finalists
        # are labelled at their last point and everything else is on hover
        point_labels = [""] * len(flow.stages)
        if in_final:
            point_labels[-1] = _shorten(name, 34)
        traces.append(
            {
                "type": "scatter",
                "x": list(flow.stages),
                "y": y_values,
                "mode": "lines+markers+text",
                "name": name,
                "text": point_labels,
                "textposition": "middle right",
                "textfont": {"size": 10},
                "cliponaxis": False,
                "customdata": hover,
                "hovertemplate": "%{customdata}<extra></extra>",
                # dense and BM25 are parallel routes: a chunk only one found still flows on
                "connectgaps": True,
                "line": {
                    "width": 4 if is_relevant else 2,
                    "dash": "solid" if in_final else "dot",
                    "color": _PALETTE[index % len(_PALETTE)],
                },
                "marker": {"size": 11 if is_relevant else 7, "symbol": "star" if is_relevant else "circle"},
                "opacity": 1.0 if in_final else 0.55,
            }
        )
    tick_values = list(range(1, flow.depth + 1)) + [below_row]
    tick_text = [str(rank) for rank in range(1, flow.depth + 1)] + [f"> {flow.depth}"]
    # the generated query texts under the chart: which column searched with what
    generated = [
        f"{html.escape(stage)}: {html.escape(_shorten(text, 90))}" for stage, text in flow.searched_with.items()
    ]
    annotations = []
    if generated:
        annotations.append(
            {
                "text": "<br>".join(["searched with generated text —", *generated]),
                "showarrow": False,
                "xref": "paper",
                "yref": "paper",
                "x": 0,
                "y": -0.12,
                "xanchor": "left",
                "yanchor": "top",
                "align": "left",
                "font": {"size": 10},
            }
        )
    bottom = 40 + (16 * (len(generated) + 1) + 20 if generated else 0)
    layout = {
        "yaxis": {
            "autorange": "reversed",
            "tickmode": "array",
            "tickvals": tick_values,
            "ticktext": tick_text,
            "title": {"text": "rank"},
            "zeroline": False,
        },
        "xaxis": {
            "type": "category",
            "categoryorder": "array",
            "categoryarray": list(flow.stages),
            "title": {"text": "stage"},
        },
        "title": {"text": html.escape(title) if title else None},
        "height": max(320, 90 + 26 * (flow.depth + 1)) + (bottom - 40),
        "margin": {"l": 40, "r": 190, "t": 40 if title else 10, "b": bottom},
        "showlegend": False,
        "hovermode": "closest",
    }
    if annotations:
        layout["annotations"] = annotations
    # plain dicts, unvalidated: plotly's per-property validation cost ~10 ms a line, most of a
    # lab rerun (the tests validate this figure's shape once)
    return go.Figure(data=traces, layout=layout, _validate=False)


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
