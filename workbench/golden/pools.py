"""TREC-style pooling: per query, the union of several configurations' top k, shuffled, blind.

A judge sees each query's pool in an order drawn from the seed and the query id alone, so the
order says nothing about which configuration found a chunk, or how high; adding a query to the
set leaves the other queries' order as it was. The pool keeps each chunk's document and span,
so the judgements made on it survive re-chunking.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from store import judgements as stored
from store.catalog import Catalog
from store.judgements import PoolItem, PoolRow
from workbench.config import WorkbenchConfig, key_limits, out_of_limits_message
from workbench.evaluation.runner import QueryRunner
from workbench.golden.query_sets import QuerySet
from workbench.retrieval.trace import ChunkView

#: configurations spanning the retrieval modes, both fusion methods and MMR (``golden agree``'s default)
BUILT_IN_CONFIGS: tuple[tuple[str, dict[str, object]], ...] = (
    ("bm25", {"retrieval.mode": "bm25"}),
    ("dense", {"retrieval.mode": "dense"}),
    ("hybrid-rrf", {"retrieval.mode": "hybrid", "fusion.method": "rrf"}),
    ("hybrid-weighted", {"retrieval.mode": "hybrid", "fusion.method": "weighted"}),
    (
        "hybrid-weighted-bm25-heavy",
        {"retrieval.mode": "hybrid", "fusion.method": "weighted", "fusion.weights": "0.2,0.8"},
    ),
    ("hybrid-rrf-mmr", {"retrieval.mode": "hybrid", "fusion.method": "rrf", "mmr.enabled": True}),
    ("dense-mmr", {"retrieval.mode": "dense", "mmr.enabled": True, "mmr.lambda": 0.5}),
)
#: what every built-in configuration also sets: no reranker, no LLM (so they run offline, quickly)
BUILT_IN_BASE: dict[str, object] = {"rerank.model": "", "rerank.method": "cross_encoder", "query.enhance": "none"}


@dataclass(frozen=True)
class NamedConfig:
    name: str  # as given: a preset name, or its overrides
    overrides: Mapping[str, object]
    config: WorkbenchConfig


ConfigResolver = Callable[[str | None, list[str]], WorkbenchConfig]  # (preset, ["key=value", ...]) -> config


def parse_config_spec(spec: str) -> tuple[str | None, list[str]]:
    """``PRESET``, ``KEY=VALUE+KEY=VALUE`` or ``PRESET+KEY=VALUE...`` -> (preset or None, overrides)."""
    parts = [part.strip() for part in spec.split("+") if part.strip()]
    if not parts:
        raise ValueError(f"configuration {spec!r} is empty; give a preset name or KEY=VALUE+KEY=VALUE")
    preset = None if "=" in parts[0] else parts[0]
    overrides = parts[1:] if preset else parts
    bad = [part for part in overrides if "=" not in part]
    if bad:
        raise ValueError(
            f"configuration {spec!r}: {bad[0]!r} is not KEY=VALUE; join overrides with '+', "
            "e.g. retrieval.mode=hybrid+mmr.enabled=true"
        )
    return preset, overrides


def resolve_configs(specs: list[str], resolve: ConfigResolver) -> list[NamedConfig]:
    """Each spec as a configuration (``resolve`` applies a preset and overrides to the collection's)."""
    if not specs:
        raise ValueError("give at least one configuration (a preset name, or KEY=VALUE+KEY=VALUE)")
    named = []
    for spec in dict.fromkeys(specs):
        preset, overrides = parse_config_spec(spec)
        named.append(
            NamedConfig(
                spec,
                dict(o.split("=", 1) for o in overrides) | ({"preset": preset} if preset else {}),
                resolve(preset, overrides),
            )
        )
    return named


def built_in_configs(resolve: ConfigResolver) -> list[NamedConfig]:
    """``BUILT_IN_CONFIGS`` on top of the collection's configuration."""
    return [
        NamedConfig(
            name,
            {**BUILT_IN_BASE, **overrides},
            resolve(None, [f"{k}={v}" for k, v in {**BUILT_IN_BASE, **overrides}.items()]),
        )
        for name, overrides in BUILT_IN_CONFIGS
    ]


def check_depth(depth: int) -> int:
    message = out_of_limits_message("--depth", depth, key_limits("retrieval.top_k"), 10)
    if message:
        raise ValueError(message + " (the pool depth is each configuration's retrieval.top_k)")
    return depth


def pool_query(
    run_query: QueryRunner, text: str, configs: list[NamedConfig], depth: int, rng: random.Random
) -> list[ChunkView]:
    """The shuffled union of each configuration's top ``depth`` for one query: ChunkViews."""
    found: dict[int, ChunkView] = {}
    for named in configs:
        trace = run_query(text, named.config.with_value("retrieval.top_k", depth))
        for chunk_id in trace.final.chunk_ids()[:depth]:
            if chunk_id not in found and chunk_id in trace.chunks:
                found[chunk_id] = trace.chunks[chunk_id]
    views = sorted(found.values(), key=lambda view: view.chunk_id)  # the shuffle alone decides the order
    rng.shuffle(views)
    return views


def build_pool(
    run_query: QueryRunner,
    query_set: QuerySet,
    configs: list[NamedConfig],
    depth: int,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
) -> list[PoolItem]:
    """Pool every question of ``query_set``; ``run_query(text, config)`` returns a trace (not logged)."""
    check_depth(depth)
    items: list[PoolItem] = []
    for position, question in enumerate(query_set.questions):
        rng = random.Random(f"{seed}:{question.id}")
        for place, view in enumerate(pool_query(run_query, question.query, configs, depth, rng)):
            items.append(
                PoolItem(
                    position,
                    question.id,
                    question.query,
                    place,
                    view.chunk_id,
                    view.external_id or view.source,
                    view.start,
                    view.end,
                )
            )
        if progress:
            progress(position + 1, len(query_set))
    return items


def save(
    catalog: Catalog,
    name: str,
    collection: str,
    query_set: QuerySet,
    configs: list[NamedConfig],
    depth: int,
    seed: int,
    items: list[PoolItem],
    replace: bool = False,
) -> PoolRow:
    """Store the pool (``replace`` keeps the judgements already given on it)."""
    if not name.strip():
        raise ValueError("a pool needs a name")
    row = PoolRow(
        name.strip(),
        collection,
        query_set.name,
        [{"name": c.name, "overrides": {k: str(v) for k, v in c.overrides.items()}} for c in configs],
        depth,
        seed,
    )
    return stored.save_pool(catalog, row, items, replace=replace)


def list_pools(catalog: Catalog) -> list[tuple[PoolRow, int, int]]:
    """Every pool, with its item count and judged-item count."""
    return stored.list_pools(catalog)
