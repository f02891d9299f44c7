from __future__ import annotations

import pytest

from workbench.analysis.side_config import (
    QUERY_TIME_KEYS,
    describe,
    differences,
    instructive_variant,
    side_config,
    side_values,
)
from workbench.config import ConfigError, WorkbenchConfig

BASE = WorkbenchConfig()


def test_side_values_read_every_query_time_key():
    values = side_values(BASE)
    assert list(values) == list(QUERY_TIME_KEYS)
    assert values["mmr.lambda"] == 0.7
    assert values["fusion.weights"] == (0.5, 0.5)
    assert values["retrieval.mode"] == "hybrid"


def test_side_config_applies_values_and_round_trips():
    config = side_config(BASE, {"fusion.k": 20, "mmr.enabled": True, "fusion.weights": (0.8, 0.2)})
    assert config.fusion.k == 20 and config.mmr.enabled and config.fusion.weights == (0.8, 0.2)
    assert side_config(BASE, side_values(config)) == config
    assert config.chunking == BASE.chunking  # index-time settings untouched


def test_side_config_refuses_index_time_keys():
    with pytest.raises(ConfigError, match="chunking.size is not a query-time setting"):
        side_config(BASE, {"chunking.size": 200})


def test_side_config_reports_bad_values():
    with pytest.raises(ConfigError, match="retrieval.mode"):
        side_config(BASE, {"retrieval.mode": "magic"})


def test_instructive_variant_flips_mmr_only():
    values = side_values(BASE)
    variant = instructive_variant(values)
    assert variant["mmr.enabled"] is True
    others = [key for key in values if key != "mmr.enabled"]
    assert [variant[key] for key in others] == [values[key] for key in others]
    assert instructive_variant(variant)["mmr.enabled"] is False


def test_differences_and_describe():
    config = side_config(BASE, {"mmr.enabled": True, "retrieval.top_k": 5})
    assert differences(BASE, config) == {"retrieval.top_k": 5, "mmr.enabled": True}
    assert describe(config) == "hybrid · RRF k=60 · MMR λ=0.7 · top 5"
    weighted = side_config(BASE, {"fusion.method": "weighted", "fusion.weights": (0.7, 0.3)})
    assert describe(weighted) == "hybrid · weighted 0.7/0.3 minmax · top 10"
    bm25_rerank = side_config(BASE, {"retrieval.mode": "bm25", "rerank.model": "ce"})
    assert describe(bm25_rerank) == "bm25 · rerank top 30 · top 10"


def test_a_switched_off_rerank_model_reads_none_in_the_differences():
    """Regression: "Differs from A in: rerank.model =" showed an empty value."""
    from workbench.analysis.side_config import describe_differences

    a = side_config(BASE, {**side_values(BASE), "rerank.model": "cross-encoder/ms-marco-MiniLM-L-6-v2"})
    b = side_config(BASE, {**side_values(BASE), "rerank.model": ""})
    assert describe_differences(differences(a, b)) == "rerank.model = none"
    assert describe_differences({}) == "nothing (both sides run the same configuration)"
    assert describe_differences({"fusion.weights": (0.7, 0.3)}) == "fusion.weights = 0.7/0.3"
