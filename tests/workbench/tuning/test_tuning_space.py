"""The search space: defaults from the config, conditional keys, --keys and --space files."""

from __future__ import annotations

import pytest

from workbench.config import ConfigError, WorkbenchConfig, key_limits
from workbench.evaluation.inputs import config_hash
from workbench.retrieval.ignored_keys import ignored_keys
from workbench.tuning.space import (
    DEFAULT_KEYS,
    TUNABLE,
    TUNING_RANGES,
    Choice,
    Models,
    Span,
    apply,
    default_space,
    space_from_file,
)

BASE = WorkbenchConfig()


def test_tuning_ranges_lie_inside_each_keys_limits():
    for key, span in TUNING_RANGES.items():
        limits = key_limits(key)
        for value in span.grid():
            item = (value, 1 - value) if key == "fusion.weights" else value
            assert limits.problem(item) is None, (key, value)
    assert set(TUNING_RANGES) <= set(TUNABLE)


def test_default_space_without_downloaded_rerank_models():
    space = default_space(BASE, Models())
    assert set(space.keys) == set(DEFAULT_KEYS) - {"rerank.model", "rerank.top_m"}
    assert space.keys[:3] == ("retrieval.mode", "fusion.method", "mmr.enabled")  # deciding keys first
    assert any("no cross-encoder is downloaded" in note for note in space.notes)
    # modes: dense and bm25 (1 each) + hybrid: rrf with 10 k values or weighted with 9 shares x 2 norms = 28;
    # x 12 candidate counts x (MMR off + 9 lambdas) x 2 chunk sizes
    assert space.size(BASE) == (1 + 1 + 10 + 18) * 12 * 10 * 2 == 7200


def test_every_point_is_a_different_configuration_and_reads_every_key_it_sets():
    keys = ["retrieval.mode", "fusion.method", "fusion.k", "fusion.weights", "fusion.normalization", "mmr.enabled"]
    space = default_space(BASE, Models(), [*keys, "mmr.lambda"])
    points = list(space.points(BASE))
    configs = [apply(BASE, point) for point in points]
    assert len({config_hash(config) for config in configs}) == len(points)
    for point, config in zip(points, configs, strict=True):
        assert not set(point) & ignored_keys(config), point
        assert ("fusion.k" in point) == (config.retrieval.mode == "hybrid" and config.fusion.method == "rrf")
        assert ("mmr.lambda" in point) == config.mmr.enabled


def test_a_downloaded_rerank_model_adds_rerank_on_off_and_depth():
    space = default_space(BASE, Models(rerank=("cross-encoder/ms-marco-MiniLM-L-6-v2",)))
    assert dict((d.key, d.domain) for d in space.dimensions)["rerank.model"] == Choice(
        ("", "cross-encoder/ms-marco-MiniLM-L-6-v2")
    )
    points = list(space.points(BASE))
    assert all(("rerank.top_m" in p) == bool(p["rerank.model"]) for p in points)
    assert len(points) == 7200 * (1 + 10)


def test_fusion_weights_are_the_dense_share():
    config = apply(BASE, {"retrieval.mode": "hybrid", "fusion.method": "weighted", "fusion.weights": 0.3})
    assert config.fusion.weights == (0.3, 0.7)


def test_keys_narrow_and_unknown_keys_are_named():
    space = default_space(BASE, Models(), ["retrieval.mode", "chunking.size"])
    assert space.keys == ("retrieval.mode", "chunking.size") and space.size(BASE) == 6
    assert space.index_time_keys() == ("chunking.size",)
    assert len(space.layouts(BASE)) == 2
    with pytest.raises(ConfigError, match=r"--keys: bm25\.k1 cannot be tuned by name; tunable keys: retrieval\.mode"):
        default_space(BASE, Models(), ["bm25.k1"])


def test_a_key_the_starting_configuration_never_reads_is_refused():
    bm25_only = BASE.with_value("retrieval.mode", "bm25")
    with pytest.raises(ConfigError, match=r"fusion\.k: never read .*\(retrieval\.mode=bm25"):
        default_space(bm25_only, Models(), ["fusion.k"])
    assert default_space(bm25_only, Models(), ["retrieval.mode", "fusion.k"]).size(bm25_only) == 12


def test_space_file_lists_ranges_tables_and_pairs(tmp_path):
    path = tmp_path / "space.toml"
    path.write_text(
        '"retrieval.mode" = ["bm25", "hybrid"]\n'
        '"fusion.weights" = [[0.3, 0.7], [0.5, 0.5]]\n'
        "[fusion]\n"
        'method = ["weighted"]\n'
        "[retrieval]\n"
        "candidates = {low = 50, high = 150, step = 50}\n"
        "[mmr]\n"
        "lambda = {low = 0.2, high = 0.8}\n",
        encoding="utf-8",
    )
    space = space_from_file(path, BASE.with_value("mmr.enabled", True))
    domains = {d.key: d.domain for d in space.dimensions}
    assert domains["fusion.weights"] == Choice(("0.3,0.7", "0.5,0.5"))
    assert domains["retrieval.candidates"] == Span(50, 150, 50, integer=True)
    assert domains["mmr.lambda"] == Span(0.2, 0.8, None) and space.size(BASE) is None  # continuous
    assert apply(BASE, {"fusion.weights": "0.3,0.7"}).fusion.weights == (0.3, 0.7)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('"retrieval.mode" = ["bm25", "nope"]', "'nope' is not one of dense, bm25, hybrid"),
        ('"fusion.k" = {low = 10, high = 5}', "low <= high"),
        ('"fusion.k" = {low = 1, high = 20000, step = 1}', "above the maximum 10000"),
        ('"retrieval.candidates" = {low = 10.5, high = 20, step = 1}', "whole number"),
        ('"no.such" = [1]', "unknown config key 'no.such'"),
        ('"fusion.k" = []', "has no values"),
        ("fusion.k = [", "not valid TOML"),
        ("", "names no keys"),
    ],
)
def test_space_file_errors_name_the_key_and_the_fix(tmp_path, text, message):
    path = tmp_path / "space.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        space_from_file(path, BASE)
