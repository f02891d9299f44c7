"""The catalog writer: it commits in the order things are handed over, nothing while paused."""

from __future__ import annotations

import time

import numpy as np

from store.catalog import Catalog
from store.embedding_cache import embedding_counts
from workbench.ingestion.sources import IngestReport
from workbench.ingestion.writer import CatalogWriter


def test_nothing_is_committed_while_paused_and_everything_after(tmp_path):
    catalog = Catalog(tmp_path / "catalog.duckdb")
    writer = CatalogWriter(catalog, collection_id=1, run_id=1, report=IngestReport("c"), progress=lambda event: None)
    writer.vectors("model-a", ["h1", "h2"], np.ones((2, 4), dtype=np.float32))
    writer.close()
    assert embedding_counts(catalog, ["model-a"]) == {"model-a": 2}  # the writer does commit

    writer = CatalogWriter(catalog, collection_id=1, run_id=1, report=IngestReport("c"), progress=lambda event: None)
    with writer.paused():
        writer.vectors("model-b", ["h3"], np.ones((1, 4), dtype=np.float32))
        time.sleep(0.5)  # ample for a commit to happen, were one allowed
        assert embedding_counts(catalog, ["model-b"]) == {"model-b": 0}
    writer.close()
    assert embedding_counts(catalog, ["model-b"]) == {"model-b": 1}
