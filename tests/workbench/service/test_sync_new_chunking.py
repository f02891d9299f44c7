"""`sync` after the default chunking changed: the collection's new chunk set is made from the stored
Markdown before its indexes are built (an empty index used to be published for it)."""

from __future__ import annotations

from workbench.ingestion.ingest import Source
from workbench.layout import Layout

NOTES = {
    "tides.md": "# Tides\n\nThe moon pulls the oceans into two bulges, so most coasts see two tides a day.\n",
    "quokkas.md": "# Quokkas\n\nQuokkas are small marsupials that eat leaves, grasses and stems at night.\n",
}


def test_sync_makes_the_chunk_set_a_new_default_asks_for(bench, fake_embedder, fake_config):
    earlier = fake_config.with_value("chunking.fit_window", False)  # a collection made before fitting
    sources = [Source.from_markdown(name, text) for name, text in NOTES.items()]
    assert not bench.ingest("notes", sources, earlier).failures
    now = fake_config  # fit_window on: another chunk set, which the collection does not hold yet
    assert Layout.of(now).chunkset_key != Layout.of(earlier).chunkset_key

    results = bench.sync("notes", now, reparse=False)
    assert results[0].layout_key == Layout.of(now).key and results[0].chunks == 2
    hits = bench.query("moon tides", "notes", now).final_chunks()
    assert hits and hits[0].source == "tides.md"
