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
#: share of the progress bar given to the per-file loop; batch stages (embed, store, index) follow
FILE_PHASE = 0.6
_EMBEDDED = re.compile(r"(\d+)/(\d+) new chunk texts")


@dataclass
class FileRow:
    file: str
    stage: str = "queued"
    note: str = ""


class IngestTracker:
    def __init__(self, names: list[str]):
        self.rows: dict[str, FileRow] = {name: FileRow(name) for name in names}
        self.fraction = 0.0
        self.headline = f"Queued {count(len(self.rows), 'file')}"
        self.finished = False
        self.estimate = ""  # "600 files to read, about 1,300 chunks, roughly 40 s to embed here"

    def update(self, event: Progress) -> None:
        if event.stage in FILE_STAGES:
            row = self.rows.setdefault(event.source, FileRow(event.source))
            row.stage = FILE_STAGES[event.stage]
            row.note = event.message if event.stage == "failed" else row.note
            self._advance(FILE_PHASE * event.done / max(event.total, 1))
            # the line says what the file's row says: a "chunk" event reports chunking done, not begun
            self.headline = f"{shown_name(event.source)}: {row.stage} ({event.done}/{count(event.total, 'file')})"
        elif event.stage == "embed":
            found = _EMBEDDED.search(event.source) or _EMBEDDED.search(event.message)
            if found:
                embedded, missing = int(found.group(1)), int(found.group(2))
                self._advance(FILE_PHASE + 0.3 * embedded / max(missing, 1))
                self.headline = f"Embedding new chunk texts: {embedded}/{missing}"
            else:
                self.headline = f"Embedding {shown_name(event.source)}"
        elif event.stage == "store":
            for row in self.rows.values():
                if row.stage == FILE_STAGES["chunk"]:
                    row.stage = "stored"
            self._advance(0.92)
            self.headline = f"Storing {shown_name(event.source)}"
        elif event.stage == "index":
            self._advance(0.96)
            self.headline = "Updating the vector and BM25 indexes"
        elif event.stage == "estimate":
            self.estimate = event.message
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
