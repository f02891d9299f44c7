import math

import pytest

from workbench.config import FusionConfig
from workbench.retrieval.fusion import fuse, normalize, rrf, weighted
from workbench.retrieval.ranking import RankedList


def ordered(name, chunk_ids, scores=None):
    """A ranked list in the given order; doc id = chunk id * 10."""
    scores = scores or [float(len(chunk_ids) - i) for i in range(len(chunk_ids))]
    return RankedList.from_ordered(name, [(c, c * 10, s) for c, s in zip(chunk_ids, scores, strict=False)])


# dense = [1, 2, 3], bm25 = [3, 1, 4]
DENSE = ordered("dense", [1, 2, 3])
BM25 = ordered("bm25", [3, 1, 4])


def test_rrf_two_runs_k60():
    fused = rrf([DENSE, BM25], k=60)
    # 1: 1/61 + 1/62   2: 1/62   3: 1/63 + 1/61   4: 1/63
    expected = {1: 1 / 61 + 1 / 62, 2: 1 / 62, 3: 1 / 63 + 1 / 61, 4: 1 / 63}
    assert fused.name == "rrf"
    # 1/61+1/62 > 1/61+1/63 > 1/62 > 1/63
    assert fused.chunk_ids() == [1, 3, 2, 4]
    for chunk_id, score in fused.score_map().items():
        assert score == pytest.approx(expected[chunk_id], abs=1e-12)
    assert [h.rank for h in fused] == [1, 2, 3, 4]
    assert fused.doc_of() == {1: 10, 3: 30, 2: 20, 4: 40}


def test_rrf_three_runs_k1_ties_broken_by_chunk_id():
    third = ordered("splade", [4, 2])
    fused = rrf([DENSE, BM25, third], k=1, name="fused")
    # 1: 1/(1+1) + 1/(1+2)            = 0.8333...
    # 2: 1/(1+2) + 1/(1+2)            = 0.6666...
    # 3: 1/(1+3) + 1/(1+1)            = 0.75
    # 4: 1/(1+3) + 1/(1+1)            = 0.75   (tie with 3: both best single rank 1 -> lower id first)
    assert fused.name == "fused"
    assert fused.chunk_ids() == [1, 3, 4, 2]
    expected = [1 / 2 + 1 / 3, 1 / 4 + 1 / 2, 1 / 4 + 1 / 2, 1 / 3 + 1 / 3]
    assert [h.score for h in fused] == pytest.approx(expected, abs=1e-12)


def test_rrf_ties_broken_by_best_single_rank_before_chunk_id():
    # k=0: chunk 20 is rank 1 in a -> 1/1 = 1; chunk 10 is rank 2 in b and c -> 1/2 + 1/2 = 1;
    # chunks 30 and 31 are rank 1 in b and c -> 1. All tie at 1.0: best rank 1 (20, 30, 31) beats
    # best rank 2 (10), although 10 has the lowest id.
    a = ordered("a", [20])
    b = ordered("b", [30, 10])
    c = ordered("c", [31, 10])
    fused = rrf([a, b, c], k=0)
    assert fused.chunk_ids() == [20, 30, 31, 10]
    assert [h.score for h in fused] == [1.0, 1.0, 1.0, 1.0]


def test_rrf_edge_cases():
    assert len(rrf([])) == 0
    assert rrf([ordered("only", [5, 6])], k=60).score_map() == pytest.approx({5: 1 / 61, 6: 1 / 62}, abs=1e-12)
    with pytest.raises(ValueError, match="fusion.k"):
        rrf([DENSE], k=-1)


def test_normalize_minmax_and_zscore():
    run = ordered("dense", [1, 2, 3], [0.9, 0.7, 0.5])
    # minmax: (s - 0.5) / 0.4
    assert normalize(run, "minmax") == pytest.approx({1: 1.0, 2: 0.5, 3: 0.0}, abs=1e-12)
    # mean 0.7, population std sqrt((0.04 + 0 + 0.04) / 3) = 0.2 / sqrt(1.5) -> z = +-sqrt(1.5), 0
    assert normalize(run, "zscore") == pytest.approx({1: math.sqrt(1.5), 2: 0.0, 3: -math.sqrt(1.5)}, abs=1e-12)


def test_normalize_degenerate_runs():
    constant = ordered("flat", [1, 2], [3.0, 3.0])
    assert normalize(constant, "minmax") == {1: 1.0, 2: 1.0}
    assert normalize(constant, "zscore") == {1: 0.0, 2: 0.0}
    assert normalize(ordered("empty", []), "minmax") == {}
    with pytest.raises(ValueError, match="minmax, zscore"):
        normalize(constant, "rank")


# Weighted fusion fixtures: chunk 2 is missing from bm25, chunk 4 from dense.
W_DENSE = ordered("dense", [1, 2, 3], [0.9, 0.7, 0.5])
W_BM25 = ordered("bm25", [3, 4, 1], [12.0, 6.0, 3.0])


def test_weighted_minmax_with_missing_chunks():
    fused = weighted([W_DENSE, W_BM25], (0.6, 0.4), normalization="minmax")
    # dense minmax: 1 -> 1, 2 -> 0.5, 3 -> 0        bm25 minmax: 3 -> 1, 4 -> (6-3)/9 = 1/3, 1 -> 0
    # missing chunks get the run's minimum, 0.
    # 1: 0.6*1   + 0.4*0   = 0.6
    # 2: 0.6*0.5 + 0.4*0   = 0.3
    # 3: 0.6*0   + 0.4*1   = 0.4
    # 4: 0.6*0   + 0.4/3   = 0.1333...
    assert fused.name == "weighted"
    assert fused.chunk_ids() == [1, 3, 2, 4]
    assert [h.score for h in fused] == pytest.approx([0.6, 0.4, 0.3, 0.4 / 3], abs=1e-12)


