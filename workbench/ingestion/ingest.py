"""Ingestion: files (or ready Markdown) into the catalog, then the indexes.

Per file: hash -> skip if that exact content is already in (before any parsing) -> parse to
Markdown -> chunk for every chunk set of the collection -> embed what the cache lacks -> one
transaction replaces the document's old rows with the new ones. Indexes are synced at the end;
a crash anywhere leaves the catalog consistent, and the next run (or query) re-syncs the
indexes from it. A file that fails is recorded with its reason and touches nothing else.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from store import documents as stored_documents
from store.catalog import Catalog
from store.documents import DocumentVersion, FailedDocument
from workbench.chunking.preparation import check_enrichment, prepare_chunks
from workbench.embedding import get_embedder
from workbench.embedding.cache import embed_cached
from workbench.ingestion.layout import Layout
from workbench.llm.client import LlmCall, LlmClient, summarize_calls

log = logging.getLogger(__name__)

#: documents committed per catalog transaction (bounds the work a crash can lose)
COMMIT_BATCH = 200


@dataclass(frozen=True)
class Source:
    """One document to ingest: a file's bytes, or Markdown that needs no parsing."""

    name: str
    data: bytes | None = None
    markdown: str | None = None
    external_id: str | None = None
    doc_type: str | None = None

    @classmethod
    def from_path(cls, path: Path) -> "Source":
        return cls(name=path.name, data=path.read_bytes())

    @classmethod
    def from_markdown(cls, name: str, markdown: str, external_id: str | None = None) -> "Source":
        return cls(name=name, markdown=markdown, external_id=external_id, doc_type="md")

    @property
    def payload(self) -> bytes:
        return self.data if self.data is not None else (self.markdown or "").encode("utf-8")

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.payload).hexdigest()


@dataclass(frozen=True)
class Progress:
    """A progress event: ``stage`` is one of hash, skip, parse, chunk, embed, store, index, failed, done."""

    stage: str
    source: str
    done: int
    total: int
    message: str = ""


@dataclass(frozen=True)
class FileOutcome:
    source: str
    status: str  # ingested | replaced | skipped | failed
    reason: str = ""
    chunks: int = 0


@dataclass
class IngestReport:
    collection: str
    outcomes: list[FileOutcome] = field(default_factory=list)
    embedded: int = 0
    cached: int = 0
    elapsed_s: float = 0.0
    indexes_rebuilt: int = 0
    llm_calls: list[LlmCall] = field(default_factory=list)  # chunk enrichment
    notes: list[str] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for outcome in self.outcomes if outcome.status == status)

    @property
    def parsed(self) -> int:
        return self.count("ingested") + self.count("replaced") + self.count("failed")

    @property
    def failures(self) -> list[FileOutcome]:
        return [o for o in self.outcomes if o.status == "failed"]

    def summary(self) -> str:
        parts = [
            f"{self.count('ingested')} new",
            f"{self.count('replaced')} replaced",
            f"{self.count('skipped')} unchanged (skipped before parsing)",
            f"{self.count('failed')} failed",
        ]
        enriched = ""
        if self.llm_calls:
            cost = summarize_calls(self.llm_calls)
            enriched = (f"; enriched {cost['calls'] - cost['failed']} of {cost['calls']} chunks with the LLM "
                        f"({cost['endpoint_calls']} endpoint calls, {cost['cached']} cached, "
                        f"{cost['prompt_tokens'] + cost['completion_tokens']} tokens)")
        return (
            f"{self.collection}: {len(self.outcomes)} files: {', '.join(parts)}; "
            f"parsed {self.parsed}, embedded {self.embedded} new chunk texts ({self.cached} from cache){enriched}; "
            f"{self.elapsed_s:.1f} s"
        )


ProgressCallback = Callable[[Progress], None]


def _quiet(_: Progress) -> None:
    pass


