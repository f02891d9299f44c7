"""What each MCP tool does, over a ``Workbench``, without the protocol.

Every tool returns a ``ToolOutput``: Markdown for people and models, plus the structured result
(a ``schemas`` model) that becomes ``structuredContent``. Mistakes the caller can fix raise one
of ``CALLER_ERRORS`` with a message naming the fix; the server turns those into ``isError``
results.

Sharing a home with the app (another process): nothing here keeps a catalog connection open.
Searches read the immutable index snapshot that ``CURRENT`` points at and reload it when a
writer publishes a new one, so documents ingested elsewhere show up on the next query. The
settings a search needs (collection index settings, preset) come from the catalog, which waits
while another process holds it; if it stays busy past the catalog's timeout, the settings read
last time for the same collection and preset are reused, so queries do not fail on a lock.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from urllib.parse import quote

from pydantic import BaseModel

from store import collections as stored_collections
from store import repository as repo
from store.catalog import CatalogBusyError
from store.documents import chunk_in_context
from store.retrieval_index import IndexBackendError
from workbench.chunking.enrich import stored_enrichment
from workbench.chunking.headings import find_headings
from workbench.config import ConfigError, WorkbenchConfig
from workbench.embedding import get_embedder
from workbench.generation.citing import matched_places
from workbench.mcp_server import views
from workbench.mcp_server.arguments import (
    ToolInputError,
    check_min_confidence,
    check_neighbors,
    check_query,
    check_reference,
    check_top_k,
)
from workbench.mcp_server.citations import citations_from_hits, confidence_result, render_search
from workbench.mcp_server.defaults import ServerDefaults
from workbench.mcp_server.outline import ChunkSpan, chunk_ids_overlapping, excerpt, sections_of
from workbench.mcp_server.schemas import (
    ChunkEntry,
    ChunkResult,
    CollectionEntry,
    CollectionList,
    DocumentSummary,
    LlmActivity,
    LlmCallEntry,
    OutlineHeading,
    QueryVariantEntry,
    SearchResult,
    Section,
    SectionList,
)
from workbench.mcp_server.schemas import (
    Enrichment as EnrichmentEntry,
)
from workbench.mcp_server.targets import Target, TargetResolver
from workbench.models.availability import ModelNotAvailableError
from workbench.retrieval.confidence import NO_ANSWER, reaches
from workbench.retrieval.fold import folded_places
from workbench.retrieval.pipeline import QueryError, needs_query_vectors, reranks
from workbench.service import NotFoundError, Workbench, uses_llm

log = logging.getLogger(__name__)

URI_SCHEME = "workbench"
#: errors a caller can act on; anything else is a bug, logged with its traceback
CALLER_ERRORS: tuple[type[Exception], ...] = (
    ToolInputError,
    NotFoundError,
    ConfigError,
    QueryError,
    CatalogBusyError,
    ModelNotAvailableError,
    IndexBackendError,  # an index backend that is down or missing a collection (Milvus): the message names the fix
)
#: the search tools for agents that pick their own strategy run one route, nothing after it
#: the single-route tools search with the query as typed: no enhancement, MMR or rerank
_ROUTE_ONLY = {"mmr.enabled": False, "rerank.method": "cross_encoder", "rerank.model": "", "query.enhance": "none"}
KEYWORD_ONLY = {"retrieval.mode": "bm25", **_ROUTE_ONLY}
SEMANTIC_ONLY = {"retrieval.mode": "dense", **_ROUTE_ONLY}
#: the settings each search tool sets on the preset's configuration
SEARCH_ROUTES: dict[str, dict[str, object]] = {
    "query_knowledge_hub": {},
    "search_by_keyword": KEYWORD_ONLY,
    "search_by_semantic": SEMANTIC_ONLY,
}
#: resources/list has no paging in the SDK's server; past this, clients read documents by template
MAX_LISTED_RESOURCES = 1000


@dataclass(frozen=True)
class ToolOutput:
    markdown: str
    result: BaseModel
    images: tuple[tuple[bytes, str], ...] = ()  # (data, MIME type): an image document's picture


@dataclass(frozen=True)
class DocumentResource:
    uri: str
    name: str
    title: str
    description: str


def resource_uri(collection: str, doc_id: int) -> str:
    return f"{URI_SCHEME}://{quote(collection, safe='')}/{doc_id}"


#: set while the server answers a search on its event loop (``HubProvider.answer``)
ON_EVENT_LOOP: ContextVar[bool] = ContextVar("answering_on_the_event_loop", default=False)


def _routed(config: WorkbenchConfig, route: dict[str, object]) -> WorkbenchConfig:
    """``config`` with a search tool's route (keyword only, semantic only) set."""
    for key, value in route.items():
        config = config.with_value(key, value)
    return config


