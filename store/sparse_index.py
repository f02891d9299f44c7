"""The BM25 index: bm25s (Lucene variant) plus the term statistics that explain its scores.

bm25s stores only precomputed per-(term, chunk) scores, which is what makes it fast but leaves
nothing to explain a score with. Beside it we keep the chunk x term frequency matrix; document
lengths, document frequencies and the average length all follow from it, so ``explain`` can
rebuild every term's share of a score with the Lucene formula below. The same matrix lets
``add`` and ``delete`` re-score the corpus without tokenizing its texts again (BM25's idf and
average length are corpus-wide, so every change re-scores every chunk).

A loaded index reads a query's postings from bm25s's files with ``pread`` (``store.postings``)
and memory-maps the term counts, of which ``explain`` touches one chunk's row: the rest stays on
disk, and a frequent term's long posting list is not left resident after the query. The per-chunk
lengths and per-term document frequencies are saved beside them, so loading reads no posting.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Set
from pathlib import Path

import bm25s
import numpy as np
import scipy.sparse as sp

from store.id_set import RowLookup
from store.postings import ArrayPostings, FilePostings, Postings, query_scores
from store.retrieval_index import (
    ChunkBatch,
    IndexFormatError,
    IndexQuery,
    IndexStats,
    ScoreExplanation,
    TermIndex,
    as_query,
    lucene_idf,
    read_params,
    write_params,
)
from store.text_tokenizer import Bm25Tokenizer

# bm25s sets its own logger to DEBUG on import, which would print on every index build
logging.getLogger("bm25s").setLevel(logging.WARNING)

FORMAT_VERSION = 1
METHOD = "lucene"
# Folder parts.
BM25S_DIR = "bm25s"
TERM_FREQS_FILE = "term_freqs.npz"  # the counts as one archive: indexes saved before the parts below
TERM_FREQS_PARTS = ("data", "indices", "indptr")  # term_freqs.<part>.npy, memory-mapped when loaded
DOC_LENGTHS_FILE = "doc_lengths.npy"
DOC_FREQS_FILE = "doc_freqs.npy"
CHUNK_IDS_FILE = "chunk_ids.npy"


def lucene_tf_weight(term_freq: float, doc_len: float, avg_doc_len: float, k1: float, b: float) -> float:
    """The saturating term-frequency factor, with the length normalisation that b controls.

    This is the textbook form with the (k1 + 1) numerator. bm25s (like Lucene since 8.0) drops
    that constant, which changes no ranking; ``SparseIndex.search`` multiplies it back in so
    that scores and ``explain`` agree with this formula.
    """
    return term_freq * (k1 + 1.0) / (term_freq + k1 * (1.0 - b + b * doc_len / avg_doc_len))


class SparseIndex(TermIndex):
    """BM25 over chunk texts; implements ``store.retrieval_index.TermIndex`` (reads texts).

    Positions 0..n-1 follow ``chunk_ids``: ties in score keep that order.
    """

    backend = "bm25s"
    format_version = FORMAT_VERSION
    supports_explain = True
    has_term_statistics = True

    def __init__(
        self,
        chunk_ids: np.ndarray,
        tokenizer: Bm25Tokenizer,
        k1: float,
        b: float,
        vocabulary: dict[str, int],
        term_freqs: sp.csr_matrix,
        retriever: bm25s.BM25 | None,
        doc_lengths: np.ndarray | None = None,
        doc_freqs: np.ndarray | None = None,
    ) -> None:
        """``doc_lengths`` and ``doc_freqs`` follow from ``term_freqs``; a loaded index passes its
        saved ones so that nothing reads the whole matrix."""
        self.tokenizer = tokenizer
        self.k1 = k1
        self.b = b
        self._set_corpus(chunk_ids, vocabulary, term_freqs, retriever, doc_lengths, doc_freqs)

    def _set_corpus(
        self,
        chunk_ids: np.ndarray,
        vocabulary: dict[str, int],
        term_freqs: sp.csr_matrix,
        retriever: bm25s.BM25 | None,
        doc_lengths: np.ndarray | None = None,
        doc_freqs: np.ndarray | None = None,
    ) -> None:
        # `retriever` is None when no chunk has a single token: then nothing can ever match.
        self.chunk_ids = chunk_ids
        self._vocabulary = vocabulary
        self._term_freqs = term_freqs
        self._retriever = retriever
        self._postings: Postings | None = (
            None
            if retriever is None
            else ArrayPostings(retriever.scores["data"], retriever.scores["indices"], retriever.scores["indptr"])
        )
        if doc_lengths is None:
            doc_lengths = np.asarray(term_freqs.sum(axis=1)).ravel().astype(np.int64)
        if doc_freqs is None:
            doc_freqs = np.bincount(term_freqs.indices, minlength=term_freqs.shape[1])
        self._doc_lengths, self._doc_freqs = doc_lengths, doc_freqs
        self._avg_doc_len = float(self._doc_lengths.mean()) if len(chunk_ids) else 0.0
        self._positions = RowLookup(chunk_ids).rows  # chunk ids -> positions (-1: not indexed)

    @classmethod
    def build(
        cls,
        chunk_ids: np.ndarray,
        texts: list[str],
        tokenizer: Bm25Tokenizer,
        k1: float,
        b: float,
    ) -> SparseIndex:
        chunk_ids = _checked_chunk_ids(chunk_ids)
        if len(chunk_ids) != len(texts):
            raise ValueError(
                f"SparseIndex.build: {len(chunk_ids)} chunk ids but {len(texts)} texts; pass one id per text"
            )
        vocabulary: dict[str, int] = {}
        token_ids_per_chunk = [
            [vocabulary.setdefault(token, len(vocabulary)) for token in tokens]
            for tokens in tokenizer.tokenize_many(texts)
        ]
        term_freqs = _term_frequency_matrix(token_ids_per_chunk, len(vocabulary))
        retriever = _scored(token_ids_per_chunk, vocabulary, k1, b)
        return cls(chunk_ids, tokenizer, k1, b, vocabulary, term_freqs, retriever)

    @classmethod
    def from_chunks(
        cls, batch: ChunkBatch, tokenizer: Bm25Tokenizer | None = None, k1: float = 1.2, b: float = 0.75
    ) -> SparseIndex:
        """An index of the batch's texts (the default tokenizer when none is given)."""
        return cls.build(batch.ids, batch.require_texts("SparseIndex"), tokenizer or Bm25Tokenizer(), k1, b)

    def __len__(self) -> int:
        return len(self.chunk_ids)

    def ids(self) -> np.ndarray:
        return self.chunk_ids.copy()

    def add(self, batch: ChunkBatch) -> None:
        """Index the batch's texts; an id already present keeps its position and gets the new text.

        Only the new texts are tokenized; the others' term counts come from the matrix.
        """
        texts = batch.require_texts("SparseIndex")
        if not len(batch):
            return
        vocabulary = dict(self._vocabulary)
        new_rows = _term_frequency_matrix(
            [
                [vocabulary.setdefault(token, len(vocabulary)) for token in tokens]
                for tokens in self.tokenizer.tokenize_many(texts)
            ],
            len(vocabulary),
        )
        current = self._term_freqs
        # the same counts, widened to the vocabulary the new texts grew
        old_rows = sp.csr_matrix((current.data, current.indices, current.indptr), shape=(len(self), len(vocabulary)))
        replaced = self._positions(batch.ids)
        is_new = replaced < 0
        # Each chunk's row: its old one, the replacement for it, or (appended) a new chunk's.
        row_of_position = np.arange(len(self), dtype=np.int64)
        row_of_position[replaced[~is_new]] = len(self) + np.flatnonzero(~is_new)
        order = np.concatenate([row_of_position, len(self) + np.flatnonzero(is_new)])
        term_freqs = sp.vstack([old_rows, new_rows], format="csr")[order]
        chunk_ids = np.concatenate([self.chunk_ids, batch.ids[is_new]])
        self._rescore(chunk_ids, vocabulary, term_freqs)

    def delete(self, chunk_ids: np.ndarray) -> None:
        """Remove chunks; ids not in the index are ignored."""
        positions = self._positions(chunk_ids)
        positions = positions[positions >= 0]
        if not len(positions):
            return
        keep = np.ones(len(self), dtype=bool)
        keep[positions] = False
        self._rescore(self.chunk_ids[keep], dict(self._vocabulary), self._term_freqs[keep])

    def _rescore(self, chunk_ids: np.ndarray, vocabulary: dict[str, int], term_freqs: sp.csr_matrix) -> None:
        """Re-score the corpus from its term counts, dropping terms no chunk holds any more."""
        term_freqs = sp.csr_matrix(term_freqs)
        term_freqs.sum_duplicates()
        used = np.flatnonzero(np.bincount(term_freqs.indices, minlength=term_freqs.shape[1]))
        new_id = np.full(term_freqs.shape[1], -1, dtype=np.int64)
        new_id[used] = np.arange(len(used))
        by_old_id = sorted(vocabulary.items(), key=lambda item: item[1])
        vocabulary = {token: int(new_id[old]) for token, old in by_old_id if new_id[old] >= 0}
        term_freqs = term_freqs[:, used].tocsr()
        token_ids_per_chunk = [
            np.repeat(term_freqs.indices[start:end], term_freqs.data[start:end]).tolist()
            for start, end in zip(term_freqs.indptr[:-1], term_freqs.indptr[1:], strict=False)
        ]
        self._set_corpus(chunk_ids, vocabulary, term_freqs, _scored(token_ids_per_chunk, vocabulary, self.k1, self.b))

    def search(
        self, query: IndexQuery | str | np.ndarray, k: int, allowed_ids: Set[int] | None = None
    ) -> list[tuple[int, float]]:
        """The k best (chunk id, score) pairs with a positive score, best first; ties by position."""
        text = as_query(query).require_text("SparseIndex")
        if k <= 0 or self._retriever is None or self._postings is None:
            return []
        # bm25s silently skips unknown terms but fails on an empty token list, so keep only the
        # terms it knows and stop early when none are left. Repeated terms count once per
        # occurrence, as in bm25s and Lucene.
        known_tokens = [token for token in self.tokenizer.tokenize(text) if token in self._vocabulary]
        if not known_tokens:
            return []
        token_ids = self._retriever.get_tokens_ids(known_tokens)
        scores = query_scores(self._postings, token_ids, len(self)) * (self.k1 + 1.0)
        matching = scores > 0
        if allowed_ids is not None:
            matching &= self._mask_of(allowed_ids)
        positions = np.flatnonzero(matching)
        if len(positions) > k:
            positions = positions[np.argpartition(-scores[positions], k - 1)[:k]]
        # lexsort keys go last-first: score descending, then position for a stable order.
        positions = positions[np.lexsort((positions, -scores[positions]))]
        return list(zip(self.chunk_ids[positions].tolist(), scores[positions].tolist(), strict=False))

    def _mask_of(self, allowed_ids: Set[int]) -> np.ndarray:
        mask = np.zeros(len(self), dtype=bool)
        positions = self._positions(np.fromiter(allowed_ids, dtype=np.int64, count=len(allowed_ids)))
        mask[positions[positions >= 0]] = True
        return mask

    def term_idf(self, term: str) -> float:
        """The idf of one token (as the tokenizer emits it); 0 for a token no chunk has."""
        term_id = self._vocabulary.get(term)
        doc_freq = int(self._doc_freqs[term_id]) if term_id is not None else 0
        return lucene_idf(doc_freq, len(self)) if doc_freq else 0.0

    def explain(self, query: IndexQuery | str | np.ndarray, chunk_id: int) -> ScoreExplanation:
        """Each distinct query term's share of the chunk's score; the contributions sum to the
        score ``search`` gives the chunk (0 when it does not match)."""
        text = as_query(query).require_text("SparseIndex")
        position = int(self._positions([int(chunk_id)])[0])
        if position < 0:
            raise KeyError(f"SparseIndex.explain: chunk {chunk_id} is not in this index; pick one from search results")
        doc_len = int(self._doc_lengths[position])
        # one CSR row slice: indexing the matrix per term costs tens of microseconds each
        start, end = self._term_freqs.indptr[position], self._term_freqs.indptr[position + 1]
        chunk_freqs = dict(
            zip(self._term_freqs.indices[start:end].tolist(), self._term_freqs.data[start:end].tolist(), strict=False)
        )
        rows = []
        contributions = []
        for term, query_count in Counter(self.tokenizer.tokenize(text)).items():
            term_id = self._vocabulary.get(term)
            term_freq = int(chunk_freqs.get(term_id, 0)) if term_id is not None else 0
            doc_freq = int(self._doc_freqs[term_id]) if term_id is not None else 0
            # An unknown term has no idf in the index: it cannot contribute.
            idf = lucene_idf(doc_freq, len(self)) if doc_freq else 0.0
            contribution = 0.0
            if term_freq:
                tf_weight = lucene_tf_weight(term_freq, doc_len, self._avg_doc_len, self.k1, self.b)
                contribution = query_count * idf * tf_weight
            contributions.append(contribution)
            rows.append(
                {
                    "term": term,
                    "query_count": query_count,
                    "tf": term_freq,
                    "df": doc_freq,
                    "idf": idf,
                    "doc_len": doc_len,
                    "avg_doc_len": self._avg_doc_len,
                    "contribution": contribution,
                }
            )
        return ScoreExplanation(int(chunk_id), math.fsum(contributions), tuple(rows))

    def stats(self) -> IndexStats:
        return IndexStats(
            self.backend,
            FORMAT_VERSION,
            len(self),
            {
                "method": METHOD,
                "k1": self.k1,
                "b": self.b,
                "tokenizer": self.tokenizer.describe(),
                "vocabulary_size": len(self._vocabulary),
                "avg_doc_len": self._avg_doc_len,
            },
        )

    def save(self, folder: Path) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        if self._retriever is not None:
            self._retriever.save(folder / BM25S_DIR, show_progress=False)
        for part in TERM_FREQS_PARTS:
            np.save(folder / f"term_freqs.{part}.npy", getattr(self._term_freqs, part))
        np.save(folder / DOC_LENGTHS_FILE, self._doc_lengths)
        np.save(folder / DOC_FREQS_FILE, self._doc_freqs)
        np.save(folder / CHUNK_IDS_FILE, self.chunk_ids)
        write_params(
            folder,
            {
                "method": METHOD,
                "k1": self.k1,
                "b": self.b,
                "tokenizer": self.tokenizer.describe(),
                "num_docs": len(self),
                "vocabulary_size": len(self._vocabulary),
                "avg_doc_len": self._avg_doc_len,
                "bm25s_version": bm25s.__version__,
            },
            FORMAT_VERSION,
        )

    @classmethod
    def load(cls, folder: Path) -> SparseIndex:
        folder = Path(folder)
        params = read_params(folder, "SparseIndex", FORMAT_VERSION)
        if params.get("method") != METHOD:
            raise IndexFormatError(
                "SparseIndex",
                folder,
                f"{FORMAT_VERSION} (method {params.get('method')})",
                f"{FORMAT_VERSION} (method {METHOD})",
            )
        chunk_ids = _checked_chunk_ids(np.load(folder / CHUNK_IDS_FILE))
        expected_shape = (params["num_docs"], params["vocabulary_size"])
        term_freqs, doc_lengths, doc_freqs = _load_term_freqs(folder, expected_shape)
        retriever = None
        vocabulary: dict[str, int] = {}
        if params["vocabulary_size"]:
            retriever = bm25s.BM25.load(folder / BM25S_DIR, load_corpus=False, mmap=True, show_progress=False)
            vocabulary = retriever.vocab_dict
        parts_agree = (
            len(chunk_ids) == params["num_docs"]
            and term_freqs.shape == expected_shape
            and len(vocabulary) == expected_shape[1]
        )
        if not parts_agree:
            raise ValueError(
                f"SparseIndex.load: parts of {folder} disagree ({len(chunk_ids)} chunk ids, term matrix "
                f"{term_freqs.shape}, {len(vocabulary)} terms, params say {expected_shape}); rebuild the BM25 index"
            )
        tokenizer = Bm25Tokenizer.from_description(params["tokenizer"])
        index = cls(
            chunk_ids, tokenizer, params["k1"], params["b"], vocabulary, term_freqs, retriever, doc_lengths, doc_freqs
        )
        if retriever is not None:
            # a query reads its terms' postings from the files, leaving nothing of them resident
            index._postings = FilePostings(folder / BM25S_DIR)
        return index


