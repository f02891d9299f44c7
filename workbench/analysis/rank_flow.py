"""Rank flow: where each chunk stands at every stage of a trace (the data of the bump chart).

A chunk is followed when it reaches the top ``depth`` of any stage, so the chart shows both the
chunks that made the final list and those that were strong somewhere and then fell out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.retrieval.enhance import AS_TYPED
from workbench.retrieval.stages import ROUTES, variant_stage
from workbench.retrieval.trace import Trace


@dataclass(frozen=True)
class ChunkPath:
    """One chunk's rank at each stage, aligned with ``RankFlow.stages`` (None = not listed)."""

    chunk_id: int
    doc_id: int
    ranks: tuple[int | None, ...]

    @property
    def final_rank(self) -> int | None:
        return self.ranks[-1] if self.ranks else None

    @property
    def best_rank(self) -> int | None:
        present = [rank for rank in self.ranks if rank is not None]
        return min(present) if present else None


@dataclass(frozen=True)
class RankFlow:
    stages: tuple[str, ...]
    paths: tuple[ChunkPath, ...]
    depth: int
    #: stage -> the text it searched with, where that is not the query as typed (query enhancement)
    searched_with: dict[str, str] = field(default_factory=dict)

    def path(self, chunk_id: int) -> ChunkPath | None:
        for path in self.paths:
            if path.chunk_id == chunk_id:
                return path
        return None


def rank_flow(trace: Trace, depth: int | None = None) -> RankFlow:
    """The paths of every chunk in the top ``depth`` of at least one stage.

    ``depth`` defaults to the run's ``retrieval.top_k`` (the final list's length if the config
    does not say). Paths come in final-list order, then the chunks that left, best rank first.
    """
    if depth is None:
        depth = int(trace.config.get("retrieval", {}).get("top_k", len(trace.final)) or len(trace.final))
    if depth < 1:
        raise ValueError(f"rank_flow depth must be at least 1, got {depth}")
    stages = tuple(stage.stage for stage in trace.stages)
    rank_maps = [_first_ranks(stage.ranked.hits) for stage in trace.stages]

    followed: dict[int, int] = {}  # chunk id -> doc id, in first-seen order
    for stage in trace.stages:
        for hit in stage.ranked.hits[:depth]:
            followed.setdefault(hit.chunk_id, hit.doc_id)

    paths = [
        ChunkPath(chunk_id, doc_id, tuple(ranks.get(chunk_id) for ranks in rank_maps))
        for chunk_id, doc_id in followed.items()
    ]
    never = float("inf")
    paths.sort(key=lambda p: (p.final_rank if p.final_rank is not None else never, p.best_rank or never, p.chunk_id))
    return RankFlow(stages, tuple(paths), depth, searched_with(trace))


def searched_with(trace: Trace) -> dict[str, str]:
    """Route stages that searched with a generated text (a rewrite, a phrasing, the HyDE passage,
    the keywords), mapped to that text."""
    enhanced = trace.enhancement
    if enhanced is None:
        return {}
    texts = {}
    for route in ROUTES:
        variants = enhanced.for_route(route)
        if len(variants) == 1 and variants[0].origin != AS_TYPED:
            texts[route] = variants[0].text
        elif len(variants) > 1:
            texts.update({variant_stage(route, v.origin): v.text for v in variants if v.origin != AS_TYPED})
    return {stage: text for stage, text in texts.items() if trace.stage(stage) is not None}


def _first_ranks(hits) -> dict[int, int]:
    ranks: dict[int, int] = {}
    for hit in hits:
        ranks.setdefault(hit.chunk_id, hit.rank)
    return ranks
