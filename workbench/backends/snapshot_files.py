"""What every layout's snapshot folder holds besides its indexes, and where it lives.

Shared by every backend's sync (``local``, ``milvus.sync``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from store.index_set import CHUNK_COLUMNS, DOCUMENT_COLUMNS, write_table
from workbench.layout import Layout


@dataclass(frozen=True)
class SyncResult:
    layout_key: str
    generation: int
    rebuilt: bool
    chunks: int
    added: int
    removed: int
    elapsed_s: float


def layout_dir(home: Path, collection: str, layout: Layout) -> Path:
    return home / "indexes" / collection / layout.key


def write_snapshot_tables(building: Path, rows: dict, documents: list) -> list[tuple]:
    """The chunk and document tables of a snapshot (what the query path shows); returns the chunk rows."""
    chunk_rows = [
        (int(cid), int(doc), int(ordinal), int(start), int(end), str(text), str(itext),
         [str(h) for h in (heading if heading is not None else [])],
         None if _missing(page) else int(page), None if _missing(tokens) else int(tokens), bool(over))
        for cid, doc, ordinal, start, end, text, itext, heading, page, tokens, over in zip(
            rows["id"], rows["document_id"], rows["ordinal"], rows["start_offset"], rows["end_offset"],
            rows["text"], rows["indexed_text"], rows["heading_path"], rows["page"], rows["token_count"],
            rows["over_max_length"],
        )
    ]
    write_table(building / "chunks.parquet", chunk_rows, CHUNK_COLUMNS)
    write_table(building / "documents.parquet", [tuple(d) for d in documents], DOCUMENT_COLUMNS)
    return chunk_rows


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value)) or value is np.ma.masked
