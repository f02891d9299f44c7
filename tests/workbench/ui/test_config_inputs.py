"""Configuration widgets take their bounds from the config: typed like the key, values clamped."""

from __future__ import annotations

import pytest

from workbench.config import key_limits
from workbench.ui import config_inputs


def test_bounds_are_typed_like_the_key():
    assert config_inputs.number_bounds("retrieval.top_k") == (1, 1000)
    assert all(type(bound) is int for bound in config_inputs.number_bounds("retrieval.top_k"))
    assert config_inputs.number_bounds("mmr.lambda") == (0.0, 1.0)
    assert all(type(bound) is float for bound in config_inputs.number_bounds("mmr.lambda"))
    # a tuple key's bounds hold for each item
    assert config_inputs.number_bounds("fusion.weights") == (0.0, 10.0)


def test_values_from_elsewhere_are_clamped_into_the_range():
    assert config_inputs.clamped("retrieval.top_k", 5000) == 1000
    assert config_inputs.clamped("retrieval.top_k", 0) == 1
    assert config_inputs.clamped("mmr.lambda", 0.25) == 0.25
    assert config_inputs.clamped("fusion.weights", 12) == 10.0 and type(config_inputs.clamped("fusion.k", 3.0)) is int


def test_choices_and_keys_without_them():
    assert config_inputs.choices("fusion.method") == key_limits("fusion.method").choices == ("rrf", "weighted")
    with pytest.raises(ValueError, match="rerank.model has no numeric range"):
        config_inputs.number_bounds("rerank.model")
    with pytest.raises(ValueError, match="retrieval.top_k has no fixed choices"):
        config_inputs.choices("retrieval.top_k")
