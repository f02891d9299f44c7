"""The contract every retrieval backend implements, and the values it trades in.

A backend holds chunks by id and ranks them for a query. The dense index (hnswlib) reads the
vectors of a ``ChunkBatch`` and of an ``IndexQuery``, the BM25 index (bm25s) reads their texts;
a backend that does both from one store (Milvus: HNSW plus server-side BM25) reads both. Every
backend filters by a set of allowed chunk ids, so callers never convert between filter shapes.

``tests/store/test_index_contract.py`` runs one suite of behaviour against every
implementation; a new backend joins by adding itself to that suite.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import AbstractSet, Any, ClassVar, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

#: the key of an index folder's params.json that records its on-disk format
FORMAT_KEY = "format"
PARAMS_FILE = "params.json"


class IndexFormatError(ValueError):
    """An index folder was written in a format this code does not read."""

    def __init__(self, owner: str, folder: Path, found: object, expected: object) -> None:
        self.folder, self.found, self.expected = Path(folder), found, expected
        super().__init__(
            f"{owner}.load: {folder} holds index format {found}, this version reads format {expected}; "
            "rebuild it from its chunks (the workbench rebuilds a collection's indexes from the catalog "
            "when it finds a stale format)"
        )


class ExplainNotSupported(NotImplementedError):
    """The backend cannot break its scores down (a server-side scorer, say)."""

    def __init__(self, backend: str, reason: str) -> None:
        self.backend = backend
        super().__init__(f"{backend} cannot explain its scores: {reason}; the score itself is in the search results")


@dataclass(frozen=True, eq=False)
class ChunkBatch:
    """Chunks to index: ids, and the texts and/or vectors a backend reads (row-aligned)."""

    ids: np.ndarray
    texts: Sequence[str] | None = None
    vectors: np.ndarray | None = None

    def __post_init__(self) -> None:
        ids = np.asarray(self.ids)
        if ids.ndim != 1 or (ids.size and not np.issubdtype(ids.dtype, np.integer)):
            raise ValueError(f"ChunkBatch: ids must be a 1-D integer array, got {ids.dtype} {ids.shape}")
        ids = ids.astype(np.int64, copy=False)
        if len(np.unique(ids)) != len(ids):
            raise ValueError("ChunkBatch: ids contain duplicates; give every chunk its own id, once per batch")
        object.__setattr__(self, "ids", ids)
        if self.texts is not None:
            texts = list(self.texts)
            if len(texts) != len(ids):
                raise ValueError(f"ChunkBatch: {len(ids)} ids but {len(texts)} texts; pass one text per id")
            object.__setattr__(self, "texts", texts)
        if self.vectors is not None:
            vectors = np.asarray(self.vectors)
            if vectors.ndim != 2 or len(vectors) != len(ids):
                raise ValueError(
                    f"ChunkBatch: {len(ids)} ids need vectors of shape ({len(ids)}, dim), got {vectors.shape}"
                )
            object.__setattr__(self, "vectors", vectors)

    def __len__(self) -> int:
        return len(self.ids)

    def require_texts(self, backend: str) -> list[str]:
        if self.texts is None:
            raise ValueError(f"{backend} indexes chunk texts, but this ChunkBatch has none; pass texts=")
        return list(self.texts)

    def require_vectors(self, backend: str) -> np.ndarray:
        if self.vectors is None:
            raise ValueError(f"{backend} indexes chunk vectors, but this ChunkBatch has none; pass vectors=")
        return self.vectors


@dataclass(frozen=True, eq=False)
class IndexQuery:
    """What a backend ranks chunks against: the query text and/or its embedding."""

    text: str | None = None
    vector: np.ndarray | None = None

    def require_text(self, backend: str) -> str:
        if self.text is None:
            raise ValueError(f"{backend} searches by query text, but this IndexQuery has none; pass text=")
        return self.text

    def require_vector(self, backend: str) -> np.ndarray:
        if self.vector is None:
            raise ValueError(f"{backend} searches by query vector, but this IndexQuery has none; pass vector=")
        return self.vector


class AllowedChunks(frozenset):
    """Allowed chunk ids that also say which documents and types they were drawn from.

    Every backend may use it as the set of ids it is. A backend that filters on a server
    (Milvus) sends the document filter instead, which stays short however many chunks the
    documents hold. ``document_ids``/``doc_types`` are None when that part of the filter is unset.
    """

    document_ids: frozenset[int] | None
    doc_types: frozenset[str] | None

    def __new__(cls, chunk_ids, document_ids=None, doc_types=None):
        allowed = super().__new__(cls, chunk_ids)
        allowed.document_ids = None if document_ids is None else frozenset(int(d) for d in document_ids)
        allowed.doc_types = None if doc_types is None else frozenset(str(t) for t in doc_types)
        return allowed

    def __reduce__(self):
        return (type(self), (frozenset(self), self.document_ids, self.doc_types))


def as_query(query: IndexQuery | str | np.ndarray) -> IndexQuery:
    """A plain string is a text query, an array a vector query."""
    if isinstance(query, IndexQuery):
        return query
    if isinstance(query, str):
        return IndexQuery(text=query)
    return IndexQuery(vector=np.asarray(query))


@dataclass(frozen=True)
class IndexStats:
    backend: str
    format_version: int
    count: int  # live chunks
    params: dict[str, Any] = field(default_factory=dict)  # build parameters and sizes


@dataclass(frozen=True)
class ScoreExplanation:
    """Why a chunk scored what it did: ``parts`` each carry a ``contribution``; they sum to ``score``,
    which equals the score ``search`` gives the chunk (0.0 when it does not match)."""

    chunk_id: int
    score: float
    parts: tuple[Mapping[str, Any], ...]


@runtime_checkable
class RetrievalIndex(Protocol):
    """A retrieval backend over chunks identified by integer ids.

    A backend that serves both routes from one store (dense vectors and BM25 in Milvus) can
    implement this once per route over the shared store, each reading the query's vector or
    its text, so the pipeline's routes, filters and the contract suite stay as they are.
    """

    backend: ClassVar[str]
    format_version: ClassVar[int]
    supports_explain: ClassVar[bool]

    @classmethod
    def from_chunks(cls, batch: ChunkBatch, **params: Any) -> "RetrievalIndex":
        """A new index of the batch; ``params`` are the backend's build parameters."""

    @classmethod
    def load(cls, folder: Path) -> "RetrievalIndex":
        """The index ``save`` wrote to ``folder``; ``IndexFormatError`` if its format is not this one."""

    def __len__(self) -> int: ...

    def ids(self) -> np.ndarray:
        """The live chunk ids."""

    def add(self, batch: ChunkBatch) -> None:
        """Index these chunks; an id already present is replaced."""

    def delete(self, chunk_ids: np.ndarray) -> None:
        """Remove these chunks from results; ids not in the index are ignored."""

    def search(
        self, query: IndexQuery | str | np.ndarray, k: int, allowed_ids: AbstractSet[int] | None = None
    ) -> list[tuple[int, float]]:
        """Up to ``k`` (chunk id, score) pairs, best first, only ids in ``allowed_ids`` if given."""

    def explain(self, query: IndexQuery | str | np.ndarray, chunk_id: int) -> ScoreExplanation:
        """The breakdown of one chunk's score; ``ExplainNotSupported`` where the backend cannot."""

    def save(self, folder: Path) -> None: ...

    def stats(self) -> IndexStats: ...


def write_params(folder: Path, params: dict, format_version: int) -> None:
    """Write params.json last, stamped with the format: a folder holding it is a complete index."""
    from store.atomic import atomic_write_json

    atomic_write_json(Path(folder) / PARAMS_FILE, {FORMAT_KEY: format_version, **params})


def read_params(folder: Path, owner: str, format_version: int, legacy_version: int | None = None) -> dict:
    """params.json of a saved index, after checking it is there and in the format this code reads.

    ``legacy_version`` is the format a params.json without a format key is in (indexes written
    before the key existed).
    """
    folder = Path(folder)
    path = folder / PARAMS_FILE
    if not path.exists():
        raise FileNotFoundError(f"{owner}.load: no {PARAMS_FILE} in {folder}; save an index there first")
    params = json.loads(path.read_text(encoding="utf-8"))
    found = params.get(FORMAT_KEY, legacy_version)
    if found != format_version:
        raise IndexFormatError(owner, folder, found, format_version)
    return params
