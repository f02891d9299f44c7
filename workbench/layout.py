"""A layout: everything an index depends on, which is exactly the configuration's index-time keys.

Configurations that share a layout share chunks and indexes; they differ only in query-time
keys. ``Layout.of`` reads the keys whose lifetime is ``Lifetime.INDEX`` (``workbench.config``),
so a key declared index-time joins the layout with nothing else to change. Of them, the chunking
section and the embedding model (with its runtime and precision, as the embedder key) make the
chunk set (token counts and semantic breaks come from the model); the rest (BM25 and HNSW build
parameters, the backend, and the index-time keys of the backend's own section, which say where
its indexes live) make the indexes.

Homes keep their indexes across versions: the keys that existed before are digested as they
always were, local layouts name no backend, and a key added since joins a digest only when it
is set to something other than its default.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

from workbench.config import (
    Bm25Config,
    ChunkingConfig,
    Lifetime,
    WorkbenchConfig,
    key_default,
    keys_with_lifetime,
    place_keys,
)

#: the backend whose layouts keep their pre-backend keys
LOCAL = "local"

#: bumped whenever a chunking algorithm changes its output, so stored chunk sets made by the
#: old code are not mistaken for the new ones (their texts stay in the embedding cache)
CHUNKER_VERSION = 3

#: index keys digested under the names they had before layouts were derived from lifetimes
_LEGACY_BUILD_NAMES = {"dense.m": "m", "dense.ef_construction": "efc"}


@dataclass(frozen=True)
class Layout:
    chunking: ChunkingConfig
    embedding_model: str  # the embedder key: model, plus @runtime-precision unless torch fp32
    #: the other index-time keys and their values, in declaration order (a backend section's only
    #: for the backend the layout uses, its text values stripped)
    build: tuple[tuple[str, Any], ...]

    @classmethod
    def of(cls, config: WorkbenchConfig) -> Layout:
        own_place = f"{config.index.backend}."
        others = set(place_keys())
        build = tuple(
            (key, _stripped(config.get(key)))
            for key in keys_with_lifetime(Lifetime.INDEX)
            if not key.startswith(("chunking.", "embedding.")) and (key not in others or key.startswith(own_place))
        )
        return cls(chunking=config.chunking, embedding_model=config.embedding.key, build=build)

    def value(self, key: str) -> Any:
        return dict(self.build)[key]

    @property
    def bm25(self) -> Bm25Config:
        return Bm25Config(k1=self.value("bm25.k1"), b=self.value("bm25.b"), stopwords=self.value("bm25.stopwords"))

    @property
    def dense_m(self) -> int:
        return int(self.value("dense.m"))

    @property
    def dense_ef_construction(self) -> int:
        return int(self.value("dense.ef_construction"))

    @property
    def backend(self) -> str:
        return str(self.value("index.backend"))

    @property
    def place(self) -> tuple[tuple[str, Any], ...]:
        """The backend's own index-time settings by field name (``("uri", ...)``); empty for local files."""
        prefix = f"{self.backend}."
        return tuple((key.removeprefix(prefix), value) for key, value in self.build if key.startswith(prefix))

    @property
    def chunkset_key(self) -> str:
        return _keys(self)[0]

    @property
    def key(self) -> str:
        return _keys(self)[1]

    def chunkset_config(self) -> dict[str, Any]:
        return {"chunking": asdict(self.chunking), "embedding_model": self.embedding_model}

    def to_dict(self) -> dict[str, Any]:
        return {
            "chunking": asdict(self.chunking),
            "embedding_model": self.embedding_model,
            "bm25": asdict(self.bm25),
            "dense_m": self.dense_m,
            "dense_ef_construction": self.dense_ef_construction,
            "backend": self.backend,
            **({self.backend: dict(self.place)} if self.place else {}),
        }


def _digest(payload: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:10]


#: chunking keys added after homes existed: left out of the key at the value every earlier chunk
#: set was made with, so the chunk sets and indexes those homes built keep their keys. For
#: ``fit_window`` that is off, not the default: the chunks it cuts to the model's window are new,
#: so a collection made before it gets new chunk sets on its next sync (unchanged texts come from
#: the embedding cache)
_KEYED_ONLY_WHEN_SET = {"enrich": "none", "enrich_index": False, "fit_window": False}


def _keyed(chunking: ChunkingConfig) -> dict[str, Any]:
    values = asdict(chunking)
    for name, default in _KEYED_ONLY_WHEN_SET.items():
        if values.get(name) == default:
            values.pop(name)
    return values


#: BM25 keys added after homes existed: left out of the key at the value every earlier index was
#: built with, so those indexes keep their keys
_BM25_KEYED_ONLY_WHEN_SET = {"stopwords": "en"}


def _keyed_bm25(bm25: Bm25Config) -> dict[str, Any]:
    values = asdict(bm25)
    for name, legacy in _BM25_KEYED_ONLY_WHEN_SET.items():
        if values.get(name) == legacy:
            values.pop(name)
    return values


def _build_payload(layout: Layout) -> dict[str, Any]:
    """What the index half of the key digests: BM25 and the HNSW build parameters under their
    historical names, a non-local backend with its place, and any later key that is set."""
    payload: dict[str, Any] = {"bm25": _keyed_bm25(layout.bm25)}
    place = {f"{layout.backend}.{name}" for name, _ in layout.place}
    for key, value in layout.build:
        if key in _LEGACY_BUILD_NAMES:
            payload[_LEGACY_BUILD_NAMES[key]] = value
        elif not key.startswith("bm25.") and key != "index.backend" and key not in place and value != key_default(key):
            payload[key] = value
    if layout.backend != LOCAL:
        # only a non-local layout says where it lives: local keys stay what they always were
        payload |= {"backend": layout.backend, layout.backend: dict(layout.place) if layout.place else None}
    return payload


# Memoised: every query finds its layout's folder by key, and the digests cost more than the query.
@lru_cache(maxsize=256)
def _keys(layout: Layout) -> tuple[str, str]:
    """(chunk set key, layout key)."""
    c = layout.chunking
    readable = f"{c.strategy}-{c.size}{'t' if c.unit == 'tokens' else 'c'}-{c.overlap}"
    if c.enrich != "none":
        readable += f"-enrich-{c.enrich}{'-indexed' if c.enrich_index else ''}"
    chunkset = (
        f"{readable}-{_digest({'chunking': _keyed(c), 'model': layout.embedding_model, 'version': CHUNKER_VERSION})}"
    )
    key = f"{chunkset}-{_digest(_build_payload(layout))[:6]}"
    return chunkset, key if layout.backend == LOCAL else f"{key}-{layout.backend}"


def _stripped(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value
