import json
import math

import numpy as np
import pytest

from store.retrieval_index import ChunkBatch
from store.sparse_index import SparseIndex
from store.text_tokenizer import Bm25Tokenizer

K1, B = 1.2, 0.75
PLAIN = Bm25Tokenizer(stopwords="none", stemmer="none")  # tokens are just the lowercase words
TEXTS = [
    "apple banana apple cherry",
    "banana banana banana",
    "cherry date elderberry fig grape",
    "apple",
    "date date fig",
]
CHUNK_IDS = np.array([10, 11, 12, 13, 14], dtype=np.int64)


def hand_bm25(query: str, texts: list[str]) -> dict[int, float]:
    """Lucene BM25 written out from the textbook formula, one query word at a time."""
    docs = [text.split() for text in texts]
    n = len(docs)
    avgdl = sum(len(doc) for doc in docs) / n
    scores = {}
    for position, doc in enumerate(docs):
        score = 0.0
        for term in query.split():
            tf = doc.count(term)
            df = sum(term in other for other in docs)
            if tf == 0:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * len(doc) / avgdl))
        scores[position] = score
    return scores


@pytest.fixture
def index():
    return SparseIndex.build(CHUNK_IDS, TEXTS, PLAIN, K1, B)


@pytest.mark.parametrize("query", ["apple", "banana cherry", "date fig grape", "apple apple kiwi", "cherry"])
def test_scores_equal_the_lucene_formula(index, query):
    expected = {int(CHUNK_IDS[p]): s for p, s in hand_bm25(query, TEXTS).items() if s > 0}
    result = index.search(query, k=10)
    assert {chunk_id for chunk_id, _ in result} == set(expected)
    for chunk_id, score in result:
        assert score == pytest.approx(expected[chunk_id], abs=1e-6)
    assert [s for _, s in result] == sorted((s for _, s in result), reverse=True)


def test_a_known_value():
    # "apple" in chunk 13, the one-word chunk: N=5, df=2, tf=1, dl=1, avgdl=16/5=3.2.
    # idf = ln(1 + 3.5/2.5) = ln 2.4 = 0.8754687
    # tf part = 2.2 / (1 + 1.2 * (0.25 + 0.75 * 1/3.2)) = 2.2 / 1.58125 = 1.3913043
    # score = 0.8754687 * 1.3913043 = 1.2180435
    result = dict(SparseIndex.build(CHUNK_IDS, TEXTS, PLAIN, K1, B).search("apple", 5))
    assert result[13] == pytest.approx(1.2180435, abs=1e-6)


def test_top_k_and_no_match(index):
    assert index.search("banana cherry", k=1) == index.search("banana cherry", k=10)[:1]
    assert index.search("kiwi mango", k=10) == []
    assert index.search("", k=10) == []
    assert index.search("apple", k=0) == []


def test_allowed_ids_filter(index):
    result = index.search("apple banana", k=10, allowed_ids={11, 12, 13, 14, 999})
    assert {chunk_id for chunk_id, _ in result} == {11, 13}


def test_explain_sums_to_the_score(index):
    query = "apple apple banana kiwi"
    scores = dict(index.search(query, k=10))
    for chunk_id in CHUNK_IDS:
        rows = index.explain(query, int(chunk_id)).parts
        assert sum(row["contribution"] for row in rows) == pytest.approx(scores.get(int(chunk_id), 0.0), abs=1e-9)
    rows = {row["term"]: row for row in index.explain(query, 10).parts}
    apple = rows["apple"]
    assert (apple["query_count"], apple["tf"], apple["df"], apple["doc_len"]) == (2, 2, 2, 4)
    assert apple["idf"] == pytest.approx(math.log(1 + 3.5 / 2.5))
    assert apple["avg_doc_len"] == pytest.approx(3.2)
    # Two query occurrences of "apple": twice idf * 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 4 / 3.2)).
    assert apple["contribution"] == pytest.approx(2 * math.log(2.4) * 4.4 / (2 + 1.2 * 1.1875))
    assert rows["kiwi"]["df"] == 0 and rows["kiwi"]["contribution"] == 0.0
    with pytest.raises(KeyError, match="999"):
        index.explain(query, 999)


