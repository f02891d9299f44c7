"""Documents, their chunks and the ingestion history: each function is one catalog transaction.

The units of work ingestion relies on live here whole, so their atomicity cannot be split by a
caller: ``commit_documents`` replaces a batch of documents with their chunks in every chunk set
and bumps the collection's generation in one transaction, so a crash leaves either the old
documents or the new ones, and the indexes (rebuilt from the catalog when their generation lags)
never see half a batch.
"""

from __future__ import annotations

from dataclasses import dataclass

from store import chunks_repository as chunk_repo
from store import repository as repo
from store.catalog import Catalog
from store.document_versions import Fingerprint, OutdatedDocument, document_fingerprints
from store.document_versions import outdated_documents as outdated_rows
from store.repository import DocumentRow, NewChunk, NotFoundError

# -- ingestion --------------------------------------------------------------------------------


@dataclass(frozen=True)
class IngestStart:
    collection_id: int
    run_id: int
    fingerprints: dict[str, Fingerprint]  # source name -> what was ingested under it before this run


@dataclass(frozen=True)
class DocumentVersion:
    """A parsed document with its chunks in every chunk set, ready to replace any older version."""

    source: str
    external_id: str | None
    sha256: str
    size_bytes: int
    doc_type: str
    title: str | None
    markdown: str
    page_starts: list[int]
    chunks: dict[str, list[NewChunk]]  # chunk set key -> chunks
    replaces: bool  # a document of this source name was in the catalog when the run started
    parser_version: int = 1  # of the parser that wrote ``markdown``
    parse_report: dict | None = None  # what the parser could not read, or read by OCR


@dataclass(frozen=True)
class FailedDocument:
    source: str
    external_id: str | None
    sha256: str
    size_bytes: int
    doc_type: str
    reason: str


def start_ingest(catalog: Catalog, collection: str, chunksets: list[tuple[str, dict]], files_total: int) -> IngestStart:
    """Register the chunk sets, read what is already ingested, and open an ingestion run."""
    with catalog.connect() as con:
        row = repo.get_collection(con, collection)
        for key, config in chunksets:
            repo.add_chunkset(con, row.id, key, config)
        fingerprints = document_fingerprints(con, row.id)
        run_id = repo.start_run(con, row.id, files_total)
    return IngestStart(row.id, run_id, fingerprints)


def record_failed_document(
    catalog: Catalog, collection_id: int, run_id: int, failed: FailedDocument, replaces: bool
) -> None:
    """Record a file that could not be ingested; an earlier good version stays searchable."""
    with catalog.connect() as con:
        if not replaces:
            repo.insert_document(
                con,
                collection_id,
                source=failed.source,
                external_id=failed.external_id,
                sha256=failed.sha256,
                size_bytes=failed.size_bytes,
                doc_type=failed.doc_type,
                title=None,
                markdown=None,
                page_starts=[],
                status="failed",
                error=failed.reason,
            )
        else:
            # only a previous failure row is refreshed
            existing = repo.find_document(con, collection_id, failed.source)
            if existing is not None and existing.status == "failed":
                repo.delete_document(con, existing.id)
                repo.insert_document(
                    con,
                    collection_id,
                    source=failed.source,
                    external_id=failed.external_id,
                    sha256=failed.sha256,
                    size_bytes=failed.size_bytes,
                    doc_type=existing.doc_type,
                    title=None,
                    markdown=None,
                    page_starts=[],
                    status="failed",
                    error=failed.reason,
                )
        repo.record_event(con, run_id, failed.source, failed.sha256, "failed", failed.reason)


