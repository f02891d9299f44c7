"""One suite of behaviour every retrieval backend (``store.retrieval_index.RetrievalIndex``) passes,
and every capability the pipeline uses (``VectorIndex``, ``TermIndex``) on every route that declares it.

Each backend is a ``Backend`` case: how to build it from a ``ChunkBatch``, how to load it, and
a reference scorer written out independently of it (brute-force cosine, textbook BM25). The
corpus carries both texts and vectors, English and Chinese, so a backend that reads both (the
scale-out issue's Milvus) joins by adding one case to ``BACKENDS``: Milvus adds one per route.
"""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from store.dense_index import DenseIndex
from store.milvus import CONNECTIONS, MilvusBm25Index, MilvusDenseIndex
from store.retrieval_index import (
    ChunkBatch,
    ExplainNotSupported,
    IndexFormatError,
    IndexQuery,
    RetrievalIndex,
    TermIndex,
    TermStatisticsNotSupported,
    VectorIndex,
    lucene_idf,
)
from store.sparse_index import SparseIndex
from store.text_tokenizer import Bm25Tokenizer

DIM = 16
K1, B = 1.2, 0.75
TOKENIZER = Bm25Tokenizer()
TEXTS = [
    "Apple orchards need bees to pollinate the apple blossoms in spring.",
    "A neural network learns its weights by gradient descent during training.",
    "Bees make honey from nectar; a hive keeps thousands of bees.",
    "Training a network on more data rarely hurts its accuracy.",
    "The harvest of apples starts in late summer and ends in autumn.",
    "Gradient clipping keeps the training of deep networks stable.",
    "Honey keeps for years because bees remove most of its water.",
    "Cider is pressed from sweet apples after the autumn harvest.",
    "Retrieval augmented generation grounds an answer in retrieved passages.",
    "Dense retrieval embeds passages; sparse retrieval matches their terms.",
    "BM25 scores a passage by term frequency, document frequency and length.",
    "Reranking with a cross encoder reorders the retrieved passages.",
    "检索增强生成先检索相关段落，再让模型依据段落回答问题。",
    "蜜蜂采集花蜜酿造蜂蜜，一个蜂巢里有成千上万只蜜蜂。",
    "苹果园在春天需要蜜蜂为苹果花授粉。",
    "神经网络通过梯度下降在训练中学习权重。",
]
IDS = np.arange(100, 100 + 3 * len(TEXTS), 3, dtype=np.int64)  # ids need not be positions
QUERY_TEXTS = [
    "apple harvest",
    "bees honey hive",
    "training neural networks",
    "retrieved passages",
    "蜜蜂 蜂蜜",
    "检索 段落",
]


def corpus_vectors() -> np.ndarray:
    return np.random.default_rng(11).standard_normal((len(TEXTS), DIM)).astype(np.float32)


def query_vectors() -> np.ndarray:
    return np.random.default_rng(12).standard_normal((len(QUERY_TEXTS), DIM)).astype(np.float32)


def batch_of(positions) -> ChunkBatch:
    positions = list(positions)
    return ChunkBatch(IDS[positions], texts=[TEXTS[p] for p in positions], vectors=corpus_vectors()[positions])


QUERIES = [IndexQuery(text=text, vector=vector) for text, vector in zip(QUERY_TEXTS, query_vectors(), strict=False)]


def cosine_reference(query: IndexQuery, batch: ChunkBatch) -> dict[int, float]:
    """Every chunk's cosine similarity to the query (a dense index ranks every chunk)."""
    vectors = batch.vectors.astype(np.float64)
    vector = query.vector.astype(np.float64)
    cosines = vectors @ vector / (np.linalg.norm(vectors, axis=1) * np.linalg.norm(vector))
    return {int(chunk_id): float(score) for chunk_id, score in zip(batch.ids, cosines, strict=False)}


