"""The configuration tree: dotted keys, coercion, and errors that name the fix."""

import typing
from pathlib import Path

import pytest

from workbench.config import (
    KEY_DOCS,
    ConfigError,
    Lifetime,
    WorkbenchConfig,
    key_choices,
    key_default,
    key_limits,
    key_table_markdown,
    keys_with_lifetime,
    known_keys,
    lifetime_of,
    plugin_keys,
)


def test_required_keys_exist_and_are_documented():
    required = {
        "retrieval.mode",
        "retrieval.top_k",
        "fusion.method",
        "fusion.k",
        "fusion.weights",
        "mmr.enabled",
        "mmr.lambda",
        "rerank.model",
        "chunking.strategy",
        "chunking.size",
        "chunking.overlap",
        "embedding.model",
    }
    assert required <= set(known_keys())
    assert set(known_keys()) == set(KEY_DOCS)
    undocumented = [key for key, doc in KEY_DOCS.items() if not doc]
    assert not undocumented, f"declare these with workbench.config.setting(default, doc, ...): {undocumented}"


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


# -- limits: one range per key, enforced wherever a value comes in -------------------------------

PROJECT_DIR = Path(__file__).resolve().parents[3]


def _hint(key: str):
    section, name = key.split(".")
    section_type = type(getattr(WorkbenchConfig(), section))
    return typing.get_type_hints(section_type)[name if name != "lambda" else "lambda_"]


def test_every_numeric_key_has_a_range_that_holds_its_default():
    numeric = [key for key in known_keys() if _hint(key) in (int, float, tuple[float, ...])]
    assert {"retrieval.top_k", "fusion.k", "fusion.weights", "mmr.lambda", "chunking.size"} <= set(numeric)
    for key in numeric:
        limits = key_limits(key)
        assert limits.bounded, f"{key} has no minimum and maximum: declare it with setting(..., minimum=, maximum=)"
        assert limits.minimum < limits.maximum, key
        assert limits.problem(key_default(key)) is None, f"{key}'s default is outside its own range"


def test_every_key_with_choices_defaults_to_one_of_them():
    assert set(key_choices()) == {
        "chunking.strategy",
        "chunking.unit",
        "chunking.enrich",
        "retrieval.mode",
        "retrieval.language_guard",
        "query.enhance",
        "fusion.method",
        "fusion.normalization",
        "rerank.method",
        "rerank.runtime",
        "rerank.precision",
        "index.backend",
        "milvus.analysis",
        "milvus.analyzer",
        "bm25.stopwords",
        "embedding.runtime",
        "embedding.precision",
    }
    for key, choices in key_choices().items():
        assert key_default(key) in choices and key_limits(key).choices == choices


@pytest.mark.parametrize(
    "assignment, message",
    [
        ("retrieval.top_k=5000", "retrieval.top_k: 5000 is above the maximum 1000 (default 10); allowed: 1 to 1000"),
        ("retrieval.top_k=0", "retrieval.top_k: 0 is below the minimum 1 (default 10); allowed: 1 to 1000"),
        ("mmr.lambda=1.5", "mmr.lambda: 1.5 is above the maximum 1 (default 0.7); allowed: 0 to 1"),
        ("fusion.weights=0.3,-1", "fusion.weights: -1 is below the minimum 0 (default 0.5,0.5); allowed: 0 to 10 each"),
        ("bm25.b=nan", "bm25.b: nan is not a finite number (default 0.75); allowed: 0 to 1"),
        ("fusion.normalization=l2", "fusion.normalization: 'l2' is not one of minmax, zscore (default minmax)"),
    ],
)
def test_out_of_range_values_name_the_key_the_range_and_the_default(assignment, message):
    with pytest.raises(ConfigError) as raised:
        WorkbenchConfig().with_overrides([assignment])
    assert str(raised.value) == message


def test_the_ends_of_each_range_are_allowed():
    config = WorkbenchConfig().with_overrides(["retrieval.top_k=1000", "fusion.k=0", "mmr.lambda=0", "bm25.b=1"])
    assert (config.retrieval.top_k, config.fusion.k, config.mmr.lambda_, config.bm25.b) == (1000, 0, 0.0, 1.0)


