"""Ingestion progress as the app shows it: per-file rows, the current step, a bar that only grows."""

from __future__ import annotations

import pytest

from workbench.ingestion.estimates import IngestEstimate
from workbench.ingestion.ingest import Progress
from workbench.ui.ingest_progress import DEFAULT_READ_SHARE, TAIL, IngestTracker


def test_files_move_through_their_stages_and_failures_keep_their_reason():
    tracker = IngestTracker(["a.md", "b.pdf", "c.txt"])
    for position, name in enumerate(["a.md", "b.pdf", "c.txt"], start=1):
        tracker.update(Progress("hash", name, position, 3))
    assert tracker.fraction == 0  # hashing every file first is no work done (it read 60% here)
    tracker.update(Progress("parse", "a.md", 1, 3))
    tracker.update(Progress("chunk", "a.md", 1, 3))
    assert tracker.fraction == pytest.approx((1 - TAIL) * DEFAULT_READ_SHARE / 3)
    tracker.update(Progress("failed", "b.pdf", 2, 3, "b.pdf: not a valid PDF"))
    tracker.update(Progress("skip", "c.txt", 3, 3, "unchanged"))
    rows = tracker.table().to_dict("records")
    assert rows == [
        {"file": "a.md", "stage": "chunked, waiting to embed", "reason": ""},
        {"file": "b.pdf", "stage": "failed", "reason": "b.pdf: not a valid PDF"},
        {"file": "c.txt", "stage": "unchanged: skipped", "reason": ""},
    ]
    # no estimate: reading is 0.3 of the work, embedding the rest, the last 5% the indexes'
    assert tracker.fraction == pytest.approx(0.95 * 0.3)
    assert tracker.headline == "c.txt: unchanged: skipped (3/3 files)"


def test_the_bar_follows_the_estimated_seconds_of_reading_loading_and_embedding():
    """12 files (12 s of parsing on 2 workers: 6 s), 10 s to load the model, 200 chunks (8 s):
    24 s of work, of which reading is 6/24, loading 10/24 and embedding 8/24."""
    names = [f"f{i}.pdf" for i in range(12)]
    tracker = IngestTracker(names)
    plan = IngestEstimate(files=12, chunks=200, parse_s=12.0, embed_s=8.0, load_s=10.0, workers=2)
    tracker.update(Progress("estimate", "kb", 0, 12, "12 files to read, about 200 chunks", plan))
    assert tracker.shares() == pytest.approx((6 / 24, 10 / 24, 8 / 24))
    for position, name in enumerate(names, start=1):
        tracker.update(Progress("hash", name, position, 12))
    assert tracker.fraction == 0
    tracker.update(Progress("parse", names[0], 1, 12))
    assert tracker.fraction == pytest.approx(0.95 * (6 / 24) / 12)  # 2%, not 60%, at file 1 of 12
    tracker.update(Progress("load", "all-MiniLM-L6-v2", 0, 12, "loaded"))
    assert tracker.fraction == pytest.approx(0.95 * ((6 / 24) / 12 + 10 / 24))
    for position, name in enumerate(names, start=1):
        tracker.update(Progress("chunk", name, position, 12))
    tracker.update(Progress("embed", "0/128 new chunk texts", 0, 12))
    tracker.update(Progress("embed", "64/128 new chunk texts", 0, 12))
    assert tracker.fraction == pytest.approx(0.95 * (6 / 24 + 10 / 24 + (8 / 24) * 64 / 200))
    assert tracker.headline == "Embedding new chunk texts: 64/128"
    tracker.update(Progress("embed", "128/128 new chunk texts", 0, 12))
    tracker.update(Progress("embed", "0/72 new chunk texts", 0, 12))  # the next group counts on from 128
    assert tracker.embedded == 128
    tracker.update(Progress("embed", "72/72 new chunk texts", 0, 12))
    assert tracker.embedded == 200 and tracker.fraction == pytest.approx(0.95)
    tracker.update(Progress("store", "12 documents", 12, 12))
    assert all(row.stage == "stored" for row in tracker.rows.values())
    tracker.update(Progress("index", "layout-key", 12, 12))
    assert tracker.fraction == pytest.approx(0.975)
    tracker.update(Progress("done", "kb", 12, 12, "kb: 12 files: 12 new"))
    assert tracker.fraction == 1.0 and tracker.finished and tracker.headline == "kb: 12 files: 12 new"


def test_more_chunks_than_estimated_slow_the_bar_instead_of_filling_it():
    tracker = IngestTracker(["a.md"])
    plan = IngestEstimate(files=1, chunks=10, parse_s=0.0, embed_s=1.0)
    tracker.update(Progress("estimate", "kb", 0, 1, "1 file to read, about 10 chunks", plan))
    tracker.update(Progress("embed", "0/40 new chunk texts", 0, 1))
    tracker.update(Progress("embed", "20/40 new chunk texts", 0, 1))
    assert tracker.fraction == pytest.approx(0.95)  # 20 of "10": full, as far as anyone knew
    tracker.update(Progress("embed", "40/40 new chunk texts", 0, 1))
    assert tracker.fraction == pytest.approx(0.95) and tracker.embedded == 40


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