@dataclass
class _Pending:
    source: Source
    sha256: str
    title: str
    markdown: str
    doc_type: str
    page_starts: list[int]
    chunks: dict[str, list]  # chunkset key -> prepared chunks
    replaces: bool


def ingest(
    catalog: Catalog,
    collection_name: str,
    sources: Iterable[Source],
    layouts: list[Layout],
    progress: ProgressCallback | None = None,
) -> IngestReport:
    """Ingest ``sources``; every layout in ``layouts`` gets its chunks (the first is the default)."""
    progress = progress or _quiet
    started = time.perf_counter()
    sources = list(sources)
    report = IngestReport(collection_name)
    layouts, llm, skipped_layouts = _enrichable(catalog, layouts)
    report.notes.extend(skipped_layouts)
    start = stored_documents.start_ingest(
        catalog, collection_name, [(layout.chunkset_key, layout.chunkset_config()) for layout in layouts], len(sources)
    )
    collection_id, run_id, fingerprints = start.collection_id, start.run_id, start.fingerprints

    pending: list[_Pending] = []
    total = len(sources)
    for position, source in enumerate(sources, start=1):
        progress(Progress("hash", source.name, position, total))
        sha = source.sha256
        known = fingerprints.get(source.name)
        if known and known == (sha, "success"):
            report.outcomes.append(FileOutcome(source.name, "skipped", "unchanged since last ingest"))
            progress(Progress("skip", source.name, position, total, "unchanged"))
            continue
        try:
            progress(Progress("parse", source.name, position, total))
            parsed = _parse(source)
        except Exception as error:  # any parser failure is this file's problem only
            reason = _reason(error)
            _record_failure(catalog, collection_id, run_id, source, sha, reason, replaces=known is not None)
            report.outcomes.append(FileOutcome(source.name, "failed", reason))
            progress(Progress("failed", source.name, position, total, reason))
            continue
        progress(Progress("chunk", source.name, position, total))
        chunks = {}
        for layout in layouts:
            # the model supplies token counts (the over-length flag), token units and semantic breaks
            embedder = get_embedder(layout.embedding_model)
            chunks[layout.chunkset_key] = prepare_chunks(parsed.markdown, list(parsed.page_starts), layout.chunking,
                                                         embedder, llm, report.llm_calls)
        pending.append(
            _Pending(source, sha, parsed.title, parsed.markdown, parsed.doc_type, list(parsed.page_starts), chunks,
                     replaces=known is not None)
        )
        if len(pending) >= COMMIT_BATCH:
            _flush(catalog, collection_id, run_id, pending, layouts, report, progress, position, total)
            pending = []
    _flush(catalog, collection_id, run_id, pending, layouts, report, progress, total, total)

    from workbench.ingestion.indexing import sync_layout

    for layout in layouts:
        progress(Progress("index", layout.key, total, total))
        result = sync_layout(catalog, catalog.path.parent, collection_name, layout)
        report.indexes_rebuilt += int(result.rebuilt)
    stored_documents.finish_ingest(
        catalog, run_id, status="finished", parsed=report.parsed, skipped=report.count("skipped"),
        failed=report.count("failed"), embedded=report.embedded,
    )
    report.elapsed_s = time.perf_counter() - started
    progress(Progress("done", collection_name, total, total, report.summary()))
    return report


def _enrichable(catalog: Catalog, layouts: list[Layout]) -> tuple[list[Layout], LlmClient | None, list[str]]:
    """The layouts to fill now, the LLM client enrichment needs, and notes on layouts left for later.

    The first layout is the one asked for: enrichment without an endpoint fails it before any work.
    Other enriched layouts a collection keeps are skipped without an endpoint; their chunk sets are
    completed when they are next used.
    """
    if all(layout.chunking.enrich == "none" for layout in layouts):
        return layouts, None, []
    llm = LlmClient.from_env(catalog)
    check_enrichment(layouts[0].chunking, llm)
    if llm.available:
        return layouts, llm, []
    kept = [layout for layout in layouts if layout.chunking.enrich == "none"]
    notes = [f"layout {layout.key} (chunking.enrich={layout.chunking.enrich}) not updated: no LLM endpoint; "
             "it is completed when next used with one" for layout in layouts if layout not in kept]
    return kept, None, notes


