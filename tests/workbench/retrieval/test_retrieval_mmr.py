import numpy as np
import pytest

from workbench.retrieval.mmr import mmr
from workbench.retrieval.ranking import RankedList

QUERY = np.array([1.0, 0.0, 0.0])
# Unit vectors (3-4-5 style components). Relevance = x component.
VECTORS = {
    11: np.array([0.96, 0.28, 0.0]),  # relevance 0.96
    12: np.array([0.8, 0.6, 0.0]),  # relevance 0.80, a near-duplicate of 11
    13: np.array([0.6, 0.0, 0.8]),  # relevance 0.60
    14: np.array([0.0, 1.0, 0.0]),  # relevance 0.00
}
# Pairwise cosines:
#   11·12 = 0.768 + 0.168 = 0.936   11·13 = 0.576   11·14 = 0.28
#   12·13 = 0.48                     12·14 = 0.6     13·14 = 0
# The fused order deliberately differs from the relevance order.
CANDIDATES = RankedList.from_ordered("rrf", [(13, 3, 0.04), (11, 1, 0.03), (14, 4, 0.02), (12, 2, 0.01)])


def test_lambda_half_diversifies():
    ranked, details = mmr(CANDIDATES, QUERY, VECTORS, lambda_=0.5, top_k=4, pool=10)
    # Step 1: 0.5*rel = 0.48, 0.40, 0.30, 0.00 -> 11 (no penalty yet)
    # Step 2: max sims to {11}: 12 .936, 13 .576, 14 .28
    #         12: 0.40 - 0.5*0.936 = -0.068   13: 0.30 - 0.5*0.576 = 0.012   14: 0 - 0.5*0.28 = -0.14 -> 13
    # Step 3: 13 raises no max (12·13 = .48 < .936, 13·14 = 0 < .28) -> 12 (-0.068) beats 14 (-0.14)
    # Step 4: 14's max sim becomes 12·14 = 0.6 -> 0 - 0.5*0.6 = -0.3
    assert ranked.name == "mmr"
    assert ranked.chunk_ids() == [11, 13, 12, 14]
    assert [h.score for h in ranked] == pytest.approx([0.48, 0.012, -0.068, -0.3], abs=1e-12)
    assert [h.doc_id for h in ranked] == [1, 3, 2, 4]

    assert details[11] == {
        "relevance": pytest.approx(0.96, abs=1e-12),
        "max_similarity": 0.0,
        "penalty": 0.0,
        "mmr_score": pytest.approx(0.48, abs=1e-12),
        "selected_against": None,
        "selected": True,
    }
    assert details[13]["penalty"] == pytest.approx(0.288, abs=1e-12)
    assert details[13]["selected_against"] == 11
    assert details[12]["max_similarity"] == pytest.approx(0.936, abs=1e-12)
    assert details[12]["penalty"] == pytest.approx(0.468, abs=1e-12)
    assert details[12]["selected_against"] == 11
    assert details[14]["penalty"] == pytest.approx(0.3, abs=1e-12)
    assert details[14]["selected_against"] == 12


def test_lambda_one_is_pure_relevance_order():
    ranked, details = mmr(CANDIDATES, QUERY, VECTORS, lambda_=1.0, top_k=4, pool=10)
    assert ranked.chunk_ids() == [11, 12, 13, 14]
    assert [h.score for h in ranked] == pytest.approx([0.96, 0.8, 0.6, 0.0], abs=1e-12)
    assert all(d["penalty"] == 0.0 for d in details.values())
    # Similarities are still reported: 12 was picked right after its near-duplicate 11.
    assert details[12]["max_similarity"] == pytest.approx(0.936, abs=1e-12)


def test_unselected_candidates_are_explained_against_the_final_selection():
    ranked, details = mmr(CANDIDATES, QUERY, VECTORS, lambda_=0.5, top_k=2, pool=10)
    assert ranked.chunk_ids() == [11, 13]
    assert details[12]["selected"] is False
    assert details[12]["mmr_score"] == pytest.approx(-0.068, abs=1e-12)
    assert details[12]["selected_against"] == 11
    assert details[14]["mmr_score"] == pytest.approx(-0.14, abs=1e-12)


def test_pool_limits_the_candidates():
    # Only the first two fused candidates (13, 11) may be selected.
    ranked, details = mmr(CANDIDATES, QUERY, VECTORS, lambda_=0.5, top_k=4, pool=2)
    assert ranked.chunk_ids() == [11, 13]
    assert set(details) == {11, 13}


def test_candidates_without_vectors_follow_in_original_order():
    vectors = {11: VECTORS[11], 13: VECTORS[13]}
    ranked, details = mmr(CANDIDATES, QUERY, vectors, lambda_=0.5, top_k=3, pool=10)
    # 11 then 13 by MMR; 14 and 12 lack vectors: appended in fused order, cut at top_k = 3.
    assert ranked.chunk_ids() == [11, 13, 14]
    assert ranked.hits[2].score == 0.02  # its original score
    assert details[14] == {"selected": False, "missing_vector": True, "kept": True}
    assert details[12] == {"selected": False, "missing_vector": True, "kept": False}


def test_ties_go_to_the_better_ranked_candidate():
    same = np.array([0.6, 0.8, 0.0])
    candidates = RankedList.from_ordered("rrf", [(7, 1, 0.2), (5, 1, 0.1)])
    ranked, _ = mmr(candidates, QUERY, {5: same, 7: same.copy()}, lambda_=1.0, top_k=2, pool=2)
    assert ranked.chunk_ids() == [7, 5]


def test_invalid_arguments_are_named():
    with pytest.raises(ValueError, match="mmr.lambda"):
        mmr(CANDIDATES, QUERY, VECTORS, lambda_=1.5, top_k=2, pool=2)
    with pytest.raises(ValueError, match="chunk 11"):
        mmr(CANDIDATES, QUERY, {11: np.ones(2)}, lambda_=0.5, top_k=2, pool=2)
