"""The configuration tree: dotted keys, coercion, and errors that name the fix."""

import pytest

from workbench.config import ConfigError, KEY_DOCS, WorkbenchConfig, known_keys


def test_required_keys_exist_and_are_documented():
    required = {
        "retrieval.mode", "retrieval.top_k", "fusion.method", "fusion.k", "fusion.weights", "mmr.enabled",
        "mmr.lambda", "rerank.model", "chunking.strategy", "chunking.size", "chunking.overlap", "embedding.model",
    }
    assert required <= set(known_keys())
    assert set(known_keys()) == set(KEY_DOCS)


def test_overrides_coerce_types():
    config = WorkbenchConfig().with_overrides(
        ["fusion.weights=0.3,0.7", "mmr.lambda=0.25", "mmr.enabled=yes", "retrieval.top_k=7"]
    )
    assert config.fusion.weights == (0.3, 0.7)
    assert config.mmr.lambda_ == 0.25 and config.mmr.enabled is True and config.retrieval.top_k == 7


def test_round_trip_through_dict():
    config = WorkbenchConfig().with_overrides(["chunking.strategy=markdown", "filters.doc_types=pdf,md"])
    assert WorkbenchConfig.from_dict(config.to_dict()) == config
    assert config.get("mmr.lambda") == 0.7


@pytest.mark.parametrize(
    "assignment, message",
    [
        ("retrieval.mode=fuzzy", "not one of dense, bm25, hybrid"),
        ("fusion.kk=3", "unknown config key"),
        ("nosection.x=1", "unknown config key"),
        ("retrieval.top_k=ten", "retrieval.top_k: cannot use 'ten'"),
        ("retrieval.top_k", "expects key=value"),
    ],
)
def test_bad_overrides_name_the_fix(assignment, message):
    with pytest.raises(ConfigError, match=message):
        WorkbenchConfig().with_overrides([assignment])