def test_default_tokenizer_stems_and_drops_stopwords():
    index = SparseIndex.build(np.array([1, 2]), ["The cats are running", "A dog sleeps"], Bm25Tokenizer(), K1, B)
    assert [chunk_id for chunk_id, _ in index.search("cat runs", 5)] == [1]
    assert index.search("the are a", 5) == []


def test_save_load_round_trip(tmp_path, index):
    index.save(tmp_path / "bm25")
    params = json.loads((tmp_path / "bm25" / "params.json").read_text())
    assert params["k1"] == K1 and params["b"] == B and params["tokenizer"]["stemmer"] == "none"
    loaded = SparseIndex.load(tmp_path / "bm25")
    assert len(loaded) == 5 and loaded.tokenizer == PLAIN
    for query in ["apple", "banana cherry", "date fig grape kiwi"]:
        assert loaded.search(query, 10) == index.search(query, 10)
        assert loaded.explain(query, 12) == index.explain(query, 12)


def _is_mapped(array) -> bool:
    """Whether the array's memory is a file mapping (somewhere down its chain of bases)."""
    import mmap

    while array is not None:
        if isinstance(array, (np.memmap, mmap.mmap)):
            return True
        array = getattr(array, "base", None)
    return False


def test_a_loaded_index_maps_its_matrices_and_still_grows(tmp_path, index):
    index.save(tmp_path / "bm25")
    loaded = SparseIndex.load(tmp_path / "bm25")
    assert _is_mapped(loaded._term_freqs.data) and _is_mapped(loaded._term_freqs.indices)
    assert _is_mapped(loaded._retriever.scores["data"]) and _is_mapped(loaded._retriever.scores["indices"])
    for changed in (loaded, index):  # a mapped index changes as one in memory does
        changed.add(ChunkBatch(np.array([99]), texts=["apple apple kiwi"]))
        changed.delete(np.array([12]))
    for query in ["apple", "banana cherry kiwi"]:
        assert loaded.search(query, 10) == index.search(query, 10) and 99 in dict(loaded.search("apple kiwi", 10))


def test_an_index_saved_before_the_mapped_parts_still_loads(tmp_path, index):
    import scipy.sparse as sp

    folder = tmp_path / "bm25"
    index.save(folder)
    # what save wrote before: the counts as one archive, no saved lengths or document frequencies
    sp.save_npz(folder / "term_freqs.npz", index._term_freqs, compressed=False)
    for part in (
        "term_freqs.data.npy",
        "term_freqs.indices.npy",
        "term_freqs.indptr.npy",
        "doc_lengths.npy",
        "doc_freqs.npy",
    ):
        (folder / part).unlink()
    loaded = SparseIndex.load(folder)
    assert loaded.search("banana cherry", 10) == index.search("banana cherry", 10)
    assert loaded.explain("banana cherry", 12) == index.explain("banana cherry", 12)


def test_load_does_not_tokenize_the_corpus(tmp_path, index, monkeypatch):
    index.save(tmp_path / "bm25")
    calls = []
    original = Bm25Tokenizer.tokenize_many
    monkeypatch.setattr(Bm25Tokenizer, "tokenize_many", lambda self, texts: calls.append(1) or original(self, texts))
    SparseIndex.load(tmp_path / "bm25")
    assert calls == []


def test_empty_corpus(tmp_path):
    index = SparseIndex.build(np.array([], dtype=np.int64), [], Bm25Tokenizer(), K1, B)
    assert len(index) == 0
    assert index.search("anything", 10) == []
    index.save(tmp_path / "empty")
    assert SparseIndex.load(tmp_path / "empty").search("anything", 10) == []


def test_corpus_without_any_token(tmp_path):
    index = SparseIndex.build(np.array([4, 5]), ["the a of", "!!"], Bm25Tokenizer(), K1, B)
    assert len(index) == 2 and index.search("the a of", 10) == []
    index.save(tmp_path / "bare")
    assert SparseIndex.load(tmp_path / "bare").search("of", 10) == []


def test_rejects_mismatched_inputs():
    with pytest.raises(ValueError, match="2 chunk ids but 1 texts"):
        SparseIndex.build(np.array([1, 2]), ["x y"], PLAIN, K1, B)
    with pytest.raises(ValueError, match="duplicates"):
        SparseIndex.build(np.array([1, 1]), ["x y", "z w"], PLAIN, K1, B)
