"""Which parser wrote each document: the skip-before-parse fingerprints and the outdated documents.

``documents.parser_version`` (migration 007) records the version of the parser that wrote a
document's Markdown; rows from before it are NULL, read as version 1.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Fingerprint:
    """What the skip-before-parse check compares: the bytes, the outcome, and who parsed them."""

    sha256: str
    status: str
    doc_type: str
    parser_version: int  # 1 for documents stored before versions were recorded


def document_fingerprints(con, collection_id: int) -> dict[str, Fingerprint]:
    """source name -> its fingerprint, for the skip-before-parse check."""
    rows = con.execute(
        "SELECT source, sha256, status, doc_type, coalesce(parser_version, 1) FROM documents WHERE collection_id = ?",
        [collection_id],
    ).fetchall()
    return {source: Fingerprint(sha, status, doc_type, version) for source, sha, status, doc_type, version in rows}


@dataclass(frozen=True)
class OutdatedDocument:
    """A document whose Markdown an older version of its type's parser wrote."""

    id: int
    source: str
    external_id: str | None
    sha256: str
    doc_type: str
    parser_version: int


def outdated_documents(con, collection_id: int, versions: dict[str, int]) -> list[OutdatedDocument]:
    """Successful documents of the types in ``versions`` (type -> current version) made by an older one."""
    found: list[OutdatedDocument] = []
    for doc_type, version in sorted(versions.items()):
        rows = con.execute(
            "SELECT id, source, external_id, sha256, doc_type, coalesce(parser_version, 1) FROM documents"
            " WHERE collection_id = ? AND status = 'success' AND doc_type = ? AND coalesce(parser_version, 1) < ?"
            " ORDER BY source",
            [collection_id, doc_type, version],
        ).fetchall()
        found.extend(OutdatedDocument(*row) for row in rows)
    return found