def bm25_reference(query: IndexQuery, batch: ChunkBatch) -> dict[int, float]:
    """Lucene BM25 from the textbook formula; only chunks sharing a term with the query match."""
    docs = [Counter(TOKENIZER.tokenize(text)) for text in batch.texts]
    lengths = [sum(doc.values()) for doc in docs]
    avgdl = sum(lengths) / len(docs)
    scores = {}
    for chunk_id, doc, length in zip(batch.ids, docs, lengths, strict=False):
        score = 0.0
        for term in TOKENIZER.tokenize(query.text):
            df = sum(term in other for other in docs)
            if doc[term]:
                idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
                score += idf * doc[term] * (K1 + 1) / (doc[term] + K1 * (1 - B + B * length / avgdl))
        if score > 0:
            scores[int(chunk_id)] = score
    return scores


@dataclass(frozen=True)
class Backend:
    name: str
    build: Callable[[ChunkBatch], RetrievalIndex]
    load: Callable[[Path], RetrievalIndex]
    reference: Callable[[IndexQuery, ChunkBatch], dict[int, float]]
    tolerance: float
    route: str  # dense (a VectorIndex) or bm25 (a TermIndex)

    def __str__(self) -> str:
        return self.name


# Milvus: one Milvus Lite file for the session (opening one takes about half a second), a fresh
# Milvus collection per index built. One collection serves both routes; each route is a case.
_MILVUS_LITE: dict[str, str] = {}
_milvus_collections = itertools.count()


@pytest.fixture(scope="session", autouse=True)
def milvus_lite_file(tmp_path_factory):
    _MILVUS_LITE["uri"] = str(tmp_path_factory.mktemp("milvus") / "contract.db")
    yield
    CONNECTIONS.release(_MILVUS_LITE["uri"])


def built_in_milvus(view):
    def build(batch: ChunkBatch):
        return view.from_chunks(
            batch, uri=_MILVUS_LITE["uri"], collection=f"contract_{next(_milvus_collections)}", k1=K1, b=B
        )

    return build


BACKENDS = [
    Backend(
        "hnswlib",
        lambda batch: DenseIndex.from_chunks(batch, dim=DIM),
        DenseIndex.load,
        cosine_reference,
        1e-5,
        "dense",
    ),
    Backend(
        "bm25s",
        lambda batch: SparseIndex.from_chunks(batch, TOKENIZER, K1, B),
        SparseIndex.load,
        bm25_reference,
        1e-9,
        "bm25",
    ),
    # Milvus returns float32 scores; with client analysis it indexes TOKENIZER's terms
    Backend("milvus-dense", built_in_milvus(MilvusDenseIndex), MilvusDenseIndex.load, cosine_reference, 1e-5, "dense"),
    Backend("milvus-bm25", built_in_milvus(MilvusBm25Index), MilvusBm25Index.load, bm25_reference, 1e-5, "bm25"),
]


@pytest.fixture(params=BACKENDS, ids=str)
def backend(request) -> Backend:
    return request.param


@pytest.fixture(params=[b for b in BACKENDS if b.route == "dense"], ids=str)
def dense_backend(request) -> Backend:
    return request.param


@pytest.fixture(params=[b for b in BACKENDS if b.route == "bm25"], ids=str)
def bm25_backend(request) -> Backend:
    return request.param


def expected_ranking(
    backend: Backend, query: IndexQuery, batch: ChunkBatch, allowed: set[int] | None = None
) -> list[tuple[int, float]]:
    scores = {c: s for c, s in backend.reference(query, batch).items() if allowed is None or c in allowed}
    ranking = sorted(scores.items(), key=lambda item: -item[1])
    # The corpus is chosen so that no two chunks tie: then the order is fully determined.
    gaps = [a[1] - b[1] for a, b in pairwise(ranking)]
    assert all(gap > 10 * backend.tolerance for gap in gaps), "the test corpus has tied scores; change a text"
    return ranking


def assert_same_ranking(backend: Backend, result, expected) -> None:
    assert [chunk_id for chunk_id, _ in result] == [chunk_id for chunk_id, _ in expected]
    for (_, score), (_, wanted) in zip(result, expected, strict=False):
        assert score == pytest.approx(wanted, abs=backend.tolerance)


