"""What every layout's snapshot folder holds besides its indexes, and where it lives.

Shared by every backend's sync (``local``, ``milvus.sync``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from store.index_set import DOCUMENT_COLUMNS, write_chunk_table, write_table
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


def write_snapshot_tables(building: Path, rows: dict, documents: list) -> int:
    """The chunk and document tables of a snapshot (what the query path shows); returns the chunk count."""
    count = write_chunk_table(
        building,
        {
            "chunk_id": rows["id"],
            "doc_id": rows["document_id"],
            "ordinal": rows["ordinal"],
            "start": rows["start_offset"],
            "end": rows["end_offset"],
            "text": rows["text"],
            "indexed_text": rows["indexed_text"],
            "heading_path": rows["heading_path"],
            "page": [None if _missing(page) else int(page) for page in rows["page"]],
            "token_count": [None if _missing(tokens) else int(tokens) for tokens in rows["token_count"]],
            "over_max_length": [bool(over) for over in rows["over_max_length"]],
        },
    )
    write_table(building / "documents.parquet", [tuple(d) for d in documents], DOCUMENT_COLUMNS)
    return count


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value)) or value is np.ma.masked
