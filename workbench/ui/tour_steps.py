"""The guided tour's script: one step per stage, what to say, what to try, and where.

Each step names an ``exhibit``: a live view the tour page computes on the demo collection, so the
audience sees real numbers instead of slides.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.ui.pages import CHUNKING_LAB, DOCUMENTS, EMBEDDING_MAP, EVALUATION, PRESETS_MCP, RETRIEVAL_LAB, PageSpec


@dataclass(frozen=True)
class TourStep:
    title: str
    story: str  # Markdown: the talking points
    try_this: str  # Markdown: what to do on the linked page
    page: PageSpec | None
    exhibit: str | None  # key of a live view on the tour page, or None


TOUR_STEPS: tuple[TourStep, ...] = (
    TourStep(
        "The corpus",
        "Retrieval is only as good as what it searches. The demo mixes two kinds of text: 40 scientific "
        "abstracts from the SciFact benchmark, where the questions are claims and the relevant abstracts "
        "are known, and four short documents about RAG itself in Markdown, PDF and Word. Together they "
        "give real scientific vocabulary, near-miss distractors and three different file formats.",
        "Open **Documents** and look at the table: every file, its type, size, chunk count and status.",
        DOCUMENTS,
        "corpus",
    ),
    TourStep(
        "Canonical Markdown",
        "Every file becomes one Markdown string. PDF extraction loses headings and re-wraps lines; Word "
        "keeps its headings. Every offset after this point, chunk boundaries, citations, golden-set spans, "
        "refers to this text, which is why it is stored and shown as it is.",
        "On **Documents**, pick *hybrid-search-and-fusion.pdf* and *chunking-strategies.docx* and compare "
        "their canonical Markdown.",
        DOCUMENTS,
        "canonical",
    ),
    TourStep(
        "Chunking",
        "Chunks are the unit of retrieval. Structure-aware splitting keeps sections together; fixed windows "
        "cut anywhere; sentence windows make many small chunks. Chunk length matters twice: too long and "
        "the embedding model truncates it (all-MiniLM-L6-v2 reads 256 word pieces), too short and a chunk "
        "loses its context.",
        "In the **Chunking lab**, compare strategies on one document: the coloured bands are chunks, the "
        "striped parts overlaps, and the histogram shows lengths against the model's limit.",
        CHUNKING_LAB,
        "chunking",
    ),
    TourStep(
        "Embeddings",
        "Each chunk becomes a 384-dimensional vector; similar meanings land close together. A 2-D "
        "projection can only hint at the real distances, but clusters by topic are usually visible: "
        "the abstracts about immunity, metabolism or cell death group apart from the RAG documents.",
        "On the **Embedding map**, type a question and watch where it lands and which chunks it hits. "
        "Switch to t-SNE for tighter clusters.",
        EMBEDDING_MAP,
        None,
    ),
    TourStep(
        "Dense versus BM25",
        "Dense retrieval matches meaning; BM25 matches words, rewarding rare ones. On a scientific claim "
        "with a gene or drug name BM25 is hard to beat; on a paraphrased question dense retrieval finds "
        "what BM25 misses. Below, the same question goes through each route alone (✓ marks documents the "
        "golden set calls relevant).",
        "In the **Retrieval lab**, set side A to dense and side B to BM25 and compare their stage lists.",
        RETRIEVAL_LAB,
        "routes",
    ),
    TourStep(
        "Fusion",
        "Hybrid retrieval runs both routes and merges the ranked lists. Reciprocal rank fusion adds "
        "1/(k + rank) from each route, so a chunk that both routes rank well rises to the top, and "
        "scores on different scales never need comparing.",
        "In the **Retrieval lab**, follow a chunk through the rank-flow chart from its dense and BM25 "
        "ranks to its fused rank; change fusion.k and watch the order shift.",
        RETRIEVAL_LAB,
        "fusion",
    ),
    TourStep(
        "Diversity and reranking",
        "The top of a ranking is often repetitive. MMR re-picks results so each new one adds something the "
        "previous ones did not; lambda sets the balance. A cross-encoder reranker reads query and chunk "
        "together and rescores the top candidates: slower, and usually more accurate.",
        "In the **Retrieval lab**, turn MMR on for one side only and compare which chunks drop out.",
        RETRIEVAL_LAB,
        None,
    ),
    TourStep(
        "Measuring it",
        "Opinions about which configuration is better end with a golden set. The demo's golden set has 24 "
        "questions with judged documents and spans. Below, the three retrieval modes scored on it: "
        "nDCG@10 rewards relevant results near the top, recall@10 asks whether they appear at all.",
        "On **Evaluation**, run the golden set for two presets and look at the questions that changed.",
        EVALUATION,
        "evaluation",
    ),
    TourStep(
        "Presets and MCP",
        "A configuration that wins on the golden set is saved as a named preset. The same knowledge base "
        "and preset are then served to an AI assistant over MCP, so the assistant searches and cites "
        "with exactly the configuration that was measured.",
        "On **Presets & MCP**, save a preset and copy the Claude Desktop or VS Code configuration.",
        PRESETS_MCP,
        None,
    ),
)
