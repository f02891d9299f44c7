"""The trace of one query: every stage's config, ranked list, timing and notes, as a value.

The app, the CLI, evaluation and the MCP server all read this one value; it round-trips
through JSON so runs can be stored and compared later.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from workbench.retrieval.ranking import RankedList


@dataclass(frozen=True)
class ChunkView:
    """What a reader needs to show or cite a chunk, resolved when the trace is made."""

    chunk_id: int
    doc_id: int
    source: str
    external_id: str | None
    doc_type: str
    title: str
    heading_path: tuple[str, ...]
    page: int | None
    start: int
    end: int
    text: str
    token_count: int | None = None
    over_max_length: bool = False


@dataclass(frozen=True)
class StageTrace:
    """One stage: its config, the ranked list it produced, elapsed time and notes.

    ``details`` holds per-chunk numbers the stage computed (MMR penalties, rerank scores,
    fusion contributions), keyed by chunk id, for the "explain" view.
    """

    stage: str
    config: dict
    ranked: RankedList
    elapsed_ms: float
    notes: tuple[str, ...] = ()
    details: dict[int, dict] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "stage": self.stage,
            "config": self.config,
            "ranked": self.ranked.to_dict(),
            "elapsed_ms": self.elapsed_ms,
            "notes": list(self.notes),
            "details": {str(k): v for k, v in self.details.items()},
        }

    @classmethod
    def from_dict(cls, data: dict) -> "StageTrace":
        return cls(
            stage=data["stage"],
            config=data["config"],
            ranked=RankedList.from_dict(data["ranked"]),
            elapsed_ms=float(data["elapsed_ms"]),
            notes=tuple(data.get("notes", ())),
            details={int(k): v for k, v in data.get("details", {}).items()},
        )


@dataclass(frozen=True)
class Trace:
    query: str
    collection: str
    config: dict
    stages: tuple[StageTrace, ...]
    chunks: dict[int, ChunkView]
    total_ms: float
    notes: tuple[str, ...] = ()

    @property
    def final(self) -> RankedList:
        return self.stages[-1].ranked if self.stages else RankedList("final")

    def stage(self, name: str) -> StageTrace | None:
        for stage in self.stages:
            if stage.stage == name:
                return stage
        return None

    def stage_names(self) -> list[str]:
        return [stage.stage for stage in self.stages]

    def final_chunks(self) -> list[ChunkView]:
        return [self.chunks[hit.chunk_id] for hit in self.final.hits if hit.chunk_id in self.chunks]

    def to_dict(self) -> dict:
        return {
            "query": self.query,
            "collection": self.collection,
            "config": self.config,
            "stages": [stage.to_dict() for stage in self.stages],
            "chunks": {str(k): {**asdict(v), "heading_path": list(v.heading_path)} for k, v in self.chunks.items()},
            "total_ms": self.total_ms,
            "notes": list(self.notes),
        }

    def to_json(self, **kwargs) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)

    @classmethod
    def from_dict(cls, data: dict) -> "Trace":
        return cls(
            query=data["query"],
            collection=data["collection"],
            config=data["config"],
            stages=tuple(StageTrace.from_dict(s) for s in data["stages"]),
            chunks={
                int(k): ChunkView(**{**v, "heading_path": tuple(v["heading_path"])})
                for k, v in data["chunks"].items()
            },
            total_ms=float(data["total_ms"]),
            notes=tuple(data.get("notes", ())),
        )
