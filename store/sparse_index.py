"""The BM25 index: bm25s (Lucene variant) plus the term statistics that explain its scores.

bm25s stores only precomputed per-(term, chunk) scores, which is what makes it fast but leaves
nothing to explain a score with. Beside it we keep the chunk x term frequency matrix; document
lengths, document frequencies and the average length all follow from it, so ``explain`` can
rebuild every term's share of a score with the Lucene formula below.
"""

from __future__ import annotations

import json
import logging
import math
from collections import Counter
from pathlib import Path

import bm25s
import numpy as np
import scipy.sparse as sp

from store.atomic import atomic_write_json
from store.text_tokenizer import Bm25Tokenizer

# bm25s sets its own logger to DEBUG on import, which would print on every index build
logging.getLogger("bm25s").setLevel(logging.WARNING)

FORMAT_VERSION = 1
METHOD = "lucene"
# Folder parts.
BM25S_DIR = "bm25s"
TERM_FREQS_FILE = "term_freqs.npz"
CHUNK_IDS_FILE = "chunk_ids.npy"
PARAMS_FILE = "params.json"


def lucene_idf(doc_freq: int, num_docs: int) -> float:
    """Lucene's BM25 idf, which (unlike Robertson's) never goes negative for very common terms."""
    return math.log(1.0 + (num_docs - doc_freq + 0.5) / (doc_freq + 0.5))


def lucene_tf_weight(term_freq: float, doc_len: float, avg_doc_len: float, k1: float, b: float) -> float:
    """The saturating term-frequency factor, with the length normalisation that b controls.

    This is the textbook form with the (k1 + 1) numerator. bm25s (like Lucene since 8.0) drops
    that constant, which changes no ranking; ``SparseIndex.search`` multiplies it back in so
    that scores and ``explain`` agree with this formula.
    """
    return term_freq * (k1 + 1.0) / (term_freq + k1 * (1.0 - b + b * doc_len / avg_doc_len))


