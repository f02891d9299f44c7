"""Plotly figures for the Chunking lab and the embedding map.

Plotly renders a subset of HTML in hover labels and legend names (``<b>``, ``<a href>``, ...), so
every piece of document text or file name is ``html.escape``d before it goes into a figure;
the only tags in a label are the ``<br>`` line breaks added here.
"""

from __future__ import annotations

import html
import textwrap
from collections.abc import Mapping, Sequence

import plotly.graph_objects as go
from plotly.colors import qualitative

from workbench.analysis.embedding_map import EmbeddingMap
from workbench.ui.text import shorten

HOVER_CHARS = 320
HOVER_WIDTH = 64


def hover_text(text: str, limit: int = HOVER_CHARS, width: int = HOVER_WIDTH) -> str:
    """``text`` shortened, wrapped and escaped for a Plotly hover label."""
    lines = textwrap.wrap(shorten(text, limit), width=width) or [""]
    return "<br>".join(html.escape(line, quote=True) for line in lines)


def plain_label(text: str, limit: int = 60) -> str:
    """A file name or title as a Plotly legend or axis label: one line, escaped."""
    return html.escape(shorten(text, limit), quote=True)


def token_histogram(token_counts: Sequence[int], max_tokens: int | None, title: str = "") -> go.Figure:
    """Chunk lengths in model tokens; chunks over the model's limit in red, the limit as a line."""
    within = [c for c in token_counts if max_tokens is None or c <= max_tokens]
    over = [c for c in token_counts if max_tokens is not None and c > max_tokens]
    upper = max([*token_counts, max_tokens or 0, 1])
    bins = {"start": 0, "end": upper + 1, "size": max(1, round(upper / 30))}
    figure = go.Figure()
    figure.add_trace(go.Histogram(x=within, xbins=bins, name="fits the model", marker_color="#4c78a8"))
    if over:
        figure.add_trace(go.Histogram(x=over, xbins=bins, name="truncated by the model", marker_color="#e45756"))
    if max_tokens:
        figure.add_vline(
            x=max_tokens,
            line_dash="dash",
            line_color="#e45756",
            annotation_text=f"max sequence length {max_tokens}",
            annotation_position="top left",
        )
    figure.update_layout(
        title=plain_label(title) if title else None,
        barmode="overlay",
        bargap=0.05,
        height=260,
        margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 10},
        xaxis_title="tokens per chunk (heading path included)",
        yaxis_title="chunks",
        legend={"orientation": "h", "y": -0.35},
    )
    return figure


#: documents with a colour of their own on the embedding map; the rest share one grey trace
MAP_DOCUMENT_TRACES = 60
#: one colour per document: a qualitative palette (plotly's Dark24: 24 hues, all dark enough to
#: read on white), set on each trace rather than left to the theme's colorway, which repeats after
#: a few colours (Streamlit's starts with three blues)
MAP_PALETTE: tuple[str, ...] = tuple(qualitative.Dark24)
#: beyond the palette, documents cycle through it again with the next marker symbol
MAP_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "triangle-down", "x", "pentagon")


def document_marker(number: int) -> dict:
    """The marker of the ``number``-th document's trace: colour and symbol, distinct for the first
    len(MAP_PALETTE) × len(MAP_SYMBOLS) documents."""
    colour = MAP_PALETTE[number % len(MAP_PALETTE)]
    symbol = MAP_SYMBOLS[(number // len(MAP_PALETTE)) % len(MAP_SYMBOLS)]
    return {"size": 8, "opacity": 0.8, "color": colour, "symbol": symbol}


def embedding_figure(
    embedding_map: EmbeddingMap, hit_ranks: Mapping[int, int] | None = None, query: str | None = None
) -> go.Figure:
    """One colour per document; hits ringed and numbered by rank; the query as a star."""
    hit_ranks = hit_ranks or {}
    figure = go.Figure()
    by_document: dict[int, list] = {}
    for point in embedding_map.points:
        by_document.setdefault(point.doc_id, []).append(point)
    groups = list(by_document.values())
    folded = len(groups) > MAP_DOCUMENT_TRACES
    if folded:
        # a trace (and a legend entry) per document stops being readable, and slows the browser,
        # long before a large collection runs out of documents: the largest keep their colour
        groups.sort(key=len, reverse=True)
        groups = groups[: MAP_DOCUMENT_TRACES - 1] + [[p for group in groups[MAP_DOCUMENT_TRACES - 1 :] for p in group]]
    for number, points in enumerate(groups):
        others = folded and number == len(groups) - 1
        figure.add_trace(
            go.Scatter(
                x=[p.x for p in points],
                y=[p.y for p in points],
                mode="markers",
                name=f"{len(by_document) - number:,} other documents" if others else plain_label(points[0].document),
                marker={"size": 5, "opacity": 0.5, "color": "#bbb"} if others else document_marker(number),
                customdata=[[plain_label(p.document, 90), hover_text(p.text), p.chunk_id] for p in points],
                hovertemplate="<b>%{customdata[0]}</b> · chunk %{customdata[2]}<br>%{customdata[1]}<extra></extra>",
            )
        )
    placed = [(rank, embedding_map.point_of(chunk_id)) for chunk_id, rank in hit_ranks.items()]
    hits = sorted(((rank, point) for rank, point in placed if point is not None), key=lambda pair: pair[0])
    if hits:
        figure.add_trace(
            go.Scatter(
                x=[p.x for _, p in hits],
                y=[p.y for _, p in hits],
                mode="markers+text",
                name="hits (rank)",
                text=[str(rank) for rank, _ in hits],
                textposition="top center",
                marker={"size": 18, "symbol": "circle-open", "line": {"width": 2}, "color": "#d62728"},
                customdata=[[rank, plain_label(p.document, 90), hover_text(p.text)] for rank, p in hits],
                hovertemplate="<b>hit %{customdata[0]}</b>: %{customdata[1]}<br>%{customdata[2]}<extra></extra>",
            )
        )
    if embedding_map.query_xy is not None:
        figure.add_trace(
            go.Scatter(
                x=[embedding_map.query_xy[0]],
                y=[embedding_map.query_xy[1]],
                mode="markers",
                name="query",
                marker={"size": 20, "symbol": "star", "color": "#111", "line": {"width": 1, "color": "#fff"}},
                customdata=[[hover_text(query or "")]],
                hovertemplate="<b>query</b><br>%{customdata[0]}<extra></extra>",
            )
        )
    axis_names = ("t-SNE 1", "t-SNE 2")
    if embedding_map.method == "pca":
        ratio = embedding_map.explained_variance_ratio or (0.0, 0.0)
        axis_names = (f"PC 1 ({ratio[0]:.0%} of variance)", f"PC 2 ({ratio[1]:.0%} of variance)")
    figure.update_layout(
        height=560,
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        xaxis_title=axis_names[0],
        yaxis_title=axis_names[1],
        legend={"font": {"size": 10}},
        hoverlabel={"align": "left"},
    )
    return figure
