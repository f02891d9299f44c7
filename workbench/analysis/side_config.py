"""One side of an A/B comparison: the preset's config plus query-time overrides only.

Only keys that change nothing at index time are allowed, so switching them never re-chunks,
re-embeds or rebuilds an index: both sides share the collection's loaded snapshot.
"""

from __future__ import annotations

from collections.abc import Mapping

from workbench.config import ConfigError, WorkbenchConfig

QUERY_TIME_KEYS: tuple[str, ...] = (
    "retrieval.mode",
    "retrieval.candidates",
    "retrieval.top_k",
    "retrieval.language_guard",
    "query.enhance",
    "query.variants",
    "query.keywords",
    "fusion.method",
    "fusion.k",
    "fusion.weights",
    "fusion.normalization",
    "mmr.enabled",
    "mmr.lambda",
    "mmr.pool",
    "rerank.method",
    "rerank.model",
    "rerank.top_m",
    "dense.ef_search",
    "dense.exact",
)


def side_values(config: WorkbenchConfig) -> dict[str, object]:
    """The query-time values of ``config`` (weights as a tuple), keyed like ``QUERY_TIME_KEYS``."""
    return {key: config.get(key) for key in QUERY_TIME_KEYS}


def instructive_variant(values: Mapping[str, object]) -> dict[str, object]:
    """Side B's starting point: side A with MMR switched the other way.

    MMR is the one change whose effect is easy to see and explain on any collection: the same
    candidates, with near-duplicates pushed down.
    """
    variant = dict(values)
    variant["mmr.enabled"] = not bool(values.get("mmr.enabled"))
    return variant


def side_config(base: WorkbenchConfig, values: Mapping[str, object]) -> WorkbenchConfig:
    """``base`` with ``values`` applied; refuses index-time keys (they would need a new index)."""
    config = base
    for key, value in values.items():
        if key not in QUERY_TIME_KEYS:
            raise ConfigError(
                f"{key} is not a query-time setting; the lab only varies {', '.join(QUERY_TIME_KEYS)}. "
                "Change chunking or the embedding model on the collection instead"
            )
        if base.get(key) == value:
            continue  # nothing to change; and validating a value costs a type-hint lookup
        config = config.with_value(key, value)
    return config


def differences(base: WorkbenchConfig, config: WorkbenchConfig) -> dict[str, object]:
    """The query-time keys whose value in ``config`` differs from ``base``."""
    before, after = side_values(base), side_values(config)
    return {key: after[key] for key in QUERY_TIME_KEYS if before[key] != after[key]}


def describe_differences(changed: dict[str, object]) -> str:
    """``mmr.enabled = True, rerank.model = none``: an empty value (a model switched off) says "none"."""
    if not changed:
        return "nothing (both sides run the same configuration)"
    return ", ".join(f"{key} = {_shown(value)}" for key, value in changed.items())


def _shown(value: object) -> str:
    if value is None or (isinstance(value, str) and not value.strip()):
        return "none"
    if isinstance(value, (tuple, list)):
        return "/".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value)
    return str(value)


def describe(config: WorkbenchConfig) -> str:
    """A one-line summary: "hybrid · RRF k=60 · MMR λ=0.7 · top 10"."""
    parts = [config.retrieval.mode]
    if config.query.enhance != "none":
        parts.insert(0, f"query {config.query.enhance}")
    if config.retrieval.mode == "hybrid":
        if config.fusion.method == "rrf":
            parts.append(f"RRF k={config.fusion.k}")
        else:
            weights = "/".join(f"{w:g}" for w in config.fusion.weights)
            parts.append(f"weighted {weights} {config.fusion.normalization}")
    if config.mmr.enabled:
        parts.append(f"MMR λ={config.mmr.lambda_:g}")
    if config.rerank.method == "llm":
        parts.append(f"LLM rerank top {config.rerank.top_m}")
    elif config.rerank.model:
        parts.append(f"rerank top {config.rerank.top_m}")
    parts.append(f"top {config.retrieval.top_k}")
    return " · ".join(parts)
