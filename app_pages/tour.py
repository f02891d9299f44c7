"""Guided tour: the stages of retrieval one at a time, each with live numbers from the demo."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.chunking.preview import preview_chunking
from workbench.config import ChunkingConfig, WorkbenchConfig
from workbench.demo import DEMO_COLLECTION, DEMO_GOLDEN
from workbench.evaluation import golden as golden_sets
from workbench.evaluation.runner import evaluate_collection
from workbench.retrieval.stages import BM25, DENSE, FUSION
from workbench.retrieval.trace import Trace
from workbench.text import shown_name
from workbench.ui import session
from workbench.ui.access import read_only
from workbench.ui.demo_loader import load_demo_with_progress
from workbench.ui.text import md_escape, shorten
from workbench.ui.tour_steps import TOUR_STEPS
from workbench.ui.widgets import page_link

STEP_KEY = "tour_step"
CHUNKING_DOCUMENT = "chunking-strategies.docx"
CANONICAL_EXAMPLES = ("hybrid-search-and-fusion.pdf", "chunking-strategies.docx")
TOUR_CHUNKINGS = (
    ("recursive, 1000 characters", ChunkingConfig()),
    ("one chunk per heading section", ChunkingConfig(strategy="markdown")),
    ("fixed, 60 tokens", ChunkingConfig(strategy="fixed", unit="tokens", size=60, overlap=10)),
    ("sentence windows (±1)", ChunkingConfig(strategy="sentence_window", window=1, size=1000)),
)
TOUR_METRICS = ("ndcg@10", "recall@10", "mrr@10")
TOP = 5


def demo_config() -> WorkbenchConfig:
    info = session.collection_info(DEMO_COLLECTION)
    return session.current_config(DEMO_COLLECTION, info.default_preset if info else None)


def demo_document(source: str):
    return next((doc for doc in session.documents(DEMO_COLLECTION) if doc.source == source), None)


def golden_queries():
    return golden_sets.find(DEMO_GOLDEN, session.home_path()).queries


def ranked_rows(trace: Trace, relevant: dict[str, int]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "rank": hit.rank,
                "relevant": "✓" if trace.chunks[hit.chunk_id].source in relevant else "",
                "document": shown_name(trace.chunks[hit.chunk_id].source),
                "text": shorten(trace.chunks[hit.chunk_id].text, 110),
            }
            for hit in trace.final.hits
            if hit.chunk_id in trace.chunks
        ]
    )


# -- exhibits -----------------------------------------------------------------------------------


def exhibit_corpus() -> None:
    documents = [doc for doc in session.documents(DEMO_COLLECTION) if doc.status == "success"]
    by_type = pd.DataFrame([{"type": doc.doc_type} for doc in documents]).value_counts().rename("documents")
    info = session.collection_info(DEMO_COLLECTION)
    left, middle, right = st.columns(3)
    left.metric("Documents", len(documents))
    middle.metric("Chunks", info.chunks if info else 0)
    right.metric("Golden questions", len(golden_queries()))
    st.dataframe(by_type.reset_index(), hide_index=True)


def exhibit_canonical() -> None:
    columns = st.columns(len(CANONICAL_EXAMPLES))
    for column, source in zip(columns, CANONICAL_EXAMPLES, strict=False):
        doc = demo_document(source)
        if doc is None:
            continue
        markdown, pages = session.document_markdown(doc.id)
        column.caption(f"{source} ({doc.doc_type}, {len(pages) or 'no'} pages)")
        column.code(markdown[:700] + ("…" if len(markdown) > 700 else ""), language="markdown", wrap_lines=True)


@st.cache_data(show_spinner="Chunking four ways…", max_entries=4)
def chunking_table(doc_id: int, sha256: str, model: str) -> pd.DataFrame:
    markdown, _ = session.document_markdown(doc_id)
    rows = []
    for label, chunking in TOUR_CHUNKINGS:
        preview = preview_chunking(markdown, chunking, session.embedder(model))
        rows.append(
            {
                "chunking": label,
                "chunks": preview.count,
                "median tokens": round(preview.token_stats()["median"]),
                "longest (tokens)": round(preview.token_stats()["max"]),
                "over the model's limit": preview.over_limit,
            }
        )
    return pd.DataFrame(rows)


def exhibit_chunking() -> None:
    doc = demo_document(CHUNKING_DOCUMENT)
    if doc is None:
        st.info(f"{CHUNKING_DOCUMENT} is not in the demo collection; reload the demo to see this exhibit.")
        return
    st.caption(f"{CHUNKING_DOCUMENT}, chunked four ways:")
    st.dataframe(chunking_table(doc.id, doc.sha256, demo_config().embedding.model), hide_index=True)


def pick_query():
    queries = golden_queries()
    by_id = {q.id: q for q in queries}
    default = "rag-5" if "rag-5" in by_id else queries[0].id
    chosen = st.selectbox(
        "Question from the golden set",
        list(by_id),
        index=list(by_id).index(default),
        format_func=lambda i: by_id[i].query,
        key="tour_query",
    )
    return by_id[chosen]


def exhibit_routes() -> None:
    query = pick_query()
    config = demo_config().with_value("retrieval.top_k", TOP)
    relevant = query.doc_grades()
    columns = st.columns(2)
    for column, mode in zip(columns, ("dense", "bm25"), strict=False):
        trace = session.workbench().query(query.query, DEMO_COLLECTION, config.with_value("retrieval.mode", mode))
        column.markdown(f"**{mode}** ({trace.total_ms:.0f} ms)")
        column.dataframe(ranked_rows(trace, relevant), hide_index=True)


def exhibit_fusion() -> None:
    query = pick_query()
    config = demo_config().with_overrides(["retrieval.mode=hybrid", "fusion.method=rrf", f"retrieval.top_k={TOP}"])
    trace = session.workbench().query(query.query, DEMO_COLLECTION, config)
    fusion = trace.stage(FUSION)
    relevant = query.doc_grades()
    rows = []
    for hit in trace.final.hits:
        routes = fusion.details.get(hit.chunk_id, {}) if fusion else {}
        view = trace.chunks[hit.chunk_id]
        rows.append(
            {
                "rank": hit.rank,
                "relevant": "✓" if view.source in relevant else "",
                "document": shown_name(view.source),
                "dense rank": (routes.get(DENSE) or {}).get("rank"),
                "bm25 rank": (routes.get(BM25) or {}).get("rank"),
                "RRF score": round(hit.score, 4),
            }
        )
    st.caption(
        f"RRF with k = {config.fusion.k}: score = Σ 1/(k + rank) over the routes that found the chunk "
        "(an empty rank: that route did not return it)."
    )
    st.dataframe(pd.DataFrame(rows), hide_index=True)


@st.cache_data(show_spinner="Scoring the golden set three ways…", max_entries=4)
def evaluation_table(catalog_version: tuple, config: WorkbenchConfig) -> pd.DataFrame:
    # catalog_version keys the cache: new or deleted documents change the scores
    golden = golden_sets.find(DEMO_GOLDEN, session.home_path())
    rows = []
    for mode in ("bm25", "dense", "hybrid"):
        result = evaluate_collection(
            session.workbench(),
            DEMO_COLLECTION,
            golden,
            config.with_value("retrieval.mode", mode),
            metric_names=TOUR_METRICS,
        )
        rows.append({"mode": mode, **{name: round(result.metrics[name], 3) for name in TOUR_METRICS}})
    return pd.DataFrame(rows)


def exhibit_evaluation() -> None:
    st.dataframe(evaluation_table(session.catalog_version(), demo_config()), hide_index=True)
    st.caption("Document level: a document counts where its best chunk ranks.")


EXHIBITS = {
    "corpus": exhibit_corpus,
    "canonical": exhibit_canonical,
    "chunking": exhibit_chunking,
    "routes": exhibit_routes,
    "fusion": exhibit_fusion,
    "evaluation": exhibit_evaluation,
}


def move(offset: int) -> None:
    st.session_state[STEP_KEY] = min(max(st.session_state.get(STEP_KEY, 0) + offset, 0), len(TOUR_STEPS) - 1)


st.title("Guided tour")
demo = session.demo_status()
if session.collection_info(DEMO_COLLECTION) is None or (demo.total and not demo.complete):
    if demo.partial:
        st.info(
            f"The tour runs on the bundled demo, which is incomplete here ({md_escape(demo.describe())}): its "
            "last load was interrupted. Loading it again finishes it without re-embedding.",
            icon=":material/info:",
        )
    else:
        st.info(
            "The tour runs on the bundled demo, which is not loaded in this home yet. Loading it takes about "
            "30 seconds and adds the collection “demo” beside any you have.",
            icon=":material/info:",
        )
    if not read_only() and st.button(
        "Load the demo", key="tour_load_demo", type="primary", icon=":material/rocket_launch:"
    ):
        load_demo_with_progress()
    st.stop()

position = st.session_state.setdefault(STEP_KEY, 0)
step = TOUR_STEPS[position]
st.progress((position + 1) / len(TOUR_STEPS), text=f"Step {position + 1} of {len(TOUR_STEPS)}: {step.title}")
st.header(step.title)
st.markdown(step.story)
if step.exhibit:
    with st.container(border=True):
        EXHIBITS[step.exhibit]()
st.markdown(f"**Try it:** {step.try_this}")
if step.page is not None:
    page_link(step.page, f"Open {step.page.title}")
back, forward, _ = st.columns([1, 1, 4])
back.button("← Back", key="tour_back", on_click=move, args=(-1,), disabled=position == 0)
forward.button("Next →", key="tour_next", on_click=move, args=(1,), disabled=position == len(TOUR_STEPS) - 1)
st.caption(
    f"Questions and documents come from the demo collection “{md_escape(DEMO_COLLECTION)}”; see "
    "demo/ATTRIBUTION.md for sources."
)
