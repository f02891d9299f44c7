"""Where a Milvus layout lives: the URI, the collection name, and the snapshot part that records them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from store.milvus import collection_name_for, resolve_uri
from workbench.layout import Layout

#: a Milvus snapshot holds this folder (where its collection lives) instead of the local index parts
MILVUS_DIR = "milvus"


@dataclass(frozen=True)
class MilvusPlace:
    """A Milvus layout's place (``workbench.config.MilvusConfig.PLACE_KEYS``)."""

    uri: str  # as configured: a Milvus Lite file relative to the home, or a server URI
    collection_prefix: str
    analysis: str
    analyzer: str


def milvus_place(layout: Layout) -> MilvusPlace:
    return MilvusPlace(**dict(layout.place))


def milvus_target(home: Path, collection_name: str, layout: Layout) -> tuple[str, str]:
    """(URI, Milvus collection name) of a Milvus layout."""
    place = milvus_place(layout)
    return resolve_uri(place.uri, home), collection_name_for(place.collection_prefix, collection_name, layout.key)
