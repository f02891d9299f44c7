"""Ingestion progress as the app shows it: per-file rows, the current step, a bar that only grows."""

from __future__ import annotations

from workbench.ingestion.ingest import Progress
from workbench.ui.ingest_progress import FILE_PHASE, IngestTracker


def test_files_move_through_their_stages_and_failures_keep_their_reason():
    tracker = IngestTracker(["a.md", "b.pdf", "c.txt"])
    tracker.update(Progress("hash", "a.md", 1, 3))
    tracker.update(Progress("parse", "a.md", 1, 3))
    tracker.update(Progress("chunk", "a.md", 1, 3))
    tracker.update(Progress("failed", "b.pdf", 2, 3, "b.pdf: not a valid PDF"))
    tracker.update(Progress("skip", "c.txt", 3, 3, "unchanged"))
    rows = tracker.table().to_dict("records")
    assert rows == [
        {"file": "a.md", "stage": "chunked, waiting to embed", "reason": ""},
        {"file": "b.pdf", "stage": "failed", "reason": "b.pdf: not a valid PDF"},
        {"file": "c.txt", "stage": "unchanged: skipped", "reason": ""},
    ]
    assert tracker.fraction == FILE_PHASE
    assert tracker.headline == "c.txt: unchanged: skipped (3/3 files)"


def test_batch_stages_advance_the_bar_and_mark_stored_files():
    tracker = IngestTracker(["a.md"])
    tracker.update(Progress("chunk", "a.md", 1, 1))
    tracker.update(Progress("embed", "16/32 new chunk texts", 1, 1))
    assert tracker.fraction == FILE_PHASE + 0.3 * 0.5
    assert tracker.headline == "Embedding new chunk texts: 16/32"
    tracker.update(Progress("store", "1 documents", 1, 1))
    assert tracker.rows["a.md"].stage == "stored" and tracker.fraction == 0.92
    tracker.update(Progress("index", "layout-key", 1, 1))
    tracker.update(Progress("done", "demo", 1, 1, "demo: 1 file: 1 new"))
    assert tracker.fraction == 1.0 and tracker.finished and tracker.headline == "demo: 1 file: 1 new"


def test_the_bar_never_moves_backwards():
    tracker = IngestTracker(["a.md", "b.md"])
    tracker.update(Progress("chunk", "b.md", 2, 2))
    tracker.update(Progress("embed", "1/10 new chunk texts", 2, 2))
    before = tracker.fraction
    tracker.update(Progress("hash", "a.md", 1, 2))  # a later batch restarting its own count
    assert tracker.fraction == before


def test_the_estimate_is_shown_first_and_kept_with_the_progress():
    from workbench.ingestion.ingest import Progress
    from workbench.ui.ingest_progress import IngestTracker

    tracker = IngestTracker(["a.md"])
    tracker.update(Progress("estimate", "kb", 0, 1, "1 file to read, about 3 chunks, roughly 1 s to embed here"))
    assert tracker.headline == "Starting: 1 file to read, about 3 chunks, roughly 1 s to embed here"
    assert tracker.estimate.startswith("1 file to read")
    tracker.update(Progress("cancelled", "kb", 0, 1, "stopped; 0 of 1 file done"))
    assert tracker.headline == "Cancelled: stopped; 0 of 1 file done"


def test_counts_read_one_file_two_files():
    """Regression: the app said "1 files" (and "1 documents" in the sidebar)."""
    from workbench.text import count

    assert [count(n, "file") for n in (0, 1, 2, 1200)] == ["0 files", "1 file", "2 files", "1,200 files"]
    assert count(1, "query", "queries") == "1 query" and count(3, "query", "queries") == "3 queries"


def test_the_progress_line_says_what_the_files_row_says():
    tracker = IngestTracker(["a.md", "b.md"])
    for stage in ("hash", "parse", "chunk"):
        tracker.update(Progress(stage, "a.md", 1, 2))
        assert tracker.headline == f"a.md: {tracker.rows['a.md'].stage} (1/2 files)"
    assert tracker.headline == "a.md: chunked, waiting to embed (1/2 files)"
