"""A trial scores exactly as ``eval`` does, on the queries it is given, with the p95 of their latencies."""

from __future__ import annotations

import time

import pytest

from workbench.evaluation import golden as golden_sets
from workbench.evaluation.golden import GoldenSet
from workbench.evaluation.runner import evaluate_collection
from workbench.tuning.objective import Evaluator, p95, tuning_objective


def test_p95_interpolates_between_order_statistics():
    assert p95([]) == 0.0
    assert p95([10.0]) == 10.0
    # 21 values 0..20: the 95th percentile is the 20th order statistic's position 19.0 -> 19.0
    assert p95([float(v) for v in range(21)]) == pytest.approx(19.0)
    assert p95([1.0, 2.0]) == pytest.approx(1.95)


def test_a_trial_scores_like_eval_on_only_the_queries_it_is_given(lexicon_home):
    bench = lexicon_home.bench()
    golden = golden_sets.find("codes", bench.home)
    part = GoldenSet("codes[part]", golden.queries[:20])
    for mode in ("bm25", "dense", "hybrid"):
        config = bench.config_for("lex", overrides=[f"retrieval.mode={mode}"])
        asked: list[str] = []
        evaluator = Evaluator(bench, "lex", "ndcg@10")
        original = bench.query

        def recording(text, collection, run_config, source=None, original=original, asked=asked):
            asked.append(text)
            return original(text, collection, run_config, source)

        bench.query = recording
        score = tuning_objective(evaluator, part)(config)
        bench.query = original
        reference = evaluate_collection(bench, "lex", part, config, metric_names=("ndcg@10",))
        assert score.metric == pytest.approx(reference.metrics["ndcg@10"])
        assert dict(score.per_query) == pytest.approx(reference.per_query_values("ndcg@10"))
        assert score.queries == 20 and sorted(asked) == sorted(q.query for q in part.queries)
        assert score.p95_ms > 0


def test_a_trial_paces_itself_before_each_query_outside_its_timings(lexicon_home):
    """``pace`` (where the MCP server lets its calls go first) runs once before every query, and
    the time spent in it is not in the trial's latencies."""
    bench = lexicon_home.bench()
    golden = golden_sets.find("codes", bench.home)
    part = GoldenSet("codes[part]", golden.queries[:6])
    config = bench.config_for("lex", overrides=["retrieval.mode=bm25"])
    paced: list[float] = []

    def pace() -> None:
        paced.append(time.monotonic())
        time.sleep(0.5)

    score = Evaluator(bench, "lex", "ndcg@10", pace=pace).score(part, config)
    assert len(paced) == 6 and score.queries == 6
    assert score.p95_ms < 500  # bm25 over a small lexicon takes milliseconds: the 500 ms waits are not in it


def test_a_query_is_run_once_per_effective_configuration_and_its_score_kept(lexicon_home):
    """Folds of a nested study share queries, and a study returns to configurations it tried:
    each (effective configuration, query) is run once; a key the configuration ignores (fusion.k
    under BM25 alone) does not make it another configuration."""
    bench = lexicon_home.bench()
    golden = golden_sets.find("codes", bench.home)
    first, second = GoldenSet("codes[a]", golden.queries[:8]), GoldenSet("codes[b]", golden.queries[4:12])
    bm25 = bench.config_for("lex", overrides=["retrieval.mode=bm25"])
    bm25_other_k = bench.config_for("lex", overrides=["retrieval.mode=bm25", "fusion.k=10"])
    hybrid = bench.config_for("lex", overrides=["retrieval.mode=hybrid"])
    asked: list[str] = []
    original = bench.query

    def recording(text, collection, run_config, source=None):
        asked.append(text)
        return original(text, collection, run_config, source)

    bench.query = recording
    try:
        evaluator = Evaluator(bench, "lex", "ndcg@10")
        one = evaluator.score(first, bm25)
        two = evaluator.score(second, bm25_other_k)  # queries 4-7 kept from the first call
        assert len(asked) == 8 + 4
        evaluator.score(first, hybrid)  # another configuration: every query runs
        assert len(asked) == 8 + 4 + 8
    finally:
        bench.query = original
    reference = evaluate_collection(bench, "lex", second, bm25, metric_names=("ndcg@10",))
    assert two.metric == pytest.approx(reference.metrics["ndcg@10"])
    assert dict(two.per_query) == pytest.approx(reference.per_query_values("ndcg@10"))
    shared = {q.id for q in golden.queries[4:8]}
    assert {k: v for k, v in one.per_query.items() if k in shared} == {
        k: v for k, v in two.per_query.items() if k in shared
    }