def _load_term_freqs(
    folder: Path, shape: tuple[int, int]
) -> tuple[sp.csr_matrix, np.ndarray | None, np.ndarray | None]:
    """The term counts, memory-mapped, with the saved lengths and document frequencies; from the
    archive of an index saved before the parts existed (then the two follow from the counts)."""
    if not (folder / DOC_LENGTHS_FILE).exists():
        return sp.load_npz(folder / TERM_FREQS_FILE).tocsr(), None, None
    data, indices, indptr = (
        np.load(folder / f"term_freqs.{part}.npy", mmap_mode="r" if shape[0] else None) for part in TERM_FREQS_PARTS
    )
    matrix = sp.csr_matrix((data, indices, indptr), shape=shape, copy=False)
    return matrix, np.load(folder / DOC_LENGTHS_FILE), np.load(folder / DOC_FREQS_FILE)


def _checked_chunk_ids(chunk_ids: np.ndarray) -> np.ndarray:
    chunk_ids = np.asarray(chunk_ids)
    if chunk_ids.ndim != 1 or (chunk_ids.size and not np.issubdtype(chunk_ids.dtype, np.integer)):
        raise ValueError(f"SparseIndex: chunk_ids must be a 1-D integer array, got {chunk_ids.dtype} {chunk_ids.shape}")
    chunk_ids = chunk_ids.astype(np.int64, copy=False)
    if len(np.unique(chunk_ids)) != len(chunk_ids):
        raise ValueError("SparseIndex: chunk_ids contain duplicates; give every chunk its own id")
    return chunk_ids