class KnowledgeHub:
    def __init__(self, bench: Workbench, defaults: ServerDefaults | None = None):
        self.bench = bench
        self.defaults = defaults or ServerDefaults()
        # One pipeline run at a time: Hugging Face fast tokenizers raise "Already borrowed" when
        # two threads encode at once, and the tool calls arrive on a thread pool.
        self._pipeline_lock = threading.Lock()
        self._targets = TargetResolver(bench, self.defaults)
        # a document's Markdown never changes under its id (a changed file is a new document):
        # citations of the same documents read the catalog once
        self._markdown = functools.lru_cache(maxsize=64)(bench.markdown)

    # -- what a call runs against -------------------------------------------------------------

    def resolve(self, collection: str | None, preset: str | None) -> Target:
        """Collection: argument, else ``--collection``, else the only one. Preset: argument,
        else ``--preset``, else the collection's default."""
        return self._targets.resolve(collection, preset)

    def default_collection(self, names: list[str]) -> str | None:
        if self.defaults.collection in names:
            return self.defaults.collection
        return names[0] if len(names) == 1 and not self.defaults.collection else None

    # -- search tools -------------------------------------------------------------------------

    def query_knowledge_hub(
        self,
        query: str,
        top_k: int,
        collection: str | None = None,
        preset: str | None = None,
        min_confidence: str | None = None,
    ) -> ToolOutput:
        return self._search(query, top_k, collection, preset, {}, min_confidence)

    def search_by_keyword(
        self, query: str, top_k: int, collection: str | None = None, min_confidence: str | None = None
    ) -> ToolOutput:
        return self._search(query, top_k, collection, None, KEYWORD_ONLY, min_confidence)

    def search_by_semantic(
        self, query: str, top_k: int, collection: str | None = None, min_confidence: str | None = None
    ) -> ToolOutput:
        return self._search(query, top_k, collection, None, SEMANTIC_ONLY, min_confidence)

    def answers_at_once(self, tool: str, query: str, collection: str | None, preset: str | None = None) -> bool:
        """Whether the search ``tool`` (one of ``SEARCH_ROUTES``) needs nothing slow: its
        collection and preset resolved before and the catalog unchanged since, its indexes
        loaded, its query's vector kept (or no dense route), and no model or endpoint to call
        (rerank, LLM stages). The server answers such a call on its event loop
        (``HubProvider.answer``); anything else, mistakes included, goes to a worker thread,
        where the call itself says what is wrong."""
        try:
            target = self._targets.kept(collection, preset)
            if target is None:
                return False
            config = _routed(target.config, SEARCH_ROUTES[tool])
            if uses_llm(config) or reranks(config.rerank):
                return False
            if needs_query_vectors(config) and not self.bench.query_vector_kept(
                config.embedding.key, check_query(query)
            ):
                return False
            return self.bench.snapshot_loaded(target.collection, config)
        except Exception:  # a mistake in the arguments: the worker thread's call reports it
            return False

    def _search(
        self,
        query: str,
        top_k: int,
        collection: str | None,
        preset: str | None,
        route: dict[str, object],
        min_confidence: str | None = None,
    ) -> ToolOutput:
        text, k = check_query(query), check_top_k(top_k)
        minimum = check_min_confidence(min_confidence)
        target = self.resolve(collection, preset)
        config = _routed(target.config, route).with_value("retrieval.top_k", k)
        if needs_query_vectors(config) and not uses_llm(config):
            # before the pipeline's lock: the queries of clients that ask at once are embedded in one batch
            self.bench.embed_query(config.embedding.key, text)
        # on the event loop the call runs no model (answers_at_once), so it needs no tokenizer and
        # must not wait for a worker thread's rerank to let go of the lock; nor does a search that
        # runs no model at all (BM25 alone), which must not wait for the warm-up's first encoding
        runs_a_model = needs_query_vectors(config) or reranks(config.rerank) or uses_llm(config)
        with self._pipeline_lock if runs_a_model and not ON_EVENT_LOOP.get() else contextlib.nullcontext():
            trace = self.bench.query(text, target.collection, config, source="mcp")
        verdict = trace.confidence.verdict if trace.confidence else None
        matched = matched_places(
            text, trace.final_chunks(), self.bench.snapshot(target.collection, config), self._markdown
        )
        citations = citations_from_hits(
            trace.final.hits,
            trace.chunks,
            low_confidence=verdict == NO_ANSWER,
            matched=matched,
            folded=folded_places(trace),
        )
        withheld = 0
        if minimum and verdict and not reaches(verdict, minimum):
            withheld, citations = len(citations), []
        result = SearchResult(
            query=text,
            collection=target.collection,
            preset=target.preset,
            mode=config.retrieval.mode,
            citations=citations,
            confidence=confidence_result(trace.confidence),
            withheld=withheld,
            llm=llm_activity(trace, config),
        )
        return ToolOutput(render_search(result, trace.notes), result)

    # -- collections and documents ------------------------------------------------------------

    def list_collections(self) -> ToolOutput:
        infos = self.bench.collections()
        result = CollectionList(
            collections=[
                CollectionEntry(
                    name=i.name,
                    documents=i.documents,
                    chunks=i.chunks,
                    embedding_model=i.embedding_model,
                    default_preset=i.default_preset,
                    backend=i.backend,
                )
                for i in infos
            ],
            default_collection=self.default_collection([i.name for i in infos]),
        )
        return ToolOutput(views.render_collections(result), result)

    def get_document_summary(self, doc_id: int | str, collection: str | None = None) -> ToolOutput:
        document, collection_name = self._document(check_reference("doc_id", doc_id), collection)
        markdown = self.bench.markdown(document.id)[0] if document.status == "success" else ""
        result = DocumentSummary(
            doc_id=document.id,
            collection=collection_name,
            source=document.source,
            external_id=document.external_id,
            title=document.title or document.source,
            doc_type=document.doc_type,
            size_bytes=document.size_bytes,
            chunk_count=len(self._chunk_rows(document.id, collection_name)),
            ingested_at=document.ingested_at.isoformat(),
            status=document.status,
            error=document.error,
            outline=[OutlineHeading(level=h.level, title=h.text) for h in find_headings(markdown)],
            excerpt=excerpt(markdown),
            resource_uri=resource_uri(collection_name, document.id),
        )
        return ToolOutput(views.render_document_summary(result), result)

    def list_document_sections(self, doc_id: int | str, collection: str | None = None) -> ToolOutput:
        document, collection_name = self._document(check_reference("doc_id", doc_id), collection)
        markdown = self.bench.markdown(document.id)[0] if document.status == "success" else ""
        chunks = [ChunkSpan(row[0], row[3], row[4]) for row in self._chunk_rows(document.id, collection_name)]
        sections = [
            Section(
                index=i,
                level=s.level,
                title=s.title,
                heading_path=list(s.heading_path),
                start=s.start,
                end=s.end,
                chunk_ids=chunk_ids_overlapping(s, chunks),
            )
            for i, s in enumerate(sections_of(markdown))
        ]
        result = SectionList(
            doc_id=document.id,
            collection=collection_name,
            source=document.source,
            title=document.title or document.source,
            sections=sections,
        )
        return ToolOutput(views.render_sections(result), result)

    def get_chunk(self, chunk_id: int, neighbors: int = 0) -> ToolOutput:
        neighbors = check_neighbors(neighbors)
        found = chunk_in_context(self.bench.catalog, int(chunk_id))
        if found is None:
            raise NotFoundError(
                f"chunk {chunk_id} not found; chunk ids come from query_knowledge_hub citations "
                "or list_document_sections"
            )
        document, collection_name, siblings = found.document, found.collection, found.siblings
        position = next(i for i, r in enumerate(siblings) if r[0] == found.chunk[0])
        result = ChunkResult(
            doc_id=document.id,
            collection=collection_name,
            source=document.source,
            chunk=_chunk_entry(siblings[position]),
            before=[_chunk_entry(r) for r in siblings[max(0, position - neighbors) : position]],
            after=[_chunk_entry(r) for r in siblings[position + 1 : position + 1 + neighbors]],
            resource_uri=resource_uri(collection_name, document.id),
        )
        image = self.bench.original_image(document)
        return ToolOutput(views.render_chunk(result), result, images=(image,) if image else ())

    def _document(self, ref: str, collection: str | None) -> tuple[repo.DocumentRow, str]:
        document = self.bench.document(ref, (collection or "").strip() or None)
        names = {c.id: c.name for c in stored_collections.list_collections(self.bench.catalog)}
        return document, names[document.collection_id]

    def _chunk_rows(self, doc_id: int, collection: str) -> list[tuple]:
        """The document's chunks in the chunk set its collection's preset searches, so the ids
        match the ones query_knowledge_hub cites."""
        return self.bench.chunks_of(doc_id, self.resolve(collection, None).config)

    # -- resources ----------------------------------------------------------------------------

    def document_markdown(self, collection: str, doc_ref: str) -> str:
        document = self.bench.document(check_reference("document", doc_ref), collection)
        if document.status != "success":
            raise ToolInputError(f"document {document.source!r} failed to ingest ({document.error}); it has no text")
        return self.bench.markdown(document.id)[0]

    def document_resources(self, limit: int = MAX_LISTED_RESOURCES) -> list[DocumentResource]:
        listed: list[DocumentResource] = []
        for name in self.bench.collection_names():
            for document in self.bench.documents(name):
                if document.status != "success":
                    continue
                if len(listed) >= limit:
                    return listed
                listed.append(
                    DocumentResource(
                        uri=resource_uri(name, document.id),
                        name=document.source,
                        title=document.title or document.source,
                        description=f"{document.doc_type} document {document.id} in collection {name!r} (Markdown)",
                    )
                )
        return listed

    # -- start-up -----------------------------------------------------------------------------

    def warm_up(self, before_models: Callable[[], object] | None = None) -> None:
        """Load the default collection's index snapshot and its embedding model, so the first
        query does not pay for them. With several collections and no default, warm them all;
        with none yet (or ``--collection`` not created yet), load the default embedding model,
        which the first ingest in the app and the first query will need.

        The snapshots first, the models after: a keyword search needs only the first, so on a
        BM25 preset the first answer does not wait for torch to load (about 10 s on two busy
        cores). The model is loaded outside the pipeline's lock; only its first encoding takes
        it (the tokenizer is not safe for two threads at once). ``before_models`` is called in
        between: the server waits there while a call is being answered, since importing torch
        holds the interpreter for seconds."""
        started = time.perf_counter()
        try:
            targets = [self.resolve(None, None)]
        except ToolInputError:  # several collections, or none yet
            targets = [self.resolve(name, None) for name in self.bench.collection_names()]
        except NotFoundError:  # --collection names one that does not exist yet
            targets = []
        for target in targets:
            self.bench.snapshot(target.collection, target.config)
        if targets:
            log.info("loaded the indexes of %s in %.1f s", ", ".join(t.collection for t in targets), _since(started))
        models = {target.config.embedding.key for target in targets} or {WorkbenchConfig().embedding.model}
        if before_models is not None:
            before_models()
        for model in sorted(models):
            embedder = get_embedder(model)
            with self._pipeline_lock:
                embedder.embed(["warm-up"])
        log.info("warmed %s in %.1f s", ", ".join([t.collection for t in targets] + sorted(models)), _since(started))