def test_from_dict_enforces_the_same_limits():
    """Presets and stored collection settings come in through from_dict."""
    with pytest.raises(ConfigError, match=r"retrieval.candidates: 20000 is above the maximum 10000 \(default 100\)"):
        WorkbenchConfig.from_dict({"retrieval": {"candidates": 20000}})
    with pytest.raises(ConfigError, match="chunking.window: 21 is above the maximum 20"):
        WorkbenchConfig.from_dict({"chunking.window": 21})


def test_the_limits_as_json_schema():
    assert key_limits("retrieval.top_k").json_schema() == {"minimum": 1, "maximum": 1000}
    assert key_limits("retrieval.mode").json_schema() == {"enum": ["dense", "bm25", "hybrid"]}
    assert key_limits("rerank.model").json_schema() == {}


def test_the_docs_show_the_generated_key_table():
    page = (PROJECT_DIR / "docs" / "configuration.md").read_text(encoding="utf-8")
    table = key_table_markdown()
    assert table in page, "docs/configuration.md's key table is stale; paste workbench.config.key_table_markdown()"
    assert "| `retrieval.top_k` | `10` | 1 to 1000 | query | results returned |" in table
    assert len(table.splitlines()) == len(known_keys()) + 2


def test_every_plugin_key_takes_its_choices_from_its_registry():
    from workbench.backends import BACKENDS
    from workbench.chunking import CHUNKERS
    from workbench.embedding.runtimes import RUNTIMES
    from workbench.retrieval.fusion import FUSION_METHODS

    registries = {
        "index.backend": BACKENDS,
        "chunking.strategy": CHUNKERS,
        "fusion.method": FUSION_METHODS,
        "embedding.runtime": RUNTIMES,
        "rerank.runtime": RUNTIMES,
    }
    assert set(plugin_keys()) == set(registries)
    for key, registry in registries.items():
        extra = ("auto",) if key.endswith(".runtime") else ()
        assert key_choices()[key] == (*extra, *registry.names()), key
        assert plugin_keys()[key] == registry.kind


def test_a_plugin_registered_later_is_a_choice_at_once():
    from workbench.chunking import CHUNKERS, Chunker

    CHUNKERS.register("whole", Chunker("The whole document as one chunk.", lambda config, tokens, embed: None))
    try:
        assert "whole" in key_choices()["chunking.strategy"]
        assert WorkbenchConfig().with_overrides(["chunking.strategy=whole"]).chunking.strategy == "whole"
    finally:
        CHUNKERS.unregister("whole")
    with pytest.raises(ConfigError, match="'whole' is not one of fixed, recursive"):
        WorkbenchConfig().with_overrides(["chunking.strategy=whole"])


def test_every_key_has_a_lifetime_and_the_index_time_ones_are_what_indexes_are_built_with():
    assert {lifetime_of(key) for key in known_keys()} <= set(Lifetime)
    assert keys_with_lifetime(Lifetime.INDEX) == (
        "chunking.strategy",
        "chunking.size",
        "chunking.overlap",
        "chunking.unit",
        "chunking.window",
        "chunking.threshold",
        "chunking.context_headers",
        "chunking.enrich",
        "chunking.enrich_index",
        "chunking.fit_window",
        "embedding.model",
        "embedding.runtime",
        "embedding.precision",
        "dense.m",
        "dense.ef_construction",
        "bm25.k1",
        "bm25.b",
        "bm25.stopwords",
        "index.backend",
        "milvus.uri",
        "milvus.collection_prefix",
        "milvus.analysis",
        "milvus.analyzer",
    )
    assert lifetime_of("dense.ef_search") is Lifetime.QUERY and lifetime_of("fusion.k") is Lifetime.QUERY
    assert lifetime_of("milvus.token") is Lifetime.USAGE and lifetime_of("ingest.max_file_mb") is Lifetime.INGEST
    assert set(keys_with_lifetime(Lifetime.USAGE)) >= {"log.queries", "synth.max_items", "milvus.timeout_s"}
    assert sum(len(keys_with_lifetime(lifetime)) for lifetime in Lifetime) == len(known_keys())


def test_an_unknown_key_has_no_lifetime_and_the_error_lists_the_known_ones():
    with pytest.raises(ConfigError, match="unknown config key 'fusion.kk'"):
        lifetime_of("fusion.kk")