def test_weighted_zscore_missing_chunk_gets_run_minimum():
    fused = weighted([W_DENSE, W_BM25], (0.5, 0.5), normalization="zscore")
    r15 = math.sqrt(1.5)
    r14 = math.sqrt(14)
    # dense z: 1 -> sqrt(1.5), 2 -> 0, 3 -> -sqrt(1.5)                         (min -sqrt(1.5))
    # bm25: mean 7, deviations 5, -1, -4, variance (25+1+16)/3 = 14
    #       z: 3 -> 5/sqrt(14), 4 -> -1/sqrt(14), 1 -> -4/sqrt(14)             (min -4/sqrt(14))
    # 1: 0.5*sqrt(1.5)  + 0.5*(-4/sqrt(14))  =  0.07785...
    # 3: 0.5*-sqrt(1.5) + 0.5*(5/sqrt(14))   =  0.05578...
    # 2: 0.5*0          + 0.5*(-4/sqrt(14))  = -0.53452...  (missing from bm25 -> bm25's minimum)
    # 4: 0.5*-sqrt(1.5) + 0.5*(-1/sqrt(14))  = -0.74600...  (missing from dense -> dense's minimum)
    expected = {
        1: 0.5 * r15 - 0.5 * 4 / r14,
        3: -0.5 * r15 + 0.5 * 5 / r14,
        2: -0.5 * 4 / r14,
        4: -0.5 * r15 - 0.5 / r14,
    }
    assert fused.chunk_ids() == [1, 3, 2, 4]
    assert fused.score_map() == pytest.approx(expected, abs=1e-12)


def test_weighted_needs_one_weight_per_run():
    with pytest.raises(ValueError, match="one weight per run: got 1 weights for 2 runs"):
        weighted([W_DENSE, W_BM25], (1.0,))


def test_fuse_dispatches_on_config():
    runs = [DENSE, BM25]
    assert fuse(runs, FusionConfig(method="rrf", k=1)).ranked == rrf(runs, k=1, name="fusion")
    config = FusionConfig(method="weighted", weights=(0.6, 0.4), normalization="minmax")
    assert fuse([W_DENSE, W_BM25], config).ranked == weighted([W_DENSE, W_BM25], (0.6, 0.4), name="fusion")
    with pytest.raises(ValueError, match="fusion.method"):
        fuse(runs, FusionConfig(method="borda"))


def test_rrf_breakdown_explains_each_score():
    config = FusionConfig(method="rrf", k=60)
    fusion = fuse([DENSE, BM25], config)
    fused, breakdown = fusion.ranked, fusion.breakdown
    assert list(breakdown) == [1, 3, 2, 4]
    assert breakdown[1] == {
        "dense": {"rank": 1, "score": 3.0, "contribution": pytest.approx(1 / 61, abs=1e-12)},
        "bm25": {"rank": 2, "score": 2.0, "contribution": pytest.approx(1 / 62, abs=1e-12)},
    }
    assert breakdown[2]["bm25"] == {"rank": None, "score": None, "contribution": 0.0}
    for hit in fused:
        assert sum(e["contribution"] for e in breakdown[hit.chunk_id].values()) == pytest.approx(hit.score, abs=1e-15)


def test_weighted_breakdown_reports_floor_for_missing_chunk():
    config = FusionConfig(method="weighted", weights=(0.5, 0.5), normalization="zscore")
    fusion = fuse([W_DENSE, W_BM25], config)
    fused, breakdown = fusion.ranked, fusion.breakdown
    # chunk 2 is missing from bm25: credited with bm25's minimum z, -4/sqrt(14)
    assert breakdown[2]["bm25"] == {
        "rank": None,
        "score": None,
        "contribution": pytest.approx(-0.5 * 4 / math.sqrt(14), abs=1e-12),
        "weight": 0.5,
        "normalized": pytest.approx(-4 / math.sqrt(14), abs=1e-12),
    }
    assert breakdown[2]["dense"]["rank"] == 2
    for hit in fused:
        assert sum(e["contribution"] for e in breakdown[hit.chunk_id].values()) == pytest.approx(hit.score, abs=1e-15)


def test_breakdown_needs_distinct_run_names():
    config = FusionConfig(method="rrf")
    twins = [DENSE, DENSE]
    with pytest.raises(ValueError, match="distinct run names"):
        fuse(twins, config)


def test_fuse_normalises_once_for_the_list_and_its_breakdown(monkeypatch):
    from workbench.retrieval import fusion as fusion_module

    calls = []
    original = fusion_module.normalize
    monkeypatch.setattr(fusion_module, "normalize", lambda run, method: calls.append(run.name) or original(run, method))
    fusion = fuse([W_DENSE, W_BM25], FusionConfig(method="weighted", weights=(0.5, 0.5), normalization="zscore"))
    assert not fusion.breakdown.built  # formatted on first read, from the numbers already computed
    assert len(fusion.breakdown) == len(fusion.ranked)
    assert calls == ["dense", "bm25"]


def test_a_chunk_repeated_in_a_run_counts_once_at_its_first_rank():
    repeated = RankedList.from_ordered("bm25", [(3, 30, 3.0), (1, 10, 2.0), (3, 30, 1.0)])
    fused = fuse([DENSE, repeated], FusionConfig(method="rrf", k=60))
    # 3: 1/63 (dense rank 3) + 1/61 (bm25 rank 1, not again at 3); 1: 1/61 + 1/62
    assert fused.ranked.score_map() == {1: 1 / 61 + 1 / 62, 3: 1 / 63 + 1 / 61, 2: 1 / 62}
    assert fused.breakdown[3]["bm25"]["rank"] == 1
