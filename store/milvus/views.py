"""The two routes over one Milvus collection, each implementing the index contract
(``store.retrieval_index``): ``MilvusDenseIndex`` ranks by the vector, ``MilvusBm25Index`` by BM25.
A row carries both its text and its vector, so ``add`` through either view writes both."""

from __future__ import annotations

import os
from collections.abc import Set
from pathlib import Path
from typing import ClassVar

import numpy as np

from store.id_set import IdSet
from store.milvus.analyzers import resolve_analyzer
from store.milvus.collection import ChunkRows, MilvusCollection
from store.milvus.connections import CONNECTIONS, MilvusConnections
from store.milvus.filters import filter_expression
from store.milvus.names import is_lite
from store.milvus.schema import BACKEND, FORMAT_VERSION, CollectionSpec
from store.retrieval_index import (
    ChunkBatch,
    ExplainNotSupported,
    IndexFormatError,
    IndexQuery,
    IndexStats,
    ScoreExplanation,
    TermIndex,
    VectorIndex,
    as_query,
    cosine_explanation,
    read_params,
    write_params,
)


class _MilvusView:
    """The contract's common part; a subclass says which route it searches."""

    backend: ClassVar[str] = BACKEND
    format_version: ClassVar[int] = FORMAT_VERSION
    route: ClassVar[str]

    def __init__(self, collection: MilvusCollection, known_ids: Set[int] | None = None) -> None:
        self.collection = collection
        # A snapshot's views answer only with the chunks the snapshot has rows for: a push in
        # progress (or one a crash interrupted) may already have written newer ones.
        # held as sorted ids (a snapshot's IdSet as it is): a frozenset of a million ids is 60 MB
        self.known_ids = known_ids if known_ids is None or isinstance(known_ids, IdSet) else IdSet(known_ids)

    @classmethod
    def from_chunks(
        cls,
        batch: ChunkBatch,
        *,
        uri: str,
        collection: str,
        analysis: str = "client",
        analyzer: str = "auto",
        m: int = 16,
        ef_construction: int = 200,
        k1: float = 1.2,
        b: float = 0.75,
        dim: int | None = None,
        replace: bool = True,
        connections: MilvusConnections = CONNECTIONS,
    ):
        """A new Milvus collection holding the batch (texts and vectors both: one row carries both)."""
        vectors = batch.require_vectors(cls.__name__)
        texts = batch.require_texts(cls.__name__)
        spec = CollectionSpec(
            dim=dim if dim is not None else vectors.shape[1],
            analysis=analysis,
            analyzer=resolve_analyzer(analysis, analyzer, uri, texts),
            m=m,
            ef_construction=ef_construction,
            k1=k1,
            b=b,
        )
        view = cls(MilvusCollection.create(uri, collection, spec, connections, replace=replace))
        view.add(batch)
        return view

    def __len__(self) -> int:
        return len(self.known_ids) if self.known_ids is not None else self.collection.count()

    def ids(self) -> np.ndarray:
        ids = self.collection.ids()
        if self.known_ids is not None:
            ids = ids[np.isin(ids, self.known_ids.array)]
        return ids

    def add(self, batch: ChunkBatch) -> None:
        vectors = batch.require_vectors(type(self).__name__)
        texts = batch.require_texts(type(self).__name__)
        unknown = np.zeros(len(batch), dtype=np.int64)
        self.collection.upsert(ChunkRows(batch.ids, unknown, [""] * len(batch), texts, vectors), generation=0)

    def delete(self, chunk_ids: np.ndarray) -> None:
        self.collection.delete(np.asarray(chunk_ids, dtype=np.int64).tolist())

    def save(self, folder: Path) -> None:
        """Where the collection lives (a Lite file relative to this folder, so a copied home keeps
        working); never the token."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        uri = self.collection.uri
        stored_uri = os.path.relpath(uri, folder) if is_lite(uri) else uri
        write_params(
            folder,
            {
                "uri": stored_uri,
                "lite": is_lite(uri),
                "collection": self.collection.name,
                "spec": self.collection.spec.to_dict(),
            },
            FORMAT_VERSION,
        )

    @classmethod
    def load(cls, folder: Path, known_ids: Set[int] | None = None, connections: MilvusConnections = CONNECTIONS):
        folder = Path(folder)
        params = read_params(folder, cls.__name__, FORMAT_VERSION)
        uri = os.path.normpath(folder / params["uri"]) if params.get("lite") else params["uri"]
        collection = MilvusCollection.open(uri, params["collection"], connections)
        if collection.spec.to_dict() != params["spec"]:
            raise IndexFormatError(
                cls.__name__, folder, f"spec {params['spec']}", f"the collection's spec {collection.spec.to_dict()}"
            )
        return cls(collection, known_ids)

    def stats(self) -> IndexStats:
        return IndexStats(
            self.backend,
            FORMAT_VERSION,
            len(self),
            {
                "route": self.route,
                "uri": self.collection.uri,
                "collection": self.collection.name,
                **self.collection.spec.to_dict(),
            },
        )

    def _known(self, hits: list[tuple[int, float]]) -> list[tuple[int, float]]:
        if self.known_ids is None:
            return hits
        return [hit for hit in hits if hit[0] in self.known_ids]

    def _expression(self, allowed_ids: Set[int] | None) -> str | None:
        """The filter expression, or None when nothing can pass."""
        if allowed_ids is not None and not allowed_ids:
            return None
        return filter_expression(allowed_ids)


class MilvusDenseIndex(_MilvusView, VectorIndex):
    """Cosine similarity over a Milvus HNSW index; implements ``VectorIndex`` (reads vectors)."""

    route = "dense"
    supports_explain = True
    #: what the trace says when ``dense.exact`` is on
    exact_search_note = "Milvus has no brute-force search: HNSW searched with ef = the number of chunks"

    def __init__(self, collection: MilvusCollection, known_ids: Set[int] | None = None) -> None:
        super().__init__(collection, known_ids)
        self.dim = collection.spec.dim

    def search(
        self,
        query: IndexQuery | str | np.ndarray,
        k: int,
        allowed_ids: Set[int] | None = None,
        *,
        ef_search: int = 128,
        exact: bool = False,
    ) -> list[tuple[int, float]]:
        """Up to k (chunk id, cosine similarity) pairs, most similar first.

        Milvus has no brute-force search over an HNSW field; ``exact`` widens the search to every
        chunk (ef = the chunk count, up to Milvus's maximum), which on a collection that small is exhaustive.
        """
        vector = np.asarray(as_query(query).require_vector(type(self).__name__), dtype=np.float32).ravel()
        if vector.shape != (self.dim,):
            raise ValueError(f"MilvusDenseIndex.search: query has {vector.shape[0]} dimensions, the index {self.dim}")
        expression = self._expression(allowed_ids)
        if k <= 0 or expression is None:
            return []
        ef = max(ef_search, len(self)) if exact else ef_search
        return self._known(self.collection.search_dense(vector, k, ef, expression))

    def vectors_for(self, chunk_ids: np.ndarray) -> np.ndarray:
        """The stored vectors of these chunks, row-aligned; a KeyError names a chunk Milvus lacks."""
        found = self.collection.vectors_for(np.asarray(chunk_ids, dtype=np.int64).tolist())
        missing = [int(chunk_id) for chunk_id in chunk_ids if int(chunk_id) not in found]
        if missing:
            raise KeyError(f"Milvus collection {self.collection.name!r} has no vectors for chunks {missing[:10]}")
        if not len(chunk_ids):
            return np.empty((0, self.dim), dtype=np.float32)
        return np.stack([found[int(chunk_id)] for chunk_id in chunk_ids])

    def explain(self, query: IndexQuery | str | np.ndarray, chunk_id: int) -> ScoreExplanation:
        """The cosine of the query vector and the chunk's stored vector (read back from Milvus)."""
        known = self.known_ids is None or int(chunk_id) in self.known_ids
        stored = self.collection.vectors_for([int(chunk_id)]).get(int(chunk_id)) if known else None
        if stored is None:
            raise KeyError(
                f"MilvusDenseIndex.explain: chunk {chunk_id} is not in this index; pick one from search results"
            )
        return cosine_explanation(type(self).__name__, chunk_id, query, stored, self.dim)


class MilvusBm25Index(_MilvusView, TermIndex):
    """BM25 computed by Milvus (its BM25 function over the ``text`` field); implements
    ``TermIndex`` (reads texts). Milvus reports each chunk's total only, so it cannot explain, and
    keeps its term statistics to itself."""

    route = "bm25"
    supports_explain = False
    has_term_statistics = False

    def __init__(self, collection: MilvusCollection, known_ids: Set[int] | None = None) -> None:
        super().__init__(collection, known_ids)
        # plain attributes, as the contract declares them: the collection's spec and analysis never change
        self.k1, self.b = collection.spec.k1, collection.spec.b
        self.tokenizer = collection.analyse.tokenizer

    def search(
        self, query: IndexQuery | str | np.ndarray, k: int, allowed_ids: Set[int] | None = None
    ) -> list[tuple[int, float]]:
        """The k best (chunk id, BM25 score) pairs with a positive score, best first."""
        text = self.collection.analyse(as_query(query).require_text(type(self).__name__))
        expression = self._expression(allowed_ids)
        if k <= 0 or expression is None or not text.strip():
            return []
        return self._known(self.collection.search_bm25(text, k, expression))

    def explain(self, query: IndexQuery | str | np.ndarray, chunk_id: int) -> ScoreExplanation:
        raise ExplainNotSupported(BACKEND, "Milvus scores BM25 on the server and reports each chunk's total only")