def commit_documents(catalog: Catalog, collection_id: int, run_id: int, documents: list[DocumentVersion]) -> list[str]:
    """Replace each document's old rows (and chunks) with the new version, all in one transaction.

    Returns each document's outcome, row-aligned: ``replaced`` when it superseded a successful
    version, else ``ingested``. The collection's generation goes up once for the batch.
    """
    outcomes: list[str] = []
    with catalog.connect() as con:
        pending: list[DocumentVersion] = []  # inserted together, in bulk, when a replacement needs them in
        for document in documents:
            existing = None
            if document.replaces:
                if any(p.source == document.source for p in pending):  # a second version in this batch
                    _insert_versions(con, collection_id, pending)
                    pending = []
                existing = repo.find_document(con, collection_id, document.source)
                if existing is not None:
                    repo.delete_document(con, existing.id)
            pending.append(document)
            outcomes.append("replaced" if existing is not None and existing.status == "success" else "ingested")
        _insert_versions(con, collection_id, pending)
        repo.record_events(
            con, run_id, [(d.source, d.sha256, outcome) for d, outcome in zip(documents, outcomes, strict=False)]
        )
        repo.bump_generation(con, collection_id)
    return outcomes


def _insert_versions(con, collection_id: int, documents: list[DocumentVersion]) -> None:
    ids = repo.insert_documents(
        con,
        collection_id,
        [
            {
                "source": d.source,
                "external_id": d.external_id,
                "sha256": d.sha256,
                "size_bytes": d.size_bytes,
                "doc_type": d.doc_type,
                "title": d.title,
                "markdown": d.markdown,
                "page_starts": d.page_starts,
                "parser_version": d.parser_version,
                "parse_report": d.parse_report,
            }
            for d in documents
        ],
    )
    chunk_repo.insert_chunk_rows(
        con,
        collection_id,
        [(key, doc_id, chunks) for d, doc_id in zip(documents, ids, strict=False) for key, chunks in d.chunks.items()],
    )


def outdated_documents(catalog: Catalog, collection: str, versions: dict[str, int]) -> list[OutdatedDocument]:
    """The collection's documents written by an older parser than ``versions`` (type -> version) names."""
    with catalog.connect() as con:
        row = repo.get_collection(con, collection)
        return outdated_rows(con, row.id, versions)


def finish_ingest(
    catalog: Catalog, run_id: int, *, status: str, parsed: int, skipped: int, failed: int, embedded: int
) -> None:
    with catalog.connect() as con:
        repo.finish_run(con, run_id, status=status, parsed=parsed, skipped=skipped, failed=failed, embedded=embedded)


def delete_document(catalog: Catalog, collection: str, ref: str) -> DocumentRow:
    """Remove a document and its chunks; the collection's generation goes up so indexes follow."""
    with catalog.connect() as con:
        row = repo.get_collection(con, collection)
        document = repo.find_document(con, row.id, ref)
        if document is None:
            raise NotFoundError(
                f"document {ref!r} not found in collection {collection!r}; "
                "use a document id, external id or file name from `documents`"
            )
        repo.delete_document(con, document.id)
        repo.bump_generation(con, row.id)
    return document


@dataclass(frozen=True)
class UnchunkedDocuments:
    collection_id: int
    documents: list[tuple[int, str, list[int]]]  # (document id, Markdown, page starts)


def documents_lacking_chunks(
    catalog: Catalog, collection: str, chunkset_key: str, chunkset_config: dict
) -> UnchunkedDocuments:
    """Register the chunk set and list the successful documents that have no chunks in it yet."""
    with catalog.connect() as con:
        row = repo.get_collection(con, collection)
        repo.add_chunkset(con, row.id, chunkset_key, chunkset_config)
        return UnchunkedDocuments(row.id, repo.documents_without_chunks(con, row.id, chunkset_key))


def add_chunks(
    catalog: Catalog, collection_id: int, chunkset_key: str, chunks_by_document: list[tuple[int, list[NewChunk]]]
) -> None:
    """Add a chunk set's chunks for several documents and bump the generation, in one transaction."""
    with catalog.connect() as con:
        chunk_repo.insert_chunk_rows(
            con, collection_id, [(chunkset_key, doc_id, chunks) for doc_id, chunks in chunks_by_document]
        )
        repo.bump_generation(con, collection_id)


# -- what the indexes are built from ----------------------------------------------------------