def test_every_backend_implements_the_protocol(backend):
    index = backend.build(batch_of(range(len(TEXTS))))
    assert isinstance(index, RetrievalIndex)
    assert len(index) == len(TEXTS)
    assert sorted(index.ids().tolist()) == IDS.tolist()


@pytest.mark.parametrize("query", QUERIES, ids=QUERY_TEXTS)
def test_search_ranks_best_first_with_the_reference_scores(backend, query):
    batch = batch_of(range(len(TEXTS)))
    index = backend.build(batch)
    expected = expected_ranking(backend, query, batch)
    assert expected, "every test query matches something"
    assert_same_ranking(backend, index.search(query, 3), expected[:3])


def test_k_larger_than_the_index_returns_every_match_once(backend):
    batch = batch_of(range(len(TEXTS)))
    index = backend.build(batch)
    for query in QUERIES:
        result = index.search(query, 10 * len(TEXTS))
        assert_same_ranking(backend, result, expected_ranking(backend, query, batch))
        assert len({chunk_id for chunk_id, _ in result}) == len(result)
        assert index.search(query, 0) == []


def test_allowed_ids_restrict_the_results(backend):
    batch = batch_of(range(len(TEXTS)))
    index = backend.build(batch)
    allowed = {int(chunk_id) for chunk_id in IDS[::2]}
    for query in QUERIES:
        expected = expected_ranking(backend, query, batch, allowed)
        assert_same_ranking(backend, index.search(query, 100, allowed_ids=allowed), expected)
        # ids the index does not hold are ignored, never returned
        with_strangers = allowed | {1, 2, 99999}
        assert_same_ranking(backend, index.search(query, 100, allowed_ids=with_strangers), expected)
        assert index.search(query, 100, allowed_ids=set()) == []
        assert index.search(query, 100, allowed_ids={1, 2, 99999}) == []


def test_add_then_search_sees_the_new_chunks(backend):
    index = backend.build(batch_of(range(8)))
    index.add(batch_of(range(8, len(TEXTS))))
    full = batch_of(range(len(TEXTS)))
    assert len(index) == len(TEXTS)
    for query in QUERIES:
        assert_same_ranking(backend, index.search(query, 100), expected_ranking(backend, query, full))


def test_adding_an_existing_id_replaces_its_chunk(backend):
    index = backend.build(batch_of(range(len(TEXTS))))
    # chunk 0 takes chunk 2's text and vector; chunk 2 itself goes, so nothing ties
    moved = ChunkBatch(IDS[[0]], texts=[TEXTS[2]], vectors=corpus_vectors()[[2]])
    index.add(moved)
    index.delete(IDS[[2]])
    assert len(index) == len(TEXTS) - 1
    positions = [p for p in range(len(TEXTS)) if p != 2]
    vectors = corpus_vectors()
    vectors[0] = vectors[2]
    texts = list(TEXTS)
    texts[0] = TEXTS[2]
    expected_batch = ChunkBatch(IDS[positions], texts=[texts[p] for p in positions], vectors=vectors[positions])
    for query in QUERIES:
        assert_same_ranking(backend, index.search(query, 100), expected_ranking(backend, query, expected_batch))


def test_delete_then_search_never_returns_the_deleted(backend):
    index = backend.build(batch_of(range(len(TEXTS))))
    gone = IDS[[0, 2, 13]]
    index.delete(np.concatenate([gone, [424242]]))  # an unknown id is ignored
    kept = [p for p in range(len(TEXTS)) if IDS[p] not in set(gone.tolist())]
    assert len(index) == len(kept)
    assert sorted(index.ids().tolist()) == IDS[kept].tolist()
    for query in QUERIES:
        assert_same_ranking(backend, index.search(query, 100), expected_ranking(backend, query, batch_of(kept)))
    index.delete(gone)  # deleting twice changes nothing
    assert len(index) == len(kept)