def _scored(token_ids_per_chunk: list[list[int]], vocabulary: dict[str, int], k1: float, b: float) -> bm25s.BM25 | None:
    """bm25s's precomputed scores; None when there is no term at all (nothing can match)."""
    if not vocabulary:
        return None
    # float64 so that explain() (pure Python floats) reproduces the scores exactly.
    retriever = bm25s.BM25(k1=k1, b=b, method=METHOD, dtype="float64")
    # The (ids, vocabulary) form keeps bm25s from guessing the corpus type from its first chunk,
    # and we never query the empty token it would otherwise add.
    retriever.index((token_ids_per_chunk, vocabulary), create_empty_token=False, show_progress=False)
    return retriever


def _term_frequency_matrix(token_ids_per_chunk: list[list[int]], vocabulary_size: int) -> sp.csr_matrix:
    """Chunks x terms counts; scipy sums the repeated (chunk, term) entries into frequencies."""
    lengths = np.fromiter((len(ids) for ids in token_ids_per_chunk), dtype=np.int64, count=len(token_ids_per_chunk))
    rows = np.repeat(np.arange(len(token_ids_per_chunk), dtype=np.int32), lengths)
    cols = np.fromiter((term for ids in token_ids_per_chunk for term in ids), dtype=np.int32, count=int(lengths.sum()))
    counts = np.ones(len(cols), dtype=np.int32)
    matrix = sp.csr_matrix((counts, (rows, cols)), shape=(len(token_ids_per_chunk), vocabulary_size), dtype=np.int32)
    matrix.sum_duplicates()
    return matrix
