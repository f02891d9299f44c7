"""Embedding map: the collection's chunk vectors in 2-D, coloured by document, with a query and
its hits marked. Hovering a point shows its text."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.analysis.embedding_map import DEFAULT_MAX_POINTS, EmbeddingMap, build_map
from workbench.config import WorkbenchConfig
from workbench.text import shown_name
from workbench.ui import config_inputs, session
from workbench.ui.figures import embedding_figure
from workbench.ui.text import md_escape, shorten
from workbench.ui.widgets import require_collection, require_documents

METHOD_LABELS = {"pca": "PCA (fast, linear)", "tsne": "t-SNE (slower, shows clusters)"}
TSNE_SLOW_ABOVE = 3000


@st.cache_data(show_spinner="Projecting the vectors…", max_entries=16)
def cached_map(
    collection: str,
    config: WorkbenchConfig,
    snapshot_version: str,
    method: str,
    query: str,
    max_points: int,
    hits: tuple[int, ...],
) -> EmbeddingMap:
    # snapshot_version keys the cache: a new index version (new documents) gets a new map
    bench = session.workbench()
    snapshot = bench.snapshot(collection, config)
    query_vector = bench.embed_query(config.embedding.key, query) if query else None
    return build_map(snapshot, method, query_vector, max_points=max_points, include=hits)


st.title("Embedding map")
current = require_collection("map")
require_documents(current, "map")
config = session.current_config()
bench = session.workbench()
with st.spinner("Loading the indexes (built on first use of a new chunking)…"):
    snapshot = bench.snapshot(current, config)

controls, hits = st.columns([3, 1])
with controls:
    query = st.text_input(
        "Query",
        key="map_query",
        placeholder="Ask something to see where it lands and what it hits",
        help="Embedded with the collection's model and placed on the same map; its hits are ringed "
        "and numbered by rank.",
    )
with hits:
    top_k = config_inputs.number_input(
        st,
        "Hits to mark",
        "retrieval.top_k",
        value=config.retrieval.top_k,
        step=1,
        key="map_top_k",
        help="retrieval.top_k for this query (query-time: nothing is re-embedded or re-indexed).",
    )
method_column, points_column = st.columns([3, 1])
method = method_column.radio(
    "Projection", list(METHOD_LABELS), format_func=METHOD_LABELS.get, horizontal=True, key="map_method"
)
max_points = int(
    points_column.number_input(
        "Points to plot",
        min_value=100,
        max_value=50_000,
        value=DEFAULT_MAX_POINTS,
        step=1000,
        key="map_max_points",
        help="A larger collection is drawn from a fixed random sample of this many chunks (plus the query's hits): "
        "a browser cannot draw a million points, and a sample shows the same structure.",
    )
)
points = min(len(snapshot.dense), max_points) if snapshot.dense is not None else 0
if method == "tsne" and points > TSNE_SLOW_ABOVE:
    st.caption(f"t-SNE on {points:,} vectors takes a while on this machine; PCA is instant.")
if points == 0:
    st.info("The collection's index has no vectors yet. Upload documents on the Documents page.")
    st.stop()
if method == "tsne" and points < 4:
    st.info("t-SNE needs at least 4 chunks; showing PCA instead.")
    method = "pca"

text = query.strip()
trace = bench.query(text, current, config.with_value("retrieval.top_k", top_k)) if text else None
hit_ranks = {hit.chunk_id: hit.rank for hit in trace.final.hits} if trace else {}
embedding_map = cached_map(
    current, config, snapshot.folder.name, method, text if text else "", max_points, tuple(sorted(hit_ranks))
)
documents = len({p.doc_id for p in embedding_map.points})
sample = (
    f"a fixed random sample of {len(embedding_map.points):,} of the {embedding_map.total_chunks:,} chunks "
    "(with the query's hits)"
    if embedding_map.sampled
    else f"{len(embedding_map.points):,} chunks"
)
st.caption(
    f"{sample} from {documents:,} documents, one colour per document; "
    f"model {md_escape(config.embedding.model)}, chunking {md_escape(config.chunking.strategy)} "
    f"{config.chunking.size} {config.chunking.unit}. Distances in 2-D only approximate the "
    "cosine distances the search uses."
)
st.plotly_chart(embedding_figure(embedding_map, hit_ranks, text), key="embedding_map_chart")

if trace is not None:
    st.subheader("Hits")
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "rank": hit.rank,
                    "document": shown_name(trace.chunks[hit.chunk_id].source) if hit.chunk_id in trace.chunks else "",
                    "score": round(hit.score, 4),
                    "text": shorten(trace.chunks[hit.chunk_id].text, 200) if hit.chunk_id in trace.chunks else "",
                }
                for hit in trace.final.hits
            ]
        ),
        hide_index=True,
        width="stretch",
    )
    st.caption(f"Mode {md_escape(config.retrieval.mode)}; the query took {trace.total_ms:.0f} ms.")
