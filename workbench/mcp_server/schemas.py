"""The structured results of the MCP tools, as pydantic models.

Each model is a tool's ``outputSchema``: the SDK publishes its JSON schema in ``tools/list`` and
checks every successful result against it before sending, so a client can validate
``structuredContent`` with the same schema. Field descriptions end up in the schema, which is
what an agent reads to understand a result.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class Place(BaseModel):
    """Another place a folded passage appears (its text there is near-identical)."""

    source: str = Field(description="file name of the document")
    doc_id: int = Field(description="document id")
    chunk_id: int = Field(description="chunk id (get_chunk)")
    heading_path: list[str] = Field(description="headings enclosing that chunk's start, outermost first")
    page: int | None = Field(description="1-based page for paged formats (PDF), else null")


class Citation(BaseModel):
    id: int = Field(description="1-based citation number; the Markdown text marks this passage as [id]")
    source: str = Field(description="file name of the cited document")
    doc_id: int = Field(description="document id (get_document_summary, list_document_sections, resources)")
    chunk_id: int = Field(description="chunk id (get_chunk)")
    heading_path: list[str] = Field(
        description="headings enclosing the passage's sentence that matches the query best (where a passage "
        "runs across a heading, the section that sentence is in), outermost first"
    )
    page: int | None = Field(
        description="1-based page of that sentence for paged formats (PDF), else null",
    )
    score: float = Field(description="score from the last pipeline stage (higher is better; scale depends on stage)")
    text: str = Field(description="the passage text")
    low_confidence: bool = Field(
        default=False,
        description="true when no passage looks relevant (confidence.verdict is no_answer): a candidate, not an answer",
    )
    also_at: list[Place] = Field(
        default_factory=list,
        description="other places the same (near-identical) passage appears, folded into this citation "
        "(setting fold.enabled), best ranked first",
    )


class ConfidenceSignal(BaseModel):
    signal: str = Field(
        description="terms (idf-weighted share of query terms in the best top hit), dense (best "
        "cosine in sd above the collection's background) or rerank (cross-encoder "
        "probability)"
    )
    value: float | None = Field(description="the measured value; null when it could not be measured")
    low: float = Field(description="below this the signal says no_answer")
    high: float = Field(description="from this up the signal says relevant")
    used: bool = Field(description="whether it counted in the verdict")
    says: str | None = Field(description="the verdict this signal alone gives, when used")
    detail: str = Field(description="the evidence in words")


class ConfidenceResult(BaseModel):
    verdict: str = Field(description="relevant, ambiguous or no_answer: is the retrieved context worth answering from")
    reason: str = Field(description="what each signal said")
    evidence: list[ConfidenceSignal]


class QueryVariantEntry(BaseModel):
    text: str
    origin: str = Field(description="query (as typed), rewrite, multi N, sub-question N, hyde or keywords")
    routes: list[str] = Field(description="the routes that searched with this text: dense, bm25")


class LlmCallEntry(BaseModel):
    stage: str = Field(description="the pipeline stage that made the call: query or rerank")
    purpose: str
    label: str = Field(default="", description="what the call was about, e.g. a chunk id")
    ok: bool
    reply: str = Field(description="the generated text (a rewritten query, a score, ...)")
    error: str = ""
    prompt_tokens: int | None
    completion_tokens: int | None
    ms: float = Field(description="what the call took now (a cache lookup when cached)")
    cached: bool
    generated_ms: float = Field(description="what the endpoint took when it generated the reply")


class LlmActivity(BaseModel):
    query_enhancement: str = Field(description="query.enhance of the preset")
    query_variants: list[QueryVariantEntry] = Field(description="the texts the routes searched with")
    calls: list[LlmCallEntry]
    endpoint_calls: int
    cached_calls: int
    prompt_tokens: int
    completion_tokens: int
    ms: float


class SearchResult(BaseModel):
    query: str
    collection: str
    preset: str = Field(description="the preset whose settings produced this ranking")
    mode: str = Field(description="retrieval route: hybrid, bm25 or dense")
    citations: list[Citation] = Field(description="passages, best first")
    confidence: ConfidenceResult | None = Field(
        default=None, description="whether any passage looks relevant to the query, with the evidence"
    )
    withheld: int = Field(default=0, description="passages left out because the verdict is below min_confidence")
    llm: LlmActivity | None = Field(
        default=None,
        description="what the LLM stages (query enhancement, LLM rerank) generated and cost, when the preset uses them",
    )


class CollectionEntry(BaseModel):
    name: str
    documents: int = Field(description="successfully ingested documents")
    chunks: int = Field(description="chunks in the collection's default chunk set")
    embedding_model: str
    default_preset: str = Field(description="preset used when a call names none")
    backend: str = Field("local", description="where the indexes live: local, or milvus (URI)")


class CollectionList(BaseModel):
    collections: list[CollectionEntry]
    default_collection: str | None = Field(description="collection used when a call names none, if any")


class OutlineHeading(BaseModel):
    level: int = Field(description="1 for '#', up to 6")
    title: str


class DocumentSummary(BaseModel):
    doc_id: int
    collection: str
    source: str
    external_id: str | None
    title: str
    doc_type: str
    size_bytes: int = Field(description="size of the ingested file")
    chunk_count: int = Field(description="chunks in the chunk set the collection's preset searches")
    ingested_at: str = Field(description="ISO 8601 time of ingestion")
    status: str = Field(description="success, or failed (then error says why)")
    error: str | None
    outline: list[OutlineHeading] = Field(description="the document's Markdown headings, in order")
    excerpt: str = Field(description="the opening of the document's text")
    resource_uri: str = Field(description="resource with the full Markdown")


class Section(BaseModel):
    index: int = Field(description="0-based position in the document")
    level: int = Field(description="heading level; 0 for text before the first heading")
    title: str
    heading_path: list[str]
    start: int = Field(description="character offset where the section starts in the document's Markdown")
    end: int = Field(description="character offset where it ends (exclusive)")
    chunk_ids: list[int] = Field(description="chunks overlapping the section, in order (get_chunk reads them)")


class SectionList(BaseModel):
    doc_id: int
    collection: str
    source: str
    title: str
    sections: list[Section]


class Enrichment(BaseModel):
    title: str = ""
    summary: str = ""
    tags: list[str] = Field(default_factory=list)


class ChunkEntry(BaseModel):
    chunk_id: int
    ordinal: int = Field(description="0-based position of the chunk in its document")
    heading_path: list[str]
    page: int | None
    start: int
    end: int
    text: str
    enrichment: Enrichment | None = Field(
        default=None, description="LLM-written title, summary and tags (chunking.enrich), when the layout has them"
    )


class ChunkResult(BaseModel):
    doc_id: int
    collection: str
    source: str
    chunk: ChunkEntry
    before: list[ChunkEntry] = Field(description="up to `neighbors` preceding chunks, in document order")
    after: list[ChunkEntry] = Field(description="up to `neighbors` following chunks, in document order")
    resource_uri: str
