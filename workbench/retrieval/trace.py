"""The trace of one query: every stage's config, ranked list, timing and notes, as a value.

The app, the CLI, evaluation and the MCP server all read this one value; it round-trips
through JSON so runs can be stored and compared later.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from store.chunk_store import ChunkStore
from store.index_set import Snapshot
from workbench.llm.client import LlmCall
from workbench.retrieval.confidence import Confidence
from workbench.retrieval.enhance import EnhancedQuery
from workbench.retrieval.language_guard import LanguageCheck
from workbench.retrieval.ranking import RankedList
from workbench.retrieval.stages import FINAL, QUERY


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


def chunk_view(snapshot: Snapshot, chunk_id: int) -> ChunkView:
    """The view of one chunk of a loaded snapshot (``store.index_set.Snapshot``); KeyError if absent."""
    chunk = snapshot.chunks[chunk_id]
    doc = snapshot.documents.get(chunk.doc_id)
    return ChunkView(
        chunk_id=chunk.chunk_id,
        doc_id=chunk.doc_id,
        source=doc.source if doc else "",
        external_id=doc.external_id if doc else None,
        doc_type=doc.doc_type if doc else "",
        title=doc.title if doc else "",
        heading_path=chunk.heading_path,
        page=chunk.page,
        start=chunk.start,
        end=chunk.end,
        text=chunk.text,
        token_count=chunk.token_count,
        over_max_length=chunk.over_max_length,
    )


class StoredChunk:
    """A chunk's document and span, with its text read from the snapshot only if asked: what
    span-level judging holds for every chunk of a layout (``workbench.evaluation.relevance.JudgedChunk``)."""

    __slots__ = ("chunk_id", "doc_id", "source", "external_id", "start", "end", "_chunks")

    def __init__(
        self,
        chunk_id: int,
        doc_id: int,
        source: str,
        external_id: str | None,
        start: int,
        end: int,
        chunks: ChunkStore,
    ) -> None:
        self.chunk_id, self.doc_id, self.source, self.external_id = chunk_id, doc_id, source, external_id
        self.start, self.end, self._chunks = start, end, chunks

    @property
    def text(self) -> str:
        return self._chunks.text_of(self.chunk_id)

    def __repr__(self) -> str:
        return f"StoredChunk({self.chunk_id} of {self.external_id or self.source} [{self.start}:{self.end}])"


def stored_chunks(snapshot: Snapshot) -> list[StoredChunk]:
    """Every chunk of a loaded snapshot as a ``StoredChunk``, in chunk id order; no text is read."""
    chunk_ids, doc_ids, starts, ends = snapshot.chunks.spans()
    names = {doc_id: (doc.source, doc.external_id) for doc_id, doc in snapshot.documents.items()}
    return [
        StoredChunk(chunk_id, doc_id, *names.get(doc_id, ("", None)), start, end, snapshot.chunks)
        for chunk_id, doc_id, start, end in zip(
            chunk_ids.tolist(), doc_ids.tolist(), starts.tolist(), ends.tolist(), strict=False
        )
    ]


class SnapshotChunkViews(Mapping[int, ChunkView]):
    """The views of the chunks some ranked lists hold, each resolved from the snapshot on first read.

    A trace holds one: the app, CLI and MCP server read the chunks they show, evaluation none.
    Copies and pickles are plain dicts of every view.
    """

    __slots__ = ("_snapshot", "_ranked", "_ids", "_views")

    def __init__(self, snapshot: Snapshot, ranked: Iterable[RankedList]) -> None:
        self._snapshot = snapshot
        self._ranked = tuple(ranked)
        self._ids: dict[int, None] | None = None
        self._views: dict[int, ChunkView] = {}

    def _chunk_ids(self) -> dict[int, None]:
        if self._ids is None:
            listed = list(dict.fromkeys(chunk_id for ranked in self._ranked for chunk_id in ranked.ids))
            known = self._snapshot.chunks
            # one vectorised look-up in a chunk store; a plain mapping answers id by id
            held = known.contains_many(listed) if hasattr(known, "contains_many") else [c in known for c in listed]
            self._ids = {chunk_id: None for chunk_id, is_held in zip(listed, held, strict=False) if is_held}
        return self._ids

    def __getitem__(self, chunk_id: int) -> ChunkView:
        view = self._views.get(chunk_id)
        if view is None:
            if chunk_id not in self._chunk_ids():
                raise KeyError(chunk_id)
            view = self._views[chunk_id] = chunk_view(self._snapshot, chunk_id)
        return view

    def __iter__(self) -> Iterator[int]:
        return iter(self._chunk_ids())

    def __len__(self) -> int:
        return len(self._chunk_ids())

    def __contains__(self, chunk_id: object) -> bool:
        return chunk_id in self._chunk_ids()

    def __repr__(self) -> str:
        return f"SnapshotChunkViews({len(self)} chunks)"

    def __reduce__(self) -> tuple[type[dict[int, ChunkView]], tuple[dict[int, ChunkView]]]:
        return dict, (dict(self.items()),)


@dataclass(frozen=True)
class StageTrace:
    """One stage: its config, the ranked list it produced, elapsed time and notes.

    ``details`` holds per-chunk numbers the stage computed (MMR penalties, rerank scores,
    fusion contributions), keyed by chunk id, for the "explain" view; a stage may hand over a
    ``LazyMapping`` that formats them on first read. ``llm_calls`` are the LLM calls the stage
    made (LLM rerank), each with its reply, tokens and milliseconds.
    """

    stage: str
    config: dict[str, Any]  # the stage's section of the configuration, plus what it adds (JSON)
    ranked: RankedList
    elapsed_ms: float
    notes: tuple[str, ...] = ()
    details: Mapping[int, dict[str, Any]] = field(default_factory=dict)
    llm_calls: tuple[LlmCall, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "stage": self.stage,
            "config": self.config,
            "ranked": self.ranked.to_dict(),
            "elapsed_ms": self.elapsed_ms,
            "notes": list(self.notes),
            "details": {str(k): v for k, v in self.details.items()},
        }
        if self.llm_calls:
            data["llm_calls"] = [call.to_dict() for call in self.llm_calls]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StageTrace:
        return cls(
            stage=data["stage"],
            config=data["config"],
            ranked=RankedList.from_dict(data["ranked"]),
            elapsed_ms=float(data["elapsed_ms"]),
            notes=tuple(data.get("notes", ())),
            details={int(k): v for k, v in data.get("details", {}).items()},
            llm_calls=tuple(LlmCall.from_dict(c) for c in data.get("llm_calls", ())),
        )


@dataclass(frozen=True)
class Trace:
    query: str
    collection: str
    config: Mapping[str, dict[str, Any]]  # WorkbenchConfig.to_dict(), built on first read when fresh
    stages: tuple[StageTrace, ...]
    chunks: Mapping[int, ChunkView]  # every chunk of any stage's list (a SnapshotChunkViews when fresh)
    total_ms: float
    notes: tuple[str, ...] = ()
    language: LanguageCheck | None = None  # the query's language and what the language guard did
    #: the confidence verdict, or the function that measures it. Measuring reads the indexes again,
    #: so the pipeline hands over a function and ``confidence`` runs it on first read: evaluation
    #: and sweeps that never look at verdicts never pay for them.
    confidence_source: Confidence | Callable[[], Confidence] | None = field(default=None, repr=False, compare=False)

    @property
    def confidence(self) -> Confidence | None:
        """Is the final list worth answering from? (``workbench.retrieval.confidence``)"""
        source = self.confidence_source
        if callable(source):
            source = source()
            object.__setattr__(self, "confidence_source", source)
        return source

    #: the query stage: the texts each route searched with, and the LLM calls that made them
    enhancement: EnhancedQuery | None = None

    @property
    def final(self) -> RankedList:
        return self.stages[-1].ranked if self.stages else RankedList(FINAL)

    def stage(self, name: str) -> StageTrace | None:
        for stage in self.stages:
            if stage.stage == name:
                return stage
        return None

    def stage_names(self) -> list[str]:
        return [stage.stage for stage in self.stages]

    def final_chunks(self) -> list[ChunkView]:
        return [self.chunks[hit.chunk_id] for hit in self.final.hits if hit.chunk_id in self.chunks]

    def llm_calls(self) -> list[tuple[str, LlmCall]]:
        """Every LLM call of the query, with the stage that made it (``query`` for enhancement)."""
        calls = [(QUERY, call) for call in (self.enhancement.calls if self.enhancement else ())]
        return calls + [(stage.stage, call) for stage in self.stages for call in stage.llm_calls]

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "collection": self.collection,
            "config": dict(self.config),
            "stages": [stage.to_dict() for stage in self.stages],
            "chunks": {str(k): {**asdict(v), "heading_path": list(v.heading_path)} for k, v in self.chunks.items()},
            "total_ms": self.total_ms,
            "notes": list(self.notes),
            "language": self.language.to_dict() if self.language else None,
            "confidence": self.confidence.to_dict() if self.confidence else None,
            "enhancement": self.enhancement.to_dict() if self.enhancement else None,
        }

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Trace:
        return cls(
            query=data["query"],
            collection=data["collection"],
            config=data["config"],
            stages=tuple(StageTrace.from_dict(s) for s in data["stages"]),
            chunks={
                int(k): ChunkView(**{**v, "heading_path": tuple(v["heading_path"])}) for k, v in data["chunks"].items()
            },
            total_ms=float(data["total_ms"]),
            notes=tuple(data.get("notes", ())),
            language=LanguageCheck.from_dict(data["language"]) if data.get("language") else None,
            confidence_source=Confidence.from_dict(data["confidence"]) if data.get("confidence") else None,
            enhancement=EnhancedQuery.from_dict(data["enhancement"]) if data.get("enhancement") else None,
        )
