"""Which settings a configuration ignores, given the others."""

from __future__ import annotations

from workbench.config import WorkbenchConfig
from workbench.retrieval.ignored_keys import effective, ignored_keys

BASE = WorkbenchConfig()


def test_each_method_and_switch_ignores_what_it_never_reads():
    assert {"fusion.weights", "fusion.normalization", "mmr.lambda", "mmr.pool", "rerank.top_m"} <= ignored_keys(BASE)
    assert "fusion.k" not in ignored_keys(BASE)
    weighted = BASE.with_value("fusion.method", "weighted")
    assert "fusion.k" in ignored_keys(weighted) and "fusion.weights" not in ignored_keys(weighted)
    bm25 = BASE.with_value("retrieval.mode", "bm25")
    assert {"fusion.method", "fusion.k", "dense.ef_search", "dense.exact"} <= ignored_keys(bm25)
    assert "mmr.lambda" not in ignored_keys(BASE.with_value("mmr.enabled", True))
    assert "rerank.top_m" not in ignored_keys(BASE.with_value("rerank.model", "cross-encoder/ms-marco-MiniLM-L-6-v2"))


def test_configurations_that_behave_alike_are_equal_once_made_effective():
    weighted = BASE.with_value("fusion.method", "weighted")
    assert effective(weighted.with_value("fusion.k", 10)) == effective(weighted.with_value("fusion.k", 60))
    assert effective(BASE.with_value("fusion.k", 10)) != effective(BASE.with_value("fusion.k", 60))
