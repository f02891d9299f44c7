"""What the Documents page's Ingest button runs, without Streamlit: the same call for the page and
for the tests that race it against a command (tests/workbench/service/test_two_writers.py)."""

from __future__ import annotations

import threading

from workbench.ingestion.ingest import IngestReport, ProgressCallback, Source
from workbench.service import Workbench


def ingest_uploads(
    bench: Workbench,
    collection: str,
    sources: list[Source],
    max_file_mb: float,
    progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
) -> IngestReport:
    """Ingest uploaded files into ``collection`` under its own settings, with this session's
    ``ingest.max_file_mb``."""
    config = bench.config_for(collection).with_value("ingest.max_file_mb", max_file_mb)
    return bench.ingest(collection, sources, config, progress=progress, cancel=cancel)