@dataclass(frozen=True)
class IndexSource:
    """A chunk set's chunk rows and the collection's documents at one catalog generation."""

    generation: int
    chunk_rows: dict[str, list] | None  # column -> values (numpy); None when the index is current
    documents: list[tuple] | None

    @property
    def up_to_date(self) -> bool:
        return self.chunk_rows is None


def index_source(catalog: Catalog, collection: str, chunkset_key: str, indexed_generation: int | None) -> IndexSource:
    """What an index of ``chunkset_key`` must hold, unless it already reflects the catalog.

    ``indexed_generation`` is the generation the published index reflects (``None`` when there
    is none). Generations only go up, so an index that matches the catalog's is current.
    """
    with catalog.connect() as con:
        row = repo.get_collection(con, collection)
        if indexed_generation == row.generation:
            return IndexSource(row.generation, None, None)
        return IndexSource(
            row.generation, chunk_repo.chunkset_rows(con, row.id, chunkset_key), repo.document_infos(con, row.id)
        )


# -- reading documents and chunks -------------------------------------------------------------


def documents_of(catalog: Catalog, collection: str) -> list[DocumentRow]:
    """The collection's documents by source name, with chunk counts in its default chunk set."""
    with catalog.connect() as con:
        row = repo.get_collection(con, collection)
        default_chunkset = next(iter(repo.chunksets(con, row.id)), None)
        return repo.documents(con, row.id, default_chunkset)


def find_document(catalog: Catalog, ref: str, collection: str | None = None) -> DocumentRow | None:
    """By numeric id, external id or source name, in ``collection`` if given (which must exist)."""
    with catalog.connect() as con:
        collection_id = repo.get_collection(con, collection).id if collection else None
        return repo.find_document(con, collection_id, ref)


def document_markdown(catalog: Catalog, doc_id: int) -> tuple[str, list[int]]:
    with catalog.connect() as con:
        return repo.document_markdown(con, doc_id)


def chunks_of_document(catalog: Catalog, doc_id: int, chunkset: str | None) -> list[tuple]:
    with catalog.connect() as con:
        return chunk_repo.chunks_of_document(con, doc_id, chunkset)


def chunks_over_limit(catalog: Catalog, collection: str, chunkset: str) -> tuple[int, list[tuple[int, int]]]:
    """(chunks in the collection's chunk set, (document id, token count) of each one over the model's limit)."""
    with catalog.connect() as con:
        return chunk_repo.chunks_over_limit(con, repo.get_collection(con, collection).id, chunkset)


def chunk_metadata(catalog: Catalog, chunk_id: int) -> dict | None:
    """What the chunker and the parser stored with a chunk (an image's caption, a code unit's name)."""
    with catalog.connect() as con:
        return chunk_repo.chunk_metadata(con, chunk_id)


@dataclass(frozen=True)
class ChunkInContext:
    chunk: tuple
    document: DocumentRow
    collection: str
    siblings: list[tuple]  # the document's chunks in the chunk's own chunk set, by ordinal


def chunk_in_context(catalog: Catalog, chunk_id: int) -> ChunkInContext | None:
    """A chunk with its document, collection name and the chunks around it, or ``None``."""
    with catalog.connect() as con:
        chunk = chunk_repo.chunk_by_id(con, chunk_id)
        if chunk is None:
            return None
        document = repo.find_document(con, None, str(chunk[1]))
        if document is None:  # chunks go with their document, so only a catalog damaged by hand gets here
            return None
        names = {c.id: c.name for c in repo.list_collections(con)}
        siblings = [chunk]
        # a document has one chunk list per chunk set (layout); neighbours come from the chunk's own
        for chunkset in repo.chunksets(con, document.collection_id):
            rows = chunk_repo.chunks_of_document(con, document.id, chunkset)
            if any(r[0] == chunk[0] for r in rows):
                siblings = rows
                break
    return ChunkInContext(chunk, document, names[document.collection_id], siblings)
