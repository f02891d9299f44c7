"""What ingestion takes and gives: sources, progress events, per-file outcomes and the report."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.chunking.window import LEFT_WHOLE, Overflow
from workbench.ingestion.parsers.image_notes import ImageNote
from workbench.llm.client import LlmCall, summarize_calls
from workbench.text import count

if TYPE_CHECKING:
    from workbench.ingestion.estimates import IngestEstimate

MB = 1024 * 1024


@dataclass(frozen=True)
class Source:
    """One document to ingest: a file on disk, a file's bytes, or Markdown that needs no parsing."""

    name: str
    data: bytes | None = None
    markdown: str | None = None
    external_id: str | None = None
    doc_type: str | None = None
    path: Path | None = None

    @classmethod
    def from_path(cls, path: Path) -> Source:
        """A file read only when it is needed (and never whole when it is over the size cap)."""
        return cls(name=Path(path).name, path=Path(path))

    @classmethod
    def from_markdown(cls, name: str, markdown: str, external_id: str | None = None) -> Source:
        return cls(name=name, markdown=markdown, external_id=external_id, doc_type="md")

    @property
    def size_bytes(self) -> int:
        if self.path is not None and self.data is None:
            return self.path.stat().st_size
        return len(self.payload)

    @property
    def payload(self) -> bytes:
        if self.data is not None:
            return self.data
        if self.path is not None:
            return self.path.read_bytes()
        return (self.markdown or "").encode("utf-8")

    @property
    def sha256(self) -> str:
        if self.path is not None and self.data is None:
            digest = hashlib.sha256()
            with self.path.open("rb") as stream:
                for block in iter(lambda: stream.read(MB), b""):
                    digest.update(block)
            return digest.hexdigest()
        return hashlib.sha256(self.payload).hexdigest()


@dataclass(frozen=True)
class Progress:
    """A progress event: ``stage`` is one of estimate, hash, skip, parse, chunk, load (an embedding
    model finished loading), embed, store, index, failed, cancelled, done."""

    stage: str
    source: str
    done: int
    total: int
    message: str = ""
    #: on the estimate event: its numbers (``workbench.ingestion.estimates.IngestEstimate``)
    estimate: IngestEstimate | None = None


@dataclass(frozen=True)
class FileOutcome:
    source: str
    status: str  # ingested | replaced | skipped | failed
    reason: str = ""
    chunks: int = 0
    #: tokens past the embedding model's window, one entry per chunk over it
    over_window: tuple[int, ...] = ()
    #: the pictures in the file: their text read by OCR, or skipped and why
    images: tuple[ImageNote, ...] = ()


def excess_tokens(chunks: Iterable, window: int | None) -> tuple[int, ...]:
    """Tokens past ``window`` of each chunk (``token_count``) longer than it."""
    if window is None:
        return ()
    counts = (chunk.token_count for chunk in chunks)
    return tuple(count - window for count in counts if count is not None and count > window)


@dataclass
class IngestReport:
    collection: str
    outcomes: list[FileOutcome] = field(default_factory=list)
    embedded: int = 0
    cached: int = 0
    elapsed_s: float = 0.0
    indexes_rebuilt: int = 0
    cancelled: bool = False
    estimate: str = ""
    files_total: int = 0
    #: the most resident memory any parse worker reached (MB), as the pool measured it
    peak_parse_rss_mb: float = 0.0
    #: seconds parse workers spent on the files that parsed (summed over the workers), and the workers
    parse_s: float = 0.0
    parse_workers: int = 0
    llm_calls: list[LlmCall] = field(default_factory=list)  # chunk enrichment
    notes: list[str] = field(default_factory=list)
    #: sources whose bytes were ingested before, parsed again because a newer parser reads their type
    reparsed: list[str] = field(default_factory=list)
    #: the collection's embedding model, its window (tokens; None: unknown) and whether chunks are cut to it
    window_model: str = ""
    window: int | None = None
    fit_window: bool = True

    def count(self, status: str) -> int:
        return sum(1 for outcome in self.outcomes if outcome.status == status)

    @property
    def parsed(self) -> int:
        return self.count("ingested") + self.count("replaced") + self.count("failed")

    @property
    def failures(self) -> list[FileOutcome]:
        return [o for o in self.outcomes if o.status == "failed"]

    def overflow(self) -> Overflow | None:
        """The chunks this run made that are longer than the model's window (None: window unknown)."""
        made = [o for o in self.outcomes if o.status in ("ingested", "replaced")]
        if self.window is None or not made:
            return None
        excess = tuple(tokens for outcome in made for tokens in outcome.over_window)
        return Overflow(self.window, excess, sum(outcome.chunks for outcome in made))

    def window_note(self) -> str:
        """What the chunks over the window mean and what to set, or "" when every chunk fits."""
        overflow = self.overflow()
        if overflow is None or not overflow.over:
            return ""
        fix = (
            "chunking.fit_window=false keeps chunks at chunking.size; set it to true (the default) to cut them to fit"
            if not self.fit_window
            else LEFT_WHOLE
        )
        return f"{overflow.describe(self.window_model or 'the embedding model')}; {fix}"

    def summary(self) -> str:
        parts = [
            f"{self.count('ingested')} new",
            f"{self.count('replaced')} replaced",
            f"{self.count('skipped')} unchanged (skipped before parsing)",
            f"{self.count('failed')} failed",
        ]
        stopped = ""
        if self.cancelled:
            stopped = (
                f"CANCELLED after {len(self.outcomes)} of {count(self.files_total, 'file')} (the rest were "
                "not read; run the same ingest again to finish); "
            )
        reparsed = ""
        if self.reparsed:
            reparsed = f" ({count(len(self.reparsed), 'unchanged file')} parsed again by a newer parser)"
        enriched = ""
        if self.llm_calls:
            cost = summarize_calls(self.llm_calls)
            enriched = (
                f"; enriched {cost['calls'] - cost['failed']} of {cost['calls']} chunks with the LLM "
                f"({cost['endpoint_calls']} endpoint calls, {cost['cached']} cached, "
                f"{cost['prompt_tokens'] + cost['completion_tokens']} tokens)"
            )
        overflow = self.overflow()
        over = f"; {overflow.over} of {overflow.chunks} chunks over the window" if overflow and overflow.over else ""
        return (
            f"{self.collection}: {stopped}{count(len(self.outcomes), 'file')}: {', '.join(parts)}{reparsed}; "
            f"parsed {self.parsed}, embedded {self.embedded} new chunk texts ({self.cached} from cache){enriched}"
            f"{over}; {self.elapsed_s:.1f} s"
        )


ProgressCallback = Callable[[Progress], None]


def quiet(_: Progress) -> None:
    pass
