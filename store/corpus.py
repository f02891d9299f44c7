"""What tuning and the regression gate read about a collection's documents: each function is one
catalog transaction.

- ``corpus_fingerprint``: how many successful documents, and a hash over their names and content
  hashes (runs record it, so ``check`` can tell a baseline measured on another corpus);
- ``unchunked_sample``: how many documents a chunk set lacks, and a fixed sample of them (``tune``
  chunks the sample to estimate what building a layout will embed).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from store import repository as repo
from store.catalog import Catalog


@dataclass(frozen=True)
class UnchunkedSample:
    """A sample of the documents a chunk set lacks (for estimating what building it costs)."""

    total: int  # documents lacking chunks in the chunk set
    documents: list[tuple[int, str, list[int]]]  # up to the asked number of them: (id, Markdown, page starts)


def unchunked_sample(catalog: Catalog, collection: str, chunkset_key: str, limit: int) -> UnchunkedSample:
    """Read-only: how many documents ``chunkset_key`` lacks, and a fixed sample of them (the same
    catalog gives the same sample)."""
    lacking = (
        "FROM documents d WHERE d.collection_id = ? AND d.status = 'success'"
        " AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id AND c.chunkset = ?)"
    )
    with catalog.connect() as con:
        collection_id = repo.get_collection(con, collection).id
        (total,) = con.execute(f"SELECT count(*) {lacking}", [collection_id, chunkset_key]).fetchall()[0]
        rows = con.execute(
            f"SELECT d.id, d.markdown, d.page_starts {lacking} ORDER BY hash(d.sha256), d.id LIMIT ?",
            [collection_id, chunkset_key, limit],
        ).fetchall()
    return UnchunkedSample(int(total), [(int(i), markdown, list(starts or [])) for i, markdown, starts in rows])


@dataclass(frozen=True)
class CorpusFingerprint:
    """What a collection's documents are: how many, and a hash of their names and contents."""

    documents: int
    hash: str

    def to_dict(self) -> dict[str, object]:
        return {"documents": self.documents, "hash": self.hash}


def corpus_fingerprint(catalog: Catalog, collection: str) -> CorpusFingerprint:
    """A hash over every successful document's name and content hash: it changes when a document
    is added, removed or edited, and not when the same files are ingested again."""
    with catalog.connect() as con:
        rows = con.execute(
            "SELECT coalesce(external_id, source) AS name, sha256 FROM documents"
            " WHERE collection_id = ? AND status = 'success' ORDER BY name, sha256",
            [repo.get_collection(con, collection).id],
        ).fetchall()
    digest = hashlib.sha256("".join(f"{name}\t{sha}\n" for name, sha in rows).encode("utf-8")).hexdigest()
    return CorpusFingerprint(len(rows), digest[:16])
