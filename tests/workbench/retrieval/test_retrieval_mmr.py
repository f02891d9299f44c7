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


def greedy_by_definition(order, vectors, query, lambda_, top_k):
    """MMR written out as its definition, one candidate at a time: the reference the array version must match."""
    unit = {cid: vectors[cid] / np.linalg.norm(vectors[cid]) for cid in order}
    q = query / np.linalg.norm(query)
    relevance = {cid: float(unit[cid] @ q) for cid in order}
    chosen, scores, against = [], [], []
    left = list(order)
    while left and len(chosen) < top_k:
        best, best_score, best_against = None, -np.inf, None
        for cid in left:  # strictly greater: the first of equal scores, in ranked order, wins
            sims = [(float(unit[cid] @ unit[other]), other) for other in chosen]
            top = max(sims, key=lambda pair: pair[0]) if sims else (0.0, None)
            score = lambda_ * relevance[cid] - (1.0 - lambda_) * top[0]
            if score > best_score:
                best, best_score, best_against = cid, score, top[1]
        chosen.append(best)
        scores.append(best_score)
        against.append(best_against)
        left.remove(best)
    return chosen, scores, against


def halves(rng: np.random.Generator) -> np.ndarray:
    """A unit vector of four components of +-0.5: every cosine between two is a multiple of 0.25, exact
    in any summation order, so equal scores are true ties and the ranked order alone must break them."""
    vector = np.zeros(8)
    vector[rng.choice(8, size=4, replace=False)] = rng.choice([-0.5, 0.5], size=4)
    return vector


@pytest.mark.parametrize("lambda_", [0.0, 0.25, 0.5, 0.75, 1.0])
def test_the_selection_matches_the_definition_on_random_pools_full_of_ties(lambda_):
    rng = np.random.default_rng(7)
    for _ in range(6):
        vectors = {cid: halves(rng) for cid in range(30)}
        order = [int(cid) for cid in rng.permutation(30)]
        candidates = RankedList.from_ordered("rrf", [(cid, cid, 1.0 / (rank + 1)) for rank, cid in enumerate(order)])
        query = halves(rng)
        ranked, details = mmr(candidates, query, vectors, lambda_=lambda_, top_k=20, pool=30)
        chosen, scores, against = greedy_by_definition(order, vectors, query, lambda_, 20)
        assert ranked.chunk_ids() == chosen
        assert [h.score for h in ranked] == scores
        assert [details[cid]["selected_against"] for cid in chosen] == against


def test_without_a_query_vector_relevance_is_the_ranking_score_scaled():
    # the model does not read the query: relevance is the fused score, min-max scaled over the pool
    # 13: (0.04 - 0.01) / 0.03 = 1, 11: 2/3, 14: 1/3, 12: 0
    ranked, details = mmr(CANDIDATES, None, VECTORS, lambda_=0.5, top_k=4, pool=10)
    # Step 1: 0.5*rel = 0.5, 0.333, 0.167, 0 -> 13
    # Step 2: sims to {13}: 11 .576, 14 0, 12 .48
    #         11: 0.333 - 0.288 = 0.045   14: 0.167 - 0 = 0.167   12: 0 - 0.24 = -0.24 -> 14
    # Step 3: max sims to {13, 14}: 11 max(.576, .28) = .576 -> 0.045; 12 max(.48, .6) = .6 -> -0.3 -> 11
    assert ranked.chunk_ids() == [13, 14, 11, 12]
    assert details[11]["relevance"] == pytest.approx(2 / 3)
    assert ranked.scores[:3] == pytest.approx([0.5, 1 / 6, 1 / 3 - 0.288])


def test_without_a_query_vector_a_duplicate_is_still_penalised():
    # a boilerplate section in every chapter: the same vector, ranked first and second
    same = np.array([0.0, 1.0, 0.0])
    candidates = RankedList.from_ordered("rrf", [(1, 1, 0.05), (2, 2, 0.04), (3, 3, 0.03)])
    vectors = {1: same, 2: same.copy(), 3: np.array([1.0, 0.0, 0.0])}
    ranked, _ = mmr(candidates, None, vectors, lambda_=0.7, top_k=3, pool=3)
    # 1 first (0.7); then 2: 0.7*0.5 - 0.3*1 = 0.05 against 3: 0 - 0 = 0 -> 2 still edges 3 at lambda 0.7
    assert ranked.chunk_ids() == [1, 2, 3]
    ranked, _ = mmr(candidates, None, vectors, lambda_=0.5, top_k=3, pool=3)
    # at 0.5: 2: 0.25 - 0.5 = -0.25 against 3: 0 -> the other text comes before the duplicate
    assert ranked.chunk_ids() == [1, 3, 2]
