"""The one thread that writes the catalog during an ingest.

New vectors go to the embedding cache, then the documents that use them, up to ``COMMIT_BATCH``
per transaction, so a document is never committed before its vectors and a crash loses at most the
documents still queued. The writer waits while the model encodes (``paused``): on a CPU the
encoder uses every core, and work beside it slows it by more than the work itself takes, so
commits go between encode calls, beside the chunking of the next documents. Progress events from
this thread are handed to the ingesting thread (``drain_events``): a front end such as
Streamlit may only draw from the thread that runs it.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePath

from store import documents as stored_documents
from store.catalog import Catalog
from store.documents import DocumentVersion, FailedDocument
from store.embedding_cache import store_vectors
from store.originals import keep_original
from workbench.ingestion.parsers.document import ParsedDocument
from workbench.ingestion.parsers.images import IMAGE_DOC_TYPES
from workbench.ingestion.sources import FileOutcome, IngestReport, Progress, ProgressCallback, Source
from workbench.ingestion.workers import ParseOutcome

#: document types whose original file is kept beside the catalog: images (the picture is what the
#: app and MCP show), and PDFs, DOCX and PPTX (so a newer parser can read them again on ``sync``, and
#: ``sync --ocr`` the pictures an ingest skipped)
KEEP_ORIGINAL_TYPES = IMAGE_DOC_TYPES | {"pdf", "docx", "pptx"}

#: documents committed per catalog transaction at most (a crash loses at most these, and they are
#: imported again next time); each transaction costs ~8 ms besides its rows, so fewer is faster
COMMIT_BATCH = 128


@dataclass
class PendingDocument:
    """A parsed document on its way to the catalog."""

    source: Source
    sha256: str
    replaces: bool
    outcome: ParseOutcome
    chunks: dict[str, list] = field(default_factory=dict)  # chunkset key -> NewChunk list
    #: tokens past the model's window, one entry per chunk over it (the first layout's chunks)
    over_window: tuple[int, ...] = ()

    @property
    def parsed(self) -> ParsedDocument:
        """The document as parsed: a pending document goes on to chunking only once it parsed."""
        if self.outcome.parsed is None:
            raise ValueError(f"{self.source.name} has not parsed ({self.outcome.reason or 'no outcome yet'})")
        return self.outcome.parsed


class CatalogWriter:
    """Commits vectors, documents and failures in the order they are handed over.

    ``close`` waits for everything queued (and re-raises a write error); ``abandon`` stops
    waiting for what is not committed.
    """

    def __init__(
        self, catalog: Catalog, collection_id: int, run_id: int, report: IngestReport, progress: ProgressCallback
    ):
        self.catalog, self.collection_id, self.run_id = catalog, collection_id, run_id
        self.report, self.progress = report, progress
        self._queue: queue.Queue = queue.Queue()
        # progress events from this thread are handed to the ingesting thread (``drain_events``):
        # a front end (Streamlit) may only draw from the thread that runs it
        self._events: queue.SimpleQueue = queue.SimpleQueue()
        self._error: BaseException | None = None
        self._told_to_stop = False
        self._may_write = threading.Event()
        self._may_write.set()
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

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """No commit starts inside (one under way finishes); the queue keeps what is handed over."""
        self._may_write.clear()
        try:
            yield
        finally:
            self._may_write.set()

    def abandon(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=60)

    def _put(self, item) -> None:
        if self._error is not None:
            raise self._error
        self._queue.put(item)

    def _run(self) -> None:
        while not self._told_to_stop:
            first = self._queue.get()  # waiting with the file closed: other processes get their turn
            if first is None:
                return
            if self._error is not None:
                continue  # after a failed write, drain without writing until told to stop
            self._may_write.wait()
            try:
                with self.catalog.kept_open():  # one open of the file for a run of commits, not one each
                    self._commit_queued(first)
            except BaseException as error:  # re-raised in the ingesting thread
                self._error = error

    def _commit_queued(self, first) -> None:
        """Commits ``first`` and all queued behind it, ``COMMIT_BATCH`` at a time, until the queue is
        empty or the writer is paused."""
        batch = [first]
        while not self._told_to_stop and self._may_write.is_set():
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is None:
                self._told_to_stop = True
            else:
                batch.append(item)
            if len(batch) == COMMIT_BATCH:
                self._commit(batch)
                batch = []
        if batch:
            self._commit(batch)

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
        self._events.put(
            Progress("store", f"{len(documents)} documents", len(self.report.outcomes), self.report.files_total)
        )
        versions = [
            DocumentVersion(
                source=d.source.name,
                external_id=d.source.external_id,
                sha256=d.sha256,
                size_bytes=d.source.size_bytes,
                doc_type=d.parsed.doc_type,
                title=d.parsed.title,
                markdown=d.parsed.markdown,
                page_starts=list(d.parsed.page_starts),
                chunks=d.chunks,
                replaces=d.replaces,
                parser_version=d.parsed.parser_version,
                parse_report={"images": [note.to_json() for note in d.parsed.images]} if d.parsed.images else None,
            )
            for d in documents
        ]
        for document in documents:
            if document.parsed.doc_type in KEEP_ORIGINAL_TYPES:
                keep_original(
                    self.catalog.path.parent,
                    document.sha256,
                    PurePath(document.source.name).suffix,
                    document.source.payload,
                )
        statuses = stored_documents.commit_documents(self.catalog, self.collection_id, self.run_id, versions)
        self.report.outcomes.extend(
            FileOutcome(
                d.source.name,
                status,
                chunks=len(next(iter(d.chunks.values()), [])),
                over_window=d.over_window,
                images=d.parsed.images,
            )
            for d, status in zip(documents, statuses, strict=False)
        )

    def _record_failure(self, source: Source, sha: str, reason: str, replaces: bool) -> None:
        failed = FailedDocument(
            source=source.name,
            external_id=source.external_id,
            sha256=sha,
            size_bytes=source.size_bytes,
            doc_type=PurePath(source.name).suffix.lstrip(".").lower() or "unknown",
            reason=reason,
        )
        stored_documents.record_failed_document(self.catalog, self.collection_id, self.run_id, failed, replaces)
        self.report.outcomes.append(FileOutcome(source.name, "failed", reason))
