"""Which settings a configuration ignores, given the others.

Weighted fusion never reads ``fusion.k``; RRF never reads the weights or the normalisation; a
single route fuses nothing; MMR's λ and pool mean nothing while MMR is off; BM25 alone never
touches the dense index's search settings; no rerank model, no ``rerank.top_m``. Two
configurations that differ only in ignored keys return the same results, so a sweep runs them
once and says they are the same, and a default grid never varies such a key.
"""

from __future__ import annotations

from workbench.config import WorkbenchConfig, key_default

FUSION_KEYS = ("fusion.method", "fusion.k", "fusion.weights", "fusion.normalization")


def ignored_keys(config: WorkbenchConfig) -> frozenset[str]:
    ignored: set[str] = set()
    if config.retrieval.mode != "hybrid":
        ignored.update(FUSION_KEYS)
        ignored.add("retrieval.language_guard")
    elif config.fusion.method == "weighted":
        ignored.add("fusion.k")
    else:
        ignored.update(("fusion.weights", "fusion.normalization"))
    if not config.mmr.enabled:
        ignored.update(("mmr.lambda", "mmr.pool"))
    if config.retrieval.mode == "bm25":
        ignored.update(("dense.ef_search", "dense.exact"))
    if config.rerank.method == "llm":
        ignored.add("rerank.model")
    elif not config.rerank.model.strip():
        ignored.update(("rerank.top_m", "rerank.timeout_s"))
    if config.query.enhance == "none":
        ignored.update(("query.variants", "query.keywords", "query.timeout_s"))
    return frozenset(ignored)


def effective(config: WorkbenchConfig) -> WorkbenchConfig:
    """``config`` with every ignored key at its default: equal for configurations that behave the same."""
    for key in sorted(ignored_keys(config)):
        config = config.with_value(key, key_default(key))
    return config
