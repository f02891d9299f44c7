"""Live ingestion progress: per file and per stage, from ``workbench.ingestion.ingest.Progress`` events.

``IngestTracker`` is plain state (testable without Streamlit); ``IngestProgressView`` draws it
inside whatever container is current (an ``st.status`` in practice) and redraws at most every
``REDRAW_S`` seconds, except for failures and the end, which always show at once.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from workbench.ingestion.estimates import IngestEstimate
from workbench.ingestion.ingest import Progress
from workbench.text import count, shown_name
from workbench.ui.text import md_escape

REDRAW_S = 0.15

#: what a file-level event means for that file's row
FILE_STAGES = {
    "hash": "hashing",
    "parse": "parsed, chunking",
    "chunk": "chunked, waiting to embed",
    "skip": "unchanged: skipped",
    "failed": "failed",
}
#: rows whose file is read (or will not be): the reading part of the work is done for them
_READ = {FILE_STAGES[stage] for stage in ("parse", "chunk", "skip", "failed")} | {"stored"}
#: before an estimate arrives (or when it has no numbers): reading's share of the work
DEFAULT_READ_SHARE = 0.3
#: the bar's end left to the batch stages after the last chunk is embedded (store, indexes)
TAIL = 0.05
_EMBEDDED = re.compile(r"(\d+)/(\d+) new chunk texts")


@dataclass
class FileRow:
    file: str
    stage: str = "queued"
    note: str = ""


class IngestTracker:
    """The bar moves with the work done: reading the files, loading the embedding model and
    embedding the chunks, each weighted by the seconds the estimate gives it (a file is its share
    of the reading, a chunk of the embedding). Hashing, which the ingest does for every file
    before reading any, moves it not at all (it put the bar at 60% before the first file was read)."""

    def __init__(self, names: list[str]):
        self.rows: dict[str, FileRow] = {name: FileRow(name) for name in names}
        self.fraction = 0.0
        self.headline = f"Queued {count(len(self.rows), 'file')}"
        self.finished = False
        self.estimate = ""  # "600 files to read, about 1,300 chunks, roughly 40 s to embed here"
        self.planned: IngestEstimate | None = None
        #: chunk texts embedded so far: those of finished groups, then the running group's
        self.embedded = 0
        self._group_base = 0
        self.loaded = False  # the embedding model (a "load" event, or text embedded: it is loaded)

    def shares(self) -> tuple[float, float, float]:
        """The shares of the work (reading, loading the model, embedding), from the estimate's seconds."""
        plan = self.planned
        reading, loading, embedding = (
            (plan.parse_s / max(plan.workers, 1), plan.load_s, plan.embed_s) if plan else (0.0, 0.0, 0.0)
        )
        work = reading + loading + embedding
        if work <= 0:
            return DEFAULT_READ_SHARE, 0.0, 1 - DEFAULT_READ_SHARE
        return reading / work, loading / work, embedding / work

    def _work_done(self) -> float:
        rows = self.rows.values()
        read = sum(1 for row in rows if row.stage in _READ) / max(len(self.rows), 1)
        planned_chunks = self.planned.chunks if self.planned else 0
        # more chunks than planned: the estimate was low, and the bar slows rather than stop short
        embedded = self.embedded / max(planned_chunks, self.embedded, 1)
        reading, loading, embedding = self.shares()
        return (1 - TAIL) * (reading * read + loading * self.loaded + embedding * embedded)

    def update(self, event: Progress) -> None:
        if event.stage in FILE_STAGES:
            row = self.rows.setdefault(event.source, FileRow(event.source))
            row.stage = FILE_STAGES[event.stage]
            row.note = event.message if event.stage == "failed" else row.note
            self._advance(self._work_done())
            # the line says what the file's row says: a "chunk" event reports chunking done, not begun
            self.headline = f"{shown_name(event.source)}: {row.stage} ({event.done}/{count(event.total, 'file')})"
        elif event.stage == "load":
            self.loaded = True
            self._advance(self._work_done())
            self.headline = f"Loaded the embedding model {shown_name(event.source)}"
        elif event.stage == "embed":
            found = _EMBEDDED.search(event.source) or _EMBEDDED.search(event.message)
            if found:
                embedded, missing = int(found.group(1)), int(found.group(2))
                if embedded == 0:  # a new group starts its own count
                    self._group_base = self.embedded
                self.embedded = self._group_base + embedded
                self.loaded = self.loaded or embedded > 0
                self._advance(self._work_done())
                self.headline = f"Embedding new chunk texts: {embedded}/{missing}"
            else:
                self.headline = f"Embedding {shown_name(event.source)}"
        elif event.stage == "store":
            for row in self.rows.values():
                if row.stage == FILE_STAGES["chunk"]:
                    row.stage = "stored"
            self.headline = f"Storing {shown_name(event.source)}"
        elif event.stage == "index":
            self._advance(1 - TAIL / 2)
            self.headline = "Updating the vector and BM25 indexes"
        elif event.stage == "estimate":
            self.estimate = event.message
            self.planned = event.estimate
            self.headline = f"Starting: {event.message}"
        elif event.stage == "cancelled":
            self.headline = f"Cancelled: {event.message}"
        elif event.stage == "done":
            self.fraction, self.finished = 1.0, True
            self.headline = event.message or "Done"

    def _advance(self, fraction: float) -> None:
        # the bar never moves backwards, even when a later batch restarts its own count
        self.fraction = max(self.fraction, min(fraction, 1.0))

    def table(self) -> pd.DataFrame:
        return pd.DataFrame(
            [{"file": shown_name(r.file), "stage": r.stage, "reason": r.note} for r in self.rows.values()]
        )


class IngestProgressView:
    """A progress bar, the current step and the per-file table, drawn where it is created."""

    def __init__(self, names: list[str]):
        self.tracker = IngestTracker(names)
        self._bar = st.progress(0.0, text=md_escape(self.tracker.headline))
        self._table = st.empty()
        self._last_draw = 0.0
        self._draw()

    def __call__(self, event: Progress) -> None:
        self.tracker.update(event)
        urgent = event.stage in ("failed", "done")
        if urgent or time.monotonic() - self._last_draw >= REDRAW_S:
            self._draw()

    def _draw(self) -> None:
        self._last_draw = time.monotonic()
        headline = self.tracker.headline
        if self.tracker.estimate and not headline.startswith("Starting") and not self.tracker.finished:
            headline += f" (estimate: {self.tracker.estimate})"
        self._bar.progress(self.tracker.fraction, text=md_escape(headline))
        self._table.dataframe(
            self.tracker.table(), hide_index=True, width="stretch", height=min(38 + 35 * len(self.tracker.rows), 300)
        )
