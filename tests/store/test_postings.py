import bm25s
import numpy as np

from store.postings import ArrayPostings, FilePostings, query_scores


def _retriever():
    vocabulary = {"tide": 0, "pool": 1, "anemone": 2, "潮": 3}
    chunks = [[0, 1, 1], [2], [0, 2, 3], [3, 3, 0]]
    retriever = bm25s.BM25(k1=1.2, b=0.75, method="lucene", dtype="float64")
    retriever.index((chunks, vocabulary), create_empty_token=False, show_progress=False)
    return retriever


def test_scores_sum_each_terms_postings_and_a_repeated_term_counts_again():
    # postings by hand: term 0 in chunks 0, 2 (scores 1.0, 2.0); term 1 in chunk 1 (0.5)
    postings = ArrayPostings(data=np.array([1.0, 2.0, 0.5]), indices=np.array([0, 2, 1]), indptr=np.array([0, 2, 3]))
    assert query_scores(postings, [0, 1], 3).tolist() == [1.0, 0.5, 2.0]
    assert query_scores(postings, [0, 0], 3).tolist() == [2.0, 0.0, 4.0]
    assert query_scores(postings, [], 3).tolist() == [0.0, 0.0, 0.0]


def test_in_memory_and_saved_postings_give_bm25s_own_scores_to_the_last_bit(tmp_path):
    retriever = _retriever()
    retriever.save(tmp_path / "bm25s", show_progress=False)
    scores = retriever.scores
    in_memory = ArrayPostings(scores["data"], scores["indices"], scores["indptr"])
    saved = FilePostings(tmp_path / "bm25s")
    for query in ([0], [3, 0], [2, 2, 1], [1, 3, 0, 2]):
        expected = retriever.get_scores(query)
        assert query_scores(in_memory, query, 4).tobytes() == expected.tobytes()
        assert query_scores(saved, query, 4).tobytes() == expected.tobytes()
