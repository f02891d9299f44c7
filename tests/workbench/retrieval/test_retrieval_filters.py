from workbench.retrieval.filters import filter_hits
from workbench.retrieval.ranking import RankedList

RUN = RankedList.from_ordered("rrf", [(1, 10, 0.9), (2, 20, 0.8), (3, 10, 0.7), (4, 30, 0.6)])


def test_filter_keeps_listed_documents_and_reranks():
    filtered, removed = filter_hits(RUN, {10, 30})
    assert removed == 1
    assert filtered.name == "filter"
    assert [(h.chunk_id, h.doc_id, h.score, h.rank) for h in filtered] == [
        (1, 10, 0.9, 1),
        (3, 10, 0.7, 2),
        (4, 30, 0.6, 3),
    ]


def test_filter_none_keeps_everything():
    filtered, removed = filter_hits(RUN, None, name="f")
    assert removed == 0
    assert filtered.hits == RUN.hits
    assert filtered.name == "f"


def test_filter_empty_set_removes_everything():
    filtered, removed = filter_hits(RUN, set())
    assert (len(filtered), removed) == (0, 4)