class SparseIndex:
    """BM25 over a fixed set of chunks. Positions 0..n-1 follow ``chunk_ids``; ``allowed`` masks
    passed to ``search`` are indexed by position."""

    def __init__(
        self,
        chunk_ids: np.ndarray,
        tokenizer: Bm25Tokenizer,
        k1: float,
        b: float,
        vocabulary: dict[str, int],
        term_freqs: sp.csr_matrix,
        retriever: bm25s.BM25 | None,
    ) -> None:
        # `retriever` is None when no chunk has a single token: then nothing can ever match.
        self.chunk_ids = chunk_ids
        self.tokenizer = tokenizer
        self.k1 = k1
        self.b = b
        self._vocabulary = vocabulary
        self._term_freqs = term_freqs
        self._retriever = retriever
        self._doc_lengths = np.asarray(term_freqs.sum(axis=1)).ravel().astype(np.int64)
        self._doc_freqs = np.bincount(term_freqs.indices, minlength=term_freqs.shape[1])
        self._avg_doc_len = float(self._doc_lengths.mean()) if len(chunk_ids) else 0.0
        self._position_of = {int(chunk_id): position for position, chunk_id in enumerate(chunk_ids)}

    @classmethod
    def build(
        cls,
        chunk_ids: np.ndarray,
        texts: list[str],
        tokenizer: Bm25Tokenizer,
        k1: float,
        b: float,
    ) -> "SparseIndex":
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

        retriever = None
        if vocabulary:
            # float64 so that explain() (pure Python floats) reproduces the scores exactly.
            retriever = bm25s.BM25(k1=k1, b=b, method=METHOD, dtype="float64")
            # The (ids, vocabulary) form keeps bm25s from guessing the corpus type from its first
            # chunk, and we never query the empty token it would otherwise add.
            retriever.index((token_ids_per_chunk, vocabulary), create_empty_token=False, show_progress=False)
        return cls(chunk_ids, tokenizer, k1, b, vocabulary, term_freqs, retriever)

    def __len__(self) -> int:
        return len(self.chunk_ids)

    def search(self, query: str, k: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        """The k best (chunk id, score) pairs with a positive score, best first; ties by position."""
        if allowed is not None:
            allowed = np.asarray(allowed)
            if allowed.dtype != np.bool_ or allowed.shape != (len(self),):
                raise ValueError(
                    f"SparseIndex.search: allowed must be a bool array of shape ({len(self)},), "
                    f"got {allowed.dtype} {allowed.shape}; build it per position of chunk_ids"
                )
        if k <= 0 or self._retriever is None:
            return []
        # bm25s silently skips unknown terms but fails on an empty token list, so keep only the
        # terms it knows and stop early when none are left. Repeated terms count once per
        # occurrence, as in bm25s and Lucene.
        known_tokens = [token for token in self.tokenizer.tokenize(query) if token in self._vocabulary]
        if not known_tokens:
            return []
        scores = self._retriever.get_scores(known_tokens) * (self.k1 + 1.0)
        matching = scores > 0
        if allowed is not None:
            matching &= allowed
        positions = np.flatnonzero(matching)
        if len(positions) > k:
            positions = positions[np.argpartition(-scores[positions], k - 1)[:k]]
        # lexsort keys go last-first: score descending, then position for a stable order.
        positions = positions[np.lexsort((positions, -scores[positions]))]
        return [(int(self.chunk_ids[position]), float(scores[position])) for position in positions]

    def explain(self, query: str, chunk_id: int) -> list[dict]:
        """Each distinct query term's share of the chunk's score; the contributions sum to the
        score ``search`` gives the chunk (0 when it does not match)."""
        position = self._position_of.get(int(chunk_id))
        if position is None:
            raise KeyError(f"SparseIndex.explain: chunk {chunk_id} is not in this index; pick one from search results")
        doc_len = int(self._doc_lengths[position])
        rows = []
        for term, query_count in Counter(self.tokenizer.tokenize(query)).items():
            term_id = self._vocabulary.get(term)
            term_freq = int(self._term_freqs[position, term_id]) if term_id is not None else 0
            doc_freq = int(self._doc_freqs[term_id]) if term_id is not None else 0
            # An unknown term has no idf in the index: it cannot contribute.
            idf = lucene_idf(doc_freq, len(self)) if doc_freq else 0.0
            contribution = 0.0
            if term_freq:
                tf_weight = lucene_tf_weight(term_freq, doc_len, self._avg_doc_len, self.k1, self.b)
                contribution = query_count * idf * tf_weight
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
        return rows

    def save(self, folder: Path) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        if self._retriever is not None:
            self._retriever.save(folder / BM25S_DIR, show_progress=False)
        sp.save_npz(folder / TERM_FREQS_FILE, self._term_freqs, compressed=False)
        np.save(folder / CHUNK_IDS_FILE, self.chunk_ids)
        # Written last: a folder with params.json is a complete index.
        atomic_write_json(
            folder / PARAMS_FILE,
            {
                "format": FORMAT_VERSION,
                "method": METHOD,
                "k1": self.k1,
                "b": self.b,
                "tokenizer": self.tokenizer.describe(),
                "num_docs": len(self),
                "vocabulary_size": len(self._vocabulary),
                "avg_doc_len": self._avg_doc_len,
                "bm25s_version": bm25s.__version__,
            },
        )

    @classmethod
    def load(cls, folder: Path) -> "SparseIndex":
        folder = Path(folder)
        params_path = folder / PARAMS_FILE
        if not params_path.exists():
            raise FileNotFoundError(f"SparseIndex.load: no {PARAMS_FILE} in {folder}; save an index there first")
        params = json.loads(params_path.read_text(encoding="utf-8"))
        if params.get("format") != FORMAT_VERSION or params.get("method") != METHOD:
            raise ValueError(
                f"SparseIndex.load: {folder} holds format {params.get('format')} / method {params.get('method')}, "
                f"this code reads format {FORMAT_VERSION} / {METHOD}; rebuild the BM25 index"
            )
        chunk_ids = _checked_chunk_ids(np.load(folder / CHUNK_IDS_FILE))
        term_freqs = sp.load_npz(folder / TERM_FREQS_FILE).tocsr()
        retriever = None
        vocabulary: dict[str, int] = {}
        if params["vocabulary_size"]:
            retriever = bm25s.BM25.load(folder / BM25S_DIR, load_corpus=False, show_progress=False)
            vocabulary = retriever.vocab_dict
        expected_shape = (params["num_docs"], params["vocabulary_size"])
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
        return cls(chunk_ids, tokenizer, params["k1"], params["b"], vocabulary, term_freqs, retriever)


def _checked_chunk_ids(chunk_ids: np.ndarray) -> np.ndarray:
    chunk_ids = np.asarray(chunk_ids)
    if chunk_ids.ndim != 1 or (chunk_ids.size and not np.issubdtype(chunk_ids.dtype, np.integer)):
        raise ValueError(f"SparseIndex: chunk_ids must be a 1-D integer array, got {chunk_ids.dtype} {chunk_ids.shape}")
    chunk_ids = chunk_ids.astype(np.int64, copy=False)
    if len(np.unique(chunk_ids)) != len(chunk_ids):
        raise ValueError("SparseIndex: chunk_ids contain duplicates; give every chunk its own id")
    return chunk_ids


def _term_frequency_matrix(token_ids_per_chunk: list[list[int]], vocabulary_size: int) -> sp.csr_matrix:
    """Chunks x terms counts; scipy sums the repeated (chunk, term) entries into frequencies."""
    lengths = np.fromiter((len(ids) for ids in token_ids_per_chunk), dtype=np.int64, count=len(token_ids_per_chunk))
    rows = np.repeat(np.arange(len(token_ids_per_chunk), dtype=np.int32), lengths)
    cols = np.fromiter((term for ids in token_ids_per_chunk for term in ids), dtype=np.int32, count=int(lengths.sum()))
    counts = np.ones(len(cols), dtype=np.int32)
    matrix = sp.csr_matrix((counts, (rows, cols)), shape=(len(token_ids_per_chunk), vocabulary_size), dtype=np.int32)
    matrix.sum_duplicates()
    return matrix
