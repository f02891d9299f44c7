"""Ranked lists: three aligned columns, hits built from them on demand."""

from __future__ import annotations

import pytest

from workbench.retrieval.ranking import Hit, RankedList


def test_hits_follow_the_columns_with_ranks_from_position():
    ranked = RankedList("dense", (7, 3, 9), (70, 30, 90), (0.9, 0.5, 0.1))
    assert ranked.hits == (Hit(7, 70, 0.9, 1), Hit(3, 30, 0.5, 2), Hit(9, 90, 0.1, 3))
    assert list(ranked) == list(ranked.hits)
    assert ranked.rank_of(9) == 3 and ranked.rank_of(4) is None
    assert ranked.top(2) == RankedList("dense", (7, 3), (70, 30), (0.9, 0.5))
    assert ranked.renamed("x").chunk_ids() == [7, 3, 9] and ranked.renamed("x").name == "x"
    assert ranked.score_map() == {7: 0.9, 3: 0.5, 9: 0.1} and ranked.doc_of() == {7: 70, 3: 30, 9: 90}


def test_from_scores_sorts_stably_and_from_dict_recomputes_ranks():
    ranked = RankedList.from_scores("bm25", [(1, 10, 0.2), (2, 20, 0.8), (3, 30, 0.2)])
    assert ranked.chunk_ids() == [2, 1, 3]
    data = ranked.to_dict()
    assert [h["rank"] for h in data["hits"]] == [1, 2, 3]
    assert RankedList.from_dict(data) == ranked
    assert RankedList.from_hits("bm25", ranked.hits) == ranked
    assert RankedList.from_ordered("empty", []) == RankedList("empty")


def test_columns_must_align():
    with pytest.raises(ValueError, match="columns must align"):
        RankedList("broken", (1, 2), (10,), (0.5, 0.4))