def test_save_load_round_trip_keeps_results_identical(backend, tmp_path):
    index = backend.build(batch_of(range(len(TEXTS))))
    index.delete(IDS[[5]])
    index.save(tmp_path / "index")
    loaded = backend.load(tmp_path / "index")
    assert len(loaded) == len(index)
    assert loaded.ids().tolist() == index.ids().tolist()
    assert loaded.stats() == index.stats()
    allowed = {int(chunk_id) for chunk_id in IDS[1::3]}
    for query in QUERIES:
        assert loaded.search(query, 100) == index.search(query, 100)
        assert loaded.search(query, 4, allowed_ids=allowed) == index.search(query, 4, allowed_ids=allowed)


def test_a_format_mismatch_names_the_folder_and_the_fix(backend, tmp_path):
    folder = tmp_path / "index"
    backend.build(batch_of(range(4))).save(folder)
    params = json.loads((folder / "params.json").read_text())
    assert params["format"] == type(backend.load(folder)).format_version
    (folder / "params.json").write_text(json.dumps({**params, "format": 999}))
    with pytest.raises(IndexFormatError, match="format 999") as caught:
        backend.load(folder)
    message = str(caught.value)
    assert str(folder) in message and "rebuild" in message
    assert isinstance(caught.value, ValueError)


def test_a_missing_index_names_the_folder(backend, tmp_path):
    with pytest.raises(FileNotFoundError, match="params.json"):
        backend.load(tmp_path / "nothing here")


def test_stats_count_the_live_chunks(backend):
    index = backend.build(batch_of(range(len(TEXTS))))
    stats = index.stats()
    assert (stats.backend, stats.format_version, stats.count) == (
        type(index).backend,
        type(index).format_version,
        len(TEXTS),
    )
    index.delete(IDS[:3])
    assert index.stats().count == len(TEXTS) - 3


def test_explain_accounts_for_the_search_score(backend):
    batch = batch_of(range(len(TEXTS)))
    index = backend.build(batch)
    if not type(index).supports_explain:
        with pytest.raises(ExplainNotSupported, match=type(index).backend):
            index.explain(QUERIES[0], int(IDS[0]))
        return
    for query in QUERIES:
        scores = dict(index.search(query, 100))
        for chunk_id in IDS.tolist():
            explanation = index.explain(query, chunk_id)
            assert explanation.chunk_id == chunk_id
            # a chunk the query does not match scores 0, and so does its explanation
            assert explanation.score == pytest.approx(scores.get(chunk_id, 0.0), abs=backend.tolerance)
            assert math.fsum(part["contribution"] for part in explanation.parts) == pytest.approx(
                explanation.score, abs=1e-12
            )
    with pytest.raises(KeyError, match="424242"):
        index.explain(QUERIES[0], 424242)


def test_a_batch_without_what_the_backend_reads_is_refused(backend):
    with pytest.raises(ValueError, match=r"pass (texts|vectors)="):
        backend.build(ChunkBatch(IDS[:2]))


def test_explain_not_supported_says_so():
    error = ExplainNotSupported("milvus", "BM25 is scored on the server")
    assert "milvus cannot explain its scores: BM25 is scored on the server" in str(error)
    assert isinstance(error, NotImplementedError)


def test_chunk_batch_refuses_inconsistent_input():
    with pytest.raises(ValueError, match="duplicates"):
        ChunkBatch(np.array([1, 1]), texts=["a", "b"])
    with pytest.raises(ValueError, match="2 ids but 1 texts"):
        ChunkBatch(np.array([1, 2]), texts=["a"])
    with pytest.raises(ValueError, match=r"shape \(2, dim\)"):
        ChunkBatch(np.array([1, 2]), vectors=np.ones((3, 4)))
    with pytest.raises(ValueError, match="1-D integer"):
        ChunkBatch(np.array([0.5, 1.5]))


# -- the capabilities the pipeline uses, declared by VectorIndex and TermIndex ---------------------


def test_every_route_declares_its_capabilities(backend):
    index = backend.build(batch_of(range(len(TEXTS))))
    protocol = VectorIndex if backend.route == "dense" else TermIndex
    assert isinstance(index, protocol)
    assert isinstance(type(index).supports_explain, bool)
    if backend.route == "dense":
        assert index.dim == DIM and type(index).exact_search_note.strip()
    else:
        assert isinstance(type(index).has_term_statistics, bool)
        assert (index.k1, index.b) == (K1, B)


