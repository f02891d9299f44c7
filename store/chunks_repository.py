"""Catalog reads and writes for chunks: inserting a document's chunks, reading a chunk set, a
document's chunks, one chunk. All their SQL lives here; functions take an open connection, so
``store.documents`` decides what one transaction holds."""

from __future__ import annotations

import json

from store.repository import NewChunk, insert_frame

CHUNK_SELECT = (
    "SELECT c.id, c.document_id, c.ordinal, c.start_offset, c.end_offset, c.text, c.indexed_text,"
    " c.heading_path, c.page, c.token_count, c.over_max_length, c.content_hash, c.metadata FROM chunks c"
)


def insert_chunks(con, collection_id: int, chunkset: str, doc_id: int, chunks: list[NewChunk]) -> None:
    insert_chunk_rows(con, collection_id, [(chunkset, doc_id, chunks)])


def insert_chunk_rows(con, collection_id: int, groups: list[tuple[str, int, list[NewChunk]]]) -> None:
    """Insert the chunks of several (chunk set, document id, chunks) groups in one statement."""
    rows = [(chunkset, doc_id, c) for chunkset, doc_id, chunks in groups for c in chunks]
    if not rows:
        return
    import pyarrow as pa

    chunks = [c for _, _, c in rows]
    table = pa.table(
        {
            "collection_id": pa.array([collection_id] * len(rows), pa.int64()),
            "chunkset": pa.array([chunkset for chunkset, _, _ in rows], pa.string()),
            "document_id": pa.array([doc_id for _, doc_id, _ in rows], pa.int64()),
            "ordinal": pa.array([c.ordinal for c in chunks], pa.int32()),
            "text": pa.array([c.text for c in chunks], pa.string()),
            "indexed_text": pa.array([c.indexed_text for c in chunks], pa.string()),
            "start_offset": pa.array([c.start for c in chunks], pa.int32()),
            "end_offset": pa.array([c.end for c in chunks], pa.int32()),
            "heading_path": pa.array([list(c.heading_path) for c in chunks], pa.list_(pa.string())),
            "page": pa.array([c.page for c in chunks], pa.int32()),
            "content_hash": pa.array([c.content_hash for c in chunks], pa.string()),
            "token_count": pa.array([c.token_count for c in chunks], pa.int32()),
            "over_max_length": pa.array([c.over_max_length for c in chunks], pa.bool_()),
            "metadata": pa.array([json.dumps(c.metadata) for c in chunks], pa.string()),
        }
    )
    insert_frame(con, "chunks", table)


def chunkset_rows(con, collection_id: int, chunkset: str) -> dict[str, list]:
    return con.execute(
        f"{CHUNK_SELECT} JOIN documents d ON d.id = c.document_id"
        " WHERE c.collection_id = ? AND c.chunkset = ? AND d.status = 'success' ORDER BY c.id",
        [collection_id, chunkset],
    ).fetchnumpy()


def chunks_of_document(con, doc_id: int, chunkset: str | None) -> list[tuple]:
    return con.execute(
        f"{CHUNK_SELECT} WHERE c.document_id = ? AND (? IS NULL OR c.chunkset = ?) ORDER BY c.ordinal",
        [doc_id, chunkset, chunkset],
    ).fetchall()


def chunks_over_limit(con, collection_id: int, chunkset: str) -> tuple[int, list[tuple[int, int]]]:
    """The chunk set's chunk count in the collection, and (document id, token count) of each of its
    chunks flagged longer than the model reads (``over_max_length``)."""
    total = con.execute(
        "SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.document_id"
        " WHERE d.collection_id = ? AND c.chunkset = ?",
        [collection_id, chunkset],
    ).fetchone()[0]
    over = con.execute(
        "SELECT c.document_id, c.token_count FROM chunks c JOIN documents d ON d.id = c.document_id"
        " WHERE d.collection_id = ? AND c.chunkset = ? AND c.over_max_length ORDER BY c.document_id, c.ordinal",
        [collection_id, chunkset],
    ).fetchall()
    return int(total), [(int(doc), int(tokens)) for doc, tokens in over]


def chunk_metadata(con, chunk_id: int) -> dict | None:
    row = con.execute("SELECT metadata FROM chunks WHERE id = ?", [chunk_id]).fetchone()
    return None if row is None else json.loads(row[0] or "{}")


def chunk_by_id(con, chunk_id: int) -> tuple | None:
    return con.execute(f"{CHUNK_SELECT} WHERE c.id = ?", [chunk_id]).fetchone()
