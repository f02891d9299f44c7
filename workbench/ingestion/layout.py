"""A layout: everything an index depends on (chunking, embedding model, index build parameters).

Configurations that share a layout share chunks and indexes; they differ only in query-time
keys. The chunk set depends on the chunking and the model (token counts and semantic breaks
come from the model), the indexes additionally on BM25 and HNSW build parameters.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from functools import lru_cache

from workbench.config import Bm25Config, ChunkingConfig, WorkbenchConfig

#: bumped whenever a chunking algorithm changes its output, so stored chunk sets made by the
#: old code are not mistaken for the new ones (their texts stay in the embedding cache)
CHUNKER_VERSION = 3


def _digest(payload: dict) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:10]


@dataclass(frozen=True)
class Layout:
    chunking: ChunkingConfig
    embedding_model: str
    bm25: Bm25Config
    dense_m: int
    dense_ef_construction: int

    @classmethod
    def of(cls, config: WorkbenchConfig) -> "Layout":
        return cls(
            chunking=config.chunking,
            embedding_model=config.embedding.model,
            bm25=config.bm25,
            dense_m=config.dense.m,
            dense_ef_construction=config.dense.ef_construction,
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
        }


# Memoised: every query finds its layout's folder by key, and the digests cost more than the query.
@lru_cache(maxsize=256)
def _keys(layout: Layout) -> tuple[str, str]:
    """(chunk set key, layout key)."""
    c = layout.chunking
    readable = f"{c.strategy}-{c.size}{'t' if c.unit == 'tokens' else 'c'}-{c.overlap}"
    chunkset = f"{readable}-{_digest({'chunking': asdict(c), 'model': layout.embedding_model, 'version': CHUNKER_VERSION})}"
    build = {"bm25": asdict(layout.bm25), "m": layout.dense_m, "efc": layout.dense_ef_construction}
    return chunkset, f"{chunkset}-{_digest(build)[:6]}"