def test_exact_search_ranks_every_allowed_chunk_by_the_reference(dense_backend):
    batch = batch_of(range(len(TEXTS)))
    index = dense_backend.build(batch)
    allowed = {int(chunk_id) for chunk_id in IDS[1::2]}
    for query in QUERIES:
        assert_same_ranking(
            dense_backend, index.search(query, 100, exact=True), expected_ranking(dense_backend, query, batch)
        )
        assert_same_ranking(
            dense_backend,
            index.search(query, 100, allowed_ids=allowed, exact=True),
            expected_ranking(dense_backend, query, batch, allowed),
        )


def test_ef_search_below_k_still_returns_k_hits_with_their_true_scores(dense_backend):
    batch = batch_of(range(len(TEXTS)))
    index = dense_backend.build(batch)
    for query in QUERIES:
        reference = cosine_reference(query, batch)
        narrow = index.search(query, 5, ef_search=1)  # the search widens ef to k
        assert len(narrow) == 5 and len({chunk_id for chunk_id, _ in narrow}) == 5
        for chunk_id, score in narrow:
            assert score == pytest.approx(reference[chunk_id], abs=dense_backend.tolerance)
        assert_same_ranking(
            dense_backend, index.search(query, 3, ef_search=512), expected_ranking(dense_backend, query, batch)[:3]
        )


def test_vectors_for_returns_the_stored_directions_in_the_order_asked(dense_backend):
    index = dense_backend.build(batch_of(range(len(TEXTS))))
    positions = [7, 0, 13, 2]
    vectors = index.vectors_for(IDS[positions])
    assert vectors.shape == (len(positions), DIM)
    wanted = corpus_vectors()[positions]
    # a backend may keep unit vectors (hnswlib) or the vectors as given (Milvus): the directions agree
    unit = lambda rows: rows / np.linalg.norm(rows, axis=1, keepdims=True)  # noqa: E731
    np.testing.assert_allclose(unit(vectors.astype(np.float64)), unit(wanted.astype(np.float64)), atol=1e-6)
    with pytest.raises(KeyError, match="424242"):
        index.vectors_for(np.array([int(IDS[0]), 424242]))


def test_the_tokenizer_is_the_one_the_index_reads(bm25_backend):
    index = bm25_backend.build(batch_of(range(len(TEXTS))))
    for text in [*QUERY_TEXTS, TEXTS[0], TEXTS[13]]:
        assert index.tokenizer.tokenize(text) == TOKENIZER.tokenize(text)


def test_term_idf_is_lucene_idf_of_the_corpus_or_refused_where_not_declared(bm25_backend):
    index = bm25_backend.build(batch_of(range(len(TEXTS))))
    if not type(index).has_term_statistics:
        with pytest.raises(TermStatisticsNotSupported, match="has_term_statistics"):
            index.term_idf("bee")
        return
    docs = [set(TOKENIZER.tokenize(text)) for text in TEXTS]
    for term in {term for text in QUERY_TEXTS for term in TOKENIZER.tokenize(text)}:
        df = sum(term in doc for doc in docs)
        assert df, f"{term!r}: every query term is in the corpus"
        assert index.term_idf(term) == pytest.approx(math.log(1 + (len(docs) - df + 0.5) / (df + 0.5)), abs=1e-12)
    assert index.term_idf("zyzzyva") == 0.0


def test_lucene_idf_by_hand():
    # 16 chunks, the term in 3: ln(1 + 13.5 / 3.5); a term in every chunk stays positive
    assert lucene_idf(3, 16) == pytest.approx(math.log(1 + 13.5 / 3.5), abs=1e-15)
    assert lucene_idf(16, 16) == pytest.approx(math.log(1 + 0.5 / 16.5), abs=1e-15)
    assert lucene_idf(16, 16) > 0
