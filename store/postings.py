"""A query's BM25 scores from the precomputed postings bm25s saves (its CSC parts).

bm25s keeps, for every term, the chunks it occurs in and each one's precomputed score; a
query's score for a chunk is the sum over its terms, a repeated term counting again. Summing
one concatenated posting list with ``bincount`` adds each chunk's term scores in query order,
as bm25s's own term-by-term loop does, so the scores are the same to the last bit.

Two sources of postings: the arrays of an index built in this process, and the files of a
saved one, read per term with ``pread`` (``store.npy_reads``) so that a frequent term's long
list is copied in for the query and let go, never left resident through a memory map.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from store.npy_reads import NpyReader


class Postings(Protocol):
    def of(self, token_ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """The chunk positions and scores of these terms' postings, concatenated in the order given."""


class ArrayPostings:
    def __init__(self, data: np.ndarray, indices: np.ndarray, indptr: np.ndarray) -> None:
        self._data, self._indices, self._indptr = data, indices, indptr

    def of(self, token_ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        spans = [(int(self._indptr[t]), int(self._indptr[t + 1])) for t in token_ids]
        return (
            np.concatenate([self._indices[a:b] for a, b in spans]),
            np.concatenate([self._data[a:b] for a, b in spans]),
        )


class FilePostings:
    """bm25s's saved ``data``/``indices``/``indptr`` parts; only ``indptr`` (one entry per term) is held."""

    def __init__(self, folder: Path) -> None:
        self._indptr = np.load(Path(folder) / "indptr.csc.index.npy")
        self._data = NpyReader(Path(folder) / "data.csc.index.npy")
        self._indices = NpyReader(Path(folder) / "indices.csc.index.npy")

    def of(self, token_ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        spans = [(int(self._indptr[t]), int(self._indptr[t + 1])) for t in token_ids]
        return (
            np.concatenate([self._indices.slice(a, b) for a, b in spans]),
            np.concatenate([self._data.slice(a, b) for a, b in spans]),
        )


def query_scores(postings: Postings, token_ids: Sequence[int], num_docs: int) -> np.ndarray:
    """Every chunk's score for the query's term ids (0 where no term occurs), as float64."""
    if not token_ids:
        return np.zeros(num_docs, dtype=np.float64)
    positions, scores = postings.of(token_ids)
    return np.bincount(positions, weights=scores, minlength=num_docs)