def _parse(source: Source):
    from workbench.ingestion.parsing import ParsedDocument, parse_bytes

    if source.markdown is not None:
        markdown = source.markdown
        title = next((line.lstrip("#").strip() for line in markdown.splitlines() if line.startswith("#")), source.name)
        return ParsedDocument(markdown=markdown, doc_type=source.doc_type or "md", title=title)
    return parse_bytes(source.payload, source.name)


def _reason(error: Exception) -> str:
    from workbench.ingestion.parsing import ParseError

    if isinstance(error, ParseError):
        return str(error)
    return f"{type(error).__name__}: {error}"


def _record_failure(catalog, collection_id, run_id, source: Source, sha, reason, replaces: bool) -> None:
    failed = FailedDocument(
        source=source.name, external_id=source.external_id, sha256=sha, size_bytes=len(source.payload),
        doc_type=Path(source.name).suffix.lstrip(".").lower() or "unknown", reason=reason,
    )
    stored_documents.record_failed_document(catalog, collection_id, run_id, failed, replaces)


def _flush(catalog, collection_id, run_id, pending: list[_Pending], layouts, report, progress, done, total) -> None:
    if not pending:
        return
    for layout in layouts:
        texts = [chunk.indexed_text for item in pending for chunk in item.chunks[layout.chunkset_key]]
        embedder = get_embedder(layout.embedding_model)

        def on_batch(embedded: int, missing: int) -> None:
            progress(Progress("embed", f"{embedded}/{missing} new chunk texts", done, total))

        _, stats = embed_cached(catalog, embedder, texts, progress=on_batch)
        report.embedded += stats.embedded
        report.cached += stats.cached
    progress(Progress("store", f"{len(pending)} documents", done, total))
    versions = [
        DocumentVersion(
            source=item.source.name, external_id=item.source.external_id, sha256=item.sha256,
            size_bytes=len(item.source.payload), doc_type=item.doc_type, title=item.title, markdown=item.markdown,
            page_starts=item.page_starts, chunks=item.chunks, replaces=item.replaces,
        )
        for item in pending
    ]
    statuses = stored_documents.commit_documents(catalog, collection_id, run_id, versions)
    for item, status in zip(pending, statuses):
        report.outcomes.append(FileOutcome(item.source.name, status, chunks=len(next(iter(item.chunks.values()), []))))


def ensure_chunkset(catalog: Catalog, collection_name: str, layout: Layout,
                    progress: ProgressCallback | None = None) -> int:
    """Chunk (and embed, through the cache) every document lacking chunks in this layout's chunk set."""
    progress = progress or _quiet
    unchunked = stored_documents.documents_lacking_chunks(
        catalog, collection_name, layout.chunkset_key, layout.chunkset_config()
    )
    todo = unchunked.documents
    llm = LlmClient.from_env(catalog) if (todo and layout.chunking.enrich != "none") else None
    if todo:
        check_enrichment(layout.chunking, llm)
    if not todo:
        return 0
    embedder = get_embedder(layout.embedding_model)
    prepared = []
    for position, (doc_id, markdown, page_starts) in enumerate(todo, start=1):
        progress(Progress("chunk", str(doc_id), position, len(todo)))
        prepared.append((doc_id, prepare_chunks(markdown or "", list(page_starts or []), layout.chunking, embedder,
                                                llm)))
    texts = [chunk.indexed_text for _, chunks in prepared for chunk in chunks]
    embed_cached(catalog, embedder, texts,
                 progress=lambda d, t: progress(Progress("embed", f"{d}/{t} new chunk texts", d, t)))
    stored_documents.add_chunks(catalog, unchunked.collection_id, layout.chunkset_key, prepared)
    return len(todo)
