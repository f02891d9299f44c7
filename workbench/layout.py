"""A layout: everything an index depends on (chunking, embedding model, index build parameters,
and where the indexes live).

Configurations that share a layout share chunks and indexes; they differ only in query-time
keys. The chunk set depends on the chunking and the model (token counts and semantic breaks
come from the model), the indexes additionally on BM25 and HNSW build parameters and on the
backend with its place (``workbench.config.backend_place``: for Milvus, the collection's URI,
prefix and analysis). Local layouts keep the keys they had before backends existed, so existing
homes keep their indexes.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from functools import lru_cache

from workbench.config import Bm25Config, ChunkingConfig, WorkbenchConfig, backend_place

#: the backend whose layouts keep their pre-backend keys
LOCAL = "local"

#: bumped whenever a chunking algorithm changes its output, so stored chunk sets made by the
#: old code are not mistaken for the new ones (their texts stay in the embedding cache)
CHUNKER_VERSION = 3


def _digest(payload: dict) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:10]


#: chunking keys added after homes existed: left out of the key while at their defaults, so the
#: chunk sets and indexes those homes built keep their keys
_KEYED_ONLY_WHEN_SET = {"enrich": "none", "enrich_index": False}


def _keyed(chunking: ChunkingConfig) -> dict:
    values = asdict(chunking)
    for name, default in _KEYED_ONLY_WHEN_SET.items():
        if values.get(name) == default:
            values.pop(name)
    return values


#: BM25 keys added after homes existed: left out of the key at the value every earlier index was
#: built with, so those indexes keep their keys
_BM25_KEYED_ONLY_WHEN_SET = {"stopwords": "en"}


def _keyed_bm25(bm25: Bm25Config) -> dict:
    values = asdict(bm25)
    for name, legacy in _BM25_KEYED_ONLY_WHEN_SET.items():
        if values.get(name) == legacy:
            values.pop(name)
    return values


@dataclass(frozen=True)
class Layout:
    chunking: ChunkingConfig
    embedding_model: str  # the embedder key: model, plus @runtime-precision unless torch fp32
    bm25: Bm25Config
    dense_m: int
    dense_ef_construction: int
    backend: str = LOCAL
    #: the backend's own settings that say where the indexes live ((key, value) pairs; empty for local)
    place: tuple[tuple[str, object], ...] = ()

    @classmethod
    def of(cls, config: WorkbenchConfig) -> Layout:
        return cls(
            chunking=config.chunking,
            embedding_model=config.embedding.key,  # model@runtime-precision, bare for torch fp32
            bm25=config.bm25,
            dense_m=config.dense.m,
            dense_ef_construction=config.dense.ef_construction,
            backend=config.index.backend,
            place=backend_place(config),
        )

    @property
    def chunkset_key(self) -> str:
        return _keys(self)[0]

    @property
    def key(self) -> str:
        return _keys(self)[1]

    def chunkset_config(self) -> dict:
        return {"chunking": asdict(self.chunking), "embedding_model": self.embedding_model}

    def to_dict(self) -> dict:
        return {
            "chunking": asdict(self.chunking),
            "embedding_model": self.embedding_model,
            "bm25": asdict(self.bm25),
            "dense_m": self.dense_m,
            "dense_ef_construction": self.dense_ef_construction,
            "backend": self.backend,
            **({self.backend: dict(self.place)} if self.place else {}),
        }


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
    build = {"bm25": _keyed_bm25(layout.bm25), "m": layout.dense_m, "efc": layout.dense_ef_construction}
    if layout.backend != LOCAL:
        # only a non-local layout says where it lives: local keys stay what they always were
        build |= {"backend": layout.backend, layout.backend: dict(layout.place) if layout.place else None}
    key = f"{chunkset}-{_digest(build)[:6]}"
    return chunkset, key if layout.backend == LOCAL else f"{key}-{layout.backend}"
