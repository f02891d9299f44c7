"""The vector index: hnswlib HNSW in cosine space, with an exact brute-force mode beside it.

The unit-normalised vectors are kept as well (float32): exact search, MMR and plots need them,
and hnswlib gives no cheap way to read them back. A loaded index reads the rows a query asks for
(an MMR head, an explained hit) from the saved file with ``pread`` (``store.npy_reads``); only a
full exact scan maps the whole file. The graph already holds a copy of every vector for search. Similarities are
cosine similarities (hnswlib's cosine *distance* is 1 - similarity).
"""

from __future__ import annotations

import threading
from collections.abc import Set
from pathlib import Path

import hnswlib
import numpy as np

from store.id_set import RowLookup
from store.npy_reads import NpyReader
from store.retrieval_index import (
    ChunkBatch,
    IndexQuery,
    IndexStats,
    ScoreExplanation,
    VectorIndex,
    as_query,
    cosine_explanation,
    read_params,
    write_params,
)

SPACE = "cosine"
FORMAT_VERSION = 1
# Folder parts.
GRAPH_FILE = "hnsw.bin"
VECTORS_FILE = "vectors.npy"
CHUNK_IDS_FILE = "chunk_ids.npy"

_INITIAL_CAPACITY = 1024
# One build thread keeps the graph, and so every HNSW result, reproducible run to run. Embedding
# the chunks costs far more than inserting them, so the lost parallelism hardly shows.
_BUILD_THREADS = 1
# A filtered exact search reads up to this many rows one by one; more, through the memory map.
_ROWS_READ_APART = 10_000


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """Unit-length float32 rows; a zero or non-finite row is an upstream bug, so it is refused."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    bad_rows = np.flatnonzero(~np.isfinite(norms.ravel()) | (norms.ravel() == 0))
    if len(bad_rows):
        raise ValueError(f"DenseIndex: vector rows {bad_rows[:5].tolist()} are zero or not finite; check the embedder")
    return vectors / norms


class DenseIndex(VectorIndex):
    """HNSW over unit vectors; implements ``store.retrieval_index.VectorIndex`` (reads vectors)."""

    backend = "hnswlib"
    format_version = FORMAT_VERSION
    supports_explain = True

    def __init__(
        self,
        graph: hnswlib.Index,
        dim: int,
        m: int,
        ef_construction: int,
        chunk_ids: np.ndarray,
        vectors: np.ndarray,
    ) -> None:
        """Use ``create`` or ``load``. ``chunk_ids``/``vectors`` hold the live items, row-aligned."""
        self.dim = dim
        self.m = m
        self.ef_construction = ef_construction
        self._graph = graph
        self._chunk_ids = chunk_ids
        self._vectors = vectors
        self._vector_file: NpyReader | None = None  # set by ``load``, until a change makes the rows differ
        self._rows = RowLookup(chunk_ids)
        # hnswlib's ef is index-wide state: set it and query under one lock.
        self._lock = threading.Lock()

    @classmethod
    def create(cls, dim: int, m: int = 16, ef_construction: int = 200) -> DenseIndex:
        if dim <= 0:
            raise ValueError(f"DenseIndex.create: dim must be positive, got {dim}")
        graph = hnswlib.Index(space=SPACE, dim=dim)
        graph.init_index(max_elements=_INITIAL_CAPACITY, M=m, ef_construction=ef_construction)
        return cls(graph, dim, m, ef_construction, np.empty(0, dtype=np.int64), np.empty((0, dim), dtype=np.float32))

    @classmethod
    def from_chunks(
        cls, batch: ChunkBatch, m: int = 16, ef_construction: int = 200, dim: int | None = None
    ) -> DenseIndex:
        """An index of the batch's vectors; ``dim`` is needed only when the batch is empty."""
        vectors = batch.require_vectors("DenseIndex")
        index = cls.create(dim if dim is not None else vectors.shape[1], m=m, ef_construction=ef_construction)
        index.add(batch)
        return index

    def __len__(self) -> int:
        return len(self._chunk_ids)

    def ids(self) -> np.ndarray:
        return self._chunk_ids.copy()

    def add(self, batch: ChunkBatch) -> None:
        """Insert the batch's vectors; an id already present (or deleted earlier) gets the new vector."""
        chunk_ids = batch.ids
        vectors = batch.require_vectors("DenseIndex")
        if vectors.shape != (len(chunk_ids), self.dim):
            raise ValueError(
                f"DenseIndex.add: need vectors of shape (n, {self.dim}), got {vectors.shape}; "
                "embed with the index's model"
            )
        if len(chunk_ids) == 0:
            return
        if chunk_ids.min() < 0:
            raise ValueError("DenseIndex.add: chunk ids must be non-negative (hnswlib labels are unsigned)")
        unit_vectors = normalize_rows(vectors)
        with self._lock:
            # Deleted items keep their slot in the graph, so capacity counts them too.
            needed = self._graph.get_current_count() + len(chunk_ids)
            capacity = self._graph.get_max_elements()
            if needed > capacity:
                self._graph.resize_index(max(needed, 2 * capacity))
            self._graph.add_items(unit_vectors, chunk_ids, num_threads=_BUILD_THREADS)

            rows = self._rows.rows(chunk_ids)
            is_new = rows < 0
            self._vector_file = None
            if not is_new.all():
                self._vectors = np.array(self._vectors)  # a loaded index's rows are read-only
                self._vectors[rows[~is_new]] = unit_vectors[~is_new]
            self._chunk_ids = np.concatenate([self._chunk_ids, chunk_ids[is_new]])
            self._vectors = np.concatenate([self._vectors, unit_vectors[is_new]])
            self._rows = RowLookup(self._chunk_ids)

    def delete(self, chunk_ids: np.ndarray) -> None:
        """Remove items from results; ids not in the index are ignored."""
        with self._lock:
            requested = (int(chunk_id) for chunk_id in np.asarray(chunk_ids, dtype=np.int64).ravel())
            rows = self._rows.rows(np.fromiter(requested, dtype=np.int64))
            present = rows[rows >= 0]
            if not len(present):
                return
            for chunk_id in self._chunk_ids[present].tolist():
                self._graph.mark_deleted(chunk_id)
            keep = np.ones(len(self._chunk_ids), dtype=bool)
            keep[present] = False
            self._chunk_ids = self._chunk_ids[keep]
            self._vectors, self._vector_file = self._vectors[keep], None
            self._rows = RowLookup(self._chunk_ids)

    def vectors_for(self, chunk_ids: np.ndarray) -> np.ndarray:
        """The unit-normalised vectors of these chunks, in the order given."""
        chunk_ids = np.asarray(chunk_ids, dtype=np.int64).ravel()
        rows = self._rows.rows(chunk_ids)
        if len(rows) and rows.min() < 0:
            missing = int(chunk_ids[np.argmin(rows)])
            raise KeyError(f"DenseIndex.vectors_for: chunk {missing} is not in the index")
        return self._vector_rows(rows)

    def _vector_rows(self, rows: np.ndarray) -> np.ndarray:
        if self._vector_file is not None:
            return self._vector_file.rows(rows)
        return self._vectors[rows].copy()

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

        ``ef_search`` is HNSW's search breadth; ``exact`` compares with every vector instead.
        """
        unit_query = self._unit_query(query, "search")
        with self._lock:
            # hnswlib raises when asked for more neighbours than it can return, so never ask.
            if allowed_ids is None:
                available = len(self)
            else:
                allowed = np.fromiter(allowed_ids, dtype=np.int64, count=len(allowed_ids))
                available = int((self._rows.rows(allowed) >= 0).sum())
            k = min(k, available)
            if k <= 0:
                return []
            if not exact:
                try:
                    return self._search_graph(unit_query, k, ef_search, allowed_ids)
                except RuntimeError:
                    # A restrictive filter can starve the graph walk of allowed neighbours;
                    # the exact path always finds them.
                    pass
            return self._search_exact(unit_query[0], k, allowed_ids)

    def explain(self, query: IndexQuery | str | np.ndarray, chunk_id: int) -> ScoreExplanation:
        """The cosine of the query vector (as given) and the chunk's stored vector, with its parts."""
        row = self._rows.row(chunk_id)
        if row is None:
            raise KeyError(f"DenseIndex.explain: chunk {chunk_id} is not in this index; pick one from search results")
        return cosine_explanation("DenseIndex", chunk_id, query, self._vector_rows(np.array([row]))[0], self.dim)

    def stats(self) -> IndexStats:
        return IndexStats(
            self.backend,
            FORMAT_VERSION,
            len(self),
            {
                "space": SPACE,
                "dim": self.dim,
                "m": self.m,
                "ef_construction": self.ef_construction,
                # deleted items keep their slot in the graph until it is rebuilt
                "graph_elements": self._graph.get_current_count(),
            },
        )

    def _unit_query(self, query: IndexQuery | str | np.ndarray, caller: str) -> np.ndarray:
        vector = np.asarray(as_query(query).require_vector("DenseIndex"))
        unit = normalize_rows(vector.reshape(1, -1))
        if unit.shape[1] != self.dim:
            raise ValueError(f"DenseIndex.{caller}: query has {unit.shape[1]} dimensions, the index {self.dim}")
        return unit

    def _search_graph(
        self, query: np.ndarray, k: int, ef_search: int, allowed_ids: Set[int] | None
    ) -> list[tuple[int, float]]:
        self._graph.set_ef(max(ef_search, k))
        label_filter = None if allowed_ids is None else allowed_ids.__contains__
        labels, distances = self._graph.knn_query(query, k=k, num_threads=1, filter=label_filter)
        # float32 arithmetic, as hnswlib computes its distances
        return list(zip(labels[0].tolist(), (1.0 - distances[0]).tolist(), strict=False))

    def _search_exact(self, query: np.ndarray, k: int, allowed_ids: Set[int] | None) -> list[tuple[int, float]]:
        rows = np.arange(len(self._chunk_ids))
        if allowed_ids is None:
            similarities = self._vectors @ query  # the one scan that reads every vector
        else:
            rows = rows[np.isin(self._chunk_ids, np.fromiter(allowed_ids, dtype=np.int64, count=len(allowed_ids)))]
            similarities = np.zeros(len(self._chunk_ids), dtype=np.float32)
            if len(rows):
                similarities[rows] = (
                    self._vector_rows(rows) if len(rows) <= _ROWS_READ_APART else self._vectors[rows]
                ) @ query
        if len(rows) > k:
            rows = rows[np.argpartition(-similarities[rows], k - 1)[:k]]
        rows = rows[np.lexsort((rows, -similarities[rows]))]
        return [(int(self._chunk_ids[row]), float(similarities[row])) for row in rows]

    def save(self, folder: Path) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        with self._lock:
            self._graph.save_index(str(folder / GRAPH_FILE))
            np.save(folder / VECTORS_FILE, self._vectors)
            np.save(folder / CHUNK_IDS_FILE, self._chunk_ids)
            write_params(
                folder,
                {
                    "space": SPACE,
                    "dim": self.dim,
                    "m": self.m,
                    "ef_construction": self.ef_construction,
                    "count": len(self),
                },
                FORMAT_VERSION,
            )

    @classmethod
    def load(cls, folder: Path) -> DenseIndex:
        folder = Path(folder)
        # Indexes saved before params.json carried a format are in format 1.
        params = read_params(folder, "DenseIndex", FORMAT_VERSION, legacy_version=1)
        chunk_ids = np.load(folder / CHUNK_IDS_FILE).astype(np.int64, copy=False)
        # memory-mapped: the graph holds its own copy for search; exact search, MMR and plots
        # read these, and only the rows they read stay resident
        vectors = np.load(folder / VECTORS_FILE, mmap_mode="r" if params["count"] else None)
        vectors = vectors.astype(np.float32, copy=False)
        if len(chunk_ids) != params["count"] or vectors.shape != (params["count"], params["dim"]):
            raise ValueError(
                f"DenseIndex.load: parts of {folder} disagree ({len(chunk_ids)} ids, vectors {vectors.shape}, "
                f"params say {params['count']} x {params['dim']}); rebuild the vector index"
            )
        graph = hnswlib.Index(space=params["space"], dim=params["dim"])
        graph.load_index(str(folder / GRAPH_FILE))
        # The graph also holds deleted items (hnswlib does not report how many), so it can only
        # be checked for holding at least the live ones.
        if graph.element_count < params["count"]:
            raise ValueError(
                f"DenseIndex.load: {GRAPH_FILE} in {folder} holds {graph.element_count} items, params say "
                f"{params['count']} live ones; rebuild the vector index"
            )
        index = cls(graph, params["dim"], params["m"], params["ef_construction"], chunk_ids, vectors)
        if params["count"]:
            index._vector_file = NpyReader(folder / VECTORS_FILE)
        return index
