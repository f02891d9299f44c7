"""The one thread that writes the catalog during an ingest.

New vectors go to the embedding cache, then the documents that use them, a few per
transaction, so a document is never committed before its vectors and a crash loses at most the
documents still queued. Progress events from this thread are handed to the ingesting thread
(``drain_events``): a front end such as Streamlit may only draw from the thread that runs it.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, field
from pathlib import PurePath

from store import documents as stored_documents
from store.catalog import Catalog
from store.documents import DocumentVersion, FailedDocument
from store.embedding_cache import store_vectors
from store.originals import keep_original
from workbench.ingestion.parsers.images import IMAGE_DOC_TYPES
from workbench.ingestion.sources import FileOutcome, IngestReport, Progress, ProgressCallback, Source
from workbench.ingestion.workers import ParseOutcome

#: documents committed per catalog transaction at most (a crash loses at most these)
COMMIT_BATCH = 32


@dataclass
class PendingDocument:
    """A parsed document on its way to the catalog."""

    source: Source
    sha256: str
    replaces: bool
    outcome: ParseOutcome
    chunks: dict[str, list] = field(default_factory=dict)  # chunkset key -> NewChunk list


class CatalogWriter:
    """Commits vectors, documents and failures in the order they are handed over.

    ``close`` waits for everything queued (and re-raises a write error); ``abandon`` stops
    waiting for what is not committed.
    """

    def __init__(self, catalog: Catalog, collection_id: int, run_id: int, report: IngestReport,
                 progress: ProgressCallback):
        self.catalog, self.collection_id, self.run_id = catalog, collection_id, run_id
        self.report, self.progress = report, progress
        self._queue: queue.Queue = queue.Queue()
        # progress events from this thread are handed to the ingesting thread (``drain_events``):
        # a front end (Streamlit) may only draw from the thread that runs it
        self._events: queue.SimpleQueue = queue.SimpleQueue()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="ingest-writer", daemon=True)
        self._thread.start()

    def vectors(self, model: str, hashes: list[str], vectors) -> None:
        self._put(("vectors", model, hashes, vectors))

    def document(self, document: PendingDocument) -> None:
        self._put(("document", document))

    def failure(self, source: Source, sha: str, reason: str, replaces: bool) -> None:
        self._put(("failure", source, sha, reason, replaces))

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join()
        self.drain_events()
        if self._error is not None:
            raise self._error

    def drain_events(self) -> None:
        while True:
            try:
                event = self._events.get_nowait()
            except queue.Empty:
                return
            self.progress(event)

    def abandon(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=60)

    def _put(self, item) -> None:
        if self._error is not None:
            raise self._error
        self._queue.put(item)

    def _run(self) -> None:
        finished = False
        while not finished:
            batch = [self._queue.get()]
            while len(batch) < COMMIT_BATCH and batch[-1] is not None:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            if batch[-1] is None:
                finished = True
                batch.pop()
            if not batch or self._error is not None:
                continue
            try:
                self._commit(batch)
            except BaseException as error:  # re-raised in the ingesting thread
                self._error = error

    def _commit(self, batch: list) -> None:
        """Each item in order, one catalog transaction per run of documents (vectors first)."""
        documents: list[PendingDocument] = []
        for item in batch + [("end",)]:
            if item[0] == "document":
                documents.append(item[1])
                continue
            if documents:
                self._commit_documents(documents)
                documents = []
            if item[0] == "vectors":
                store_vectors(self.catalog, item[1], item[2], item[3])
            elif item[0] == "failure":
                self._record_failure(*item[1:])

    def _commit_documents(self, documents: list[PendingDocument]) -> None:
        self._events.put(Progress("store", f"{len(documents)} documents", len(self.report.outcomes),
                                  self.report.files_total))
        versions = [
            DocumentVersion(
                source=d.source.name, external_id=d.source.external_id, sha256=d.sha256,
                size_bytes=d.source.size_bytes, doc_type=d.outcome.parsed.doc_type, title=d.outcome.parsed.title,
                markdown=d.outcome.parsed.markdown, page_starts=list(d.outcome.parsed.page_starts), chunks=d.chunks,
                replaces=d.replaces,
            )
            for d in documents
        ]
        for document in documents:
            if document.outcome.parsed.doc_type in IMAGE_DOC_TYPES:  # the picture itself, for the app and MCP
                keep_original(self.catalog.path.parent, document.sha256, PurePath(document.source.name).suffix,
                              document.source.payload)
        statuses = stored_documents.commit_documents(self.catalog, self.collection_id, self.run_id, versions)
        self.report.outcomes.extend(
            FileOutcome(d.source.name, status, chunks=len(next(iter(d.chunks.values()), [])))
            for d, status in zip(documents, statuses)
        )

    def _record_failure(self, source: Source, sha: str, reason: str, replaces: bool) -> None:
        failed = FailedDocument(
            source=source.name, external_id=source.external_id, sha256=sha, size_bytes=source.size_bytes,
            doc_type=PurePath(source.name).suffix.lstrip(".").lower() or "unknown", reason=reason,
        )
        stored_documents.record_failed_document(self.catalog, self.collection_id, self.run_id, failed, replaces)
        self.report.outcomes.append(FileOutcome(source.name, "failed", reason))
