"""The contract every retrieval backend implements, and the values it trades in.

A backend holds chunks by id and ranks them for a query. The dense index (hnswlib) reads the
vectors of a ``ChunkBatch`` and of an ``IndexQuery``, the BM25 index (bm25s) reads their texts;
a backend that does both from one store (Milvus: HNSW plus server-side BM25) reads both. Every
backend filters by a set of allowed chunk ids, so callers never convert between filter shapes.

The pipeline reads a dense route as a ``VectorIndex`` and a BM25 route as a ``TermIndex``: every
capability it uses (exact search and its trace note, ``ef_search``, stored vectors, term
statistics, the tokenizer, whether scores can be explained) is declared here, with a default
where a backend may lack it, so nothing above ``store`` probes an index for what it can do.
``tests/store/test_index_contract.py`` runs one suite of behaviour against every
implementation; a new backend joins by adding itself to that suite.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from store.text_tokenizer import Bm25Tokenizer

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


class IndexBackendError(RuntimeError):
    """An index backend failed (a server that is down, say); the message names the place and the fix."""


class IndexMissing(IndexBackendError):
    """The index a snapshot points to is gone (a new, empty server, say); it is rebuilt from the catalog."""


class TermStatisticsNotSupported(NotImplementedError):
    """The BM25 index keeps its term statistics to itself (a server-side scorer)."""

    def __init__(self, backend: str) -> None:
        self.backend = backend
        super().__init__(
            f"{backend} scores BM25 on its side and shares no term statistics; check has_term_statistics before asking"
        )


def lucene_idf(doc_freq: int, num_docs: int) -> float:
    """Lucene's BM25 idf, which (unlike Robertson's) never goes negative for very common terms."""
    return math.log(1.0 + (num_docs - doc_freq + 0.5) / (doc_freq + 0.5))


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

    def __new__(
        cls,
        chunk_ids: Iterable[int],
        document_ids: Iterable[int] | None = None,
        doc_types: Iterable[str] | None = None,
    ) -> AllowedChunks:
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


def cosine_explanation(
    owner: str, chunk_id: int, query: IndexQuery | str | np.ndarray, chunk_vector: np.ndarray, dim: int
) -> ScoreExplanation:
    """The cosine of the query vector (as given) and a chunk's stored vector, with its parts: what
    every dense backend's ``explain`` returns."""
    vector = np.asarray(as_query(query).require_vector(owner), dtype=np.float64).ravel()
    if vector.shape != (dim,):
        raise ValueError(f"{owner}.explain: query has {vector.shape[0]} dimensions, the index {dim}")
    stored = np.asarray(chunk_vector, dtype=np.float64)
    dot = float(vector @ stored)
    query_norm, chunk_norm = float(np.linalg.norm(vector)), float(np.linalg.norm(stored))
    cosine = dot / (query_norm * chunk_norm) if query_norm and chunk_norm else 0.0
    part = {"dot": dot, "query_norm": query_norm, "chunk_norm": chunk_norm, "dimensions": dim, "contribution": cosine}
    return ScoreExplanation(int(chunk_id), cosine, (part,))


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
    def from_chunks(cls, batch: ChunkBatch, *args: Any, **params: Any) -> RetrievalIndex:
        """A new index of the batch, built with the backend's own parameters (each backend declares
        them: ``*args: Any, **params: Any`` is how a protocol leaves them open to a type checker)."""

    @classmethod
    def load(cls, folder: Path) -> RetrievalIndex:
        """The index ``save`` wrote to ``folder``; ``IndexFormatError`` if its format is not this one."""

    def __len__(self) -> int: ...

    def ids(self) -> np.ndarray:
        """The live chunk ids."""

    def add(self, batch: ChunkBatch) -> None:
        """Index these chunks; an id already present is replaced."""

    def delete(self, chunk_ids: np.ndarray) -> None:
        """Remove these chunks from results; ids not in the index are ignored."""

    def search(
        self, query: IndexQuery | str | np.ndarray, k: int, allowed_ids: Set[int] | None = None
    ) -> list[tuple[int, float]]:
        """Up to ``k`` (chunk id, score) pairs, best first, only ids in ``allowed_ids`` if given."""

    def explain(self, query: IndexQuery | str | np.ndarray, chunk_id: int) -> ScoreExplanation:
        """The breakdown of one chunk's score; ``ExplainNotSupported`` where the backend cannot."""

    def save(self, folder: Path) -> None: ...

    def stats(self) -> IndexStats: ...


@runtime_checkable
class VectorIndex(RetrievalIndex, Protocol):
    """The dense route: cosine similarity over the chunks' stored vectors (MMR and the embedding
    map read them back). A backend subclasses it to inherit the defaults."""

    dim: int
    #: what the trace says when ``dense.exact`` asks for exact search
    exact_search_note: ClassVar[str] = "exact (brute-force) cosine search"

    def search(
        self,
        query: IndexQuery | str | np.ndarray,
        k: int,
        allowed_ids: Set[int] | None = None,
        *,
        ef_search: int = 128,
        exact: bool = False,
    ) -> list[tuple[int, float]]:
        """Up to ``k`` (chunk id, cosine) pairs, best first; ``ef_search`` is the HNSW search breadth,
        ``exact`` compares with every allowed vector (or as near as the backend gets: its note says)."""

    def vectors_for(self, chunk_ids: np.ndarray) -> np.ndarray:
        """The stored vectors of these chunks, row-aligned; ``KeyError`` names a chunk the index lacks."""


@runtime_checkable
class TermIndex(RetrievalIndex, Protocol):
    """The BM25 route over the chunks' texts. A backend subclasses it to inherit the defaults."""

    #: the terms a query and a chunk are made of (explain and the keywords enhancement show them)
    tokenizer: Bm25Tokenizer
    #: BM25's term-frequency saturation and length normalisation (explain shows the formula with them)
    k1: float
    b: float
    #: whether ``term_idf`` answers; a server-side scorer keeps its statistics to itself
    has_term_statistics: ClassVar[bool] = False

    def term_idf(self, term: str) -> float:
        """The Lucene idf (``lucene_idf``) of one token as the tokenizer emits it; 0 for a token no
        chunk has. ``TermStatisticsNotSupported`` where ``has_term_statistics`` is False."""
        raise TermStatisticsNotSupported(self.backend)


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
