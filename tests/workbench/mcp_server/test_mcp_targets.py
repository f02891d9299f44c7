"""What a tool call runs against: kept while the catalog is unchanged, read again once it changes."""

from __future__ import annotations

import threading
import time

from store import settings as stored_settings
from store.catalog import RACY_S, Catalog
from workbench.mcp_server.defaults import ServerDefaults
from workbench.mcp_server.targets import TargetResolver


def _settled() -> None:
    time.sleep(RACY_S + 0.05)  # past the window in which a change cannot be told from the next


def test_an_unchanged_catalog_gives_the_same_target_and_a_preset_saved_elsewhere_is_used_next(
    bench, fake_embedder, fake_config
):
    bench.create_collection("notes", fake_config)
    resolver = TargetResolver(bench, ServerDefaults())
    _settled()
    first = resolver.resolve(None, None)
    assert (first.collection, first.preset, first.config.retrieval.top_k) == ("notes", "default", 10)
    assert resolver.resolve(" ", None) is first  # the same names, the catalog as it was: kept

    elsewhere = Catalog.in_home(bench.home)  # another process's handle on the file
    elsewhere._lock = threading.RLock()
    stored_settings.save_preset(elsewhere, "wide", {"retrieval.top_k": 25}, "more hits")
    stored_settings.set_default_preset(elsewhere, "notes", "wide")
    after = resolver.resolve(None, None)
    assert (after.preset, after.config.retrieval.top_k) == ("wide", 25)