def _since(started: float) -> float:
    return time.perf_counter() - started


def llm_activity(trace, config: WorkbenchConfig) -> LlmActivity | None:
    """What the LLM stages generated and cost in ``trace``; None when the configuration uses none."""
    enhanced = trace.enhancement
    calls = trace.llm_calls()
    if enhanced is None and not calls:
        return None
    entries = [
        LlmCallEntry(
            stage=stage,
            purpose=c.purpose,
            label=c.label,
            ok=c.ok,
            reply=c.text,
            error=c.error,
            prompt_tokens=c.prompt_tokens,
            completion_tokens=c.completion_tokens,
            ms=c.elapsed_ms,
            cached=c.cached,
            generated_ms=c.generated_ms,
        )
        for stage, c in calls
    ]
    variants = enhanced.variants if enhanced else ()
    return LlmActivity(
        query_enhancement=config.query.enhance,
        query_variants=[QueryVariantEntry(text=v.text, origin=v.origin, routes=list(v.routes)) for v in variants],
        calls=entries,
        endpoint_calls=sum(1 for _, c in calls if not c.cached),
        cached_calls=sum(1 for _, c in calls if c.cached),
        prompt_tokens=sum(c.prompt_tokens or 0 for _, c in calls),
        completion_tokens=sum(c.completion_tokens or 0 for _, c in calls),
        ms=round(sum(c.elapsed_ms for _, c in calls), 1),
    )


def _chunk_entry(row: tuple) -> ChunkEntry:
    chunk_id, _doc_id, ordinal, start, end, text, _indexed, heading_path, page = row[:9]
    enrichment, _error = stored_enrichment(row[12] if len(row) > 12 else None)
    return ChunkEntry(
        chunk_id=chunk_id,
        ordinal=ordinal,
        heading_path=[str(h) for h in heading_path or ()],
        page=None if page is None else int(page),
        start=start,
        end=end,
        text=text,
        enrichment=EnrichmentEntry(**enrichment.to_dict()) if enrichment else None,
    )
