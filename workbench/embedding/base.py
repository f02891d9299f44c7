"""The embedder interface: texts in, unit-length vectors out."""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod

import numpy as np


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Embedder(ABC):
    """Turns texts into L2-normalised float32 vectors, one row per text."""

    name: str = "embedder"
    dimension: int = 0
    #: the longest input, in the model's own tokens, before the model silently truncates
    max_tokens: int | None = None

    @abstractmethod
    def embed(self, texts: list[str]) -> np.ndarray:
        """Vectors of passages (chunk texts): what the indexes hold."""

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Vectors of queries. Models trained with a query prefix or instruction override this
        (see ``SentenceTransformerEmbedder``); for the rest a query is embedded like a passage."""
        return self.embed(texts)

    def token_counts(self, texts: list[str]) -> list[int] | None:
        """Token counts in the model's tokenizer, or None when the model has none."""
        return None

    def token_spans(self, text: str) -> list[tuple[int, int]] | None:
        """Character offsets of each of ``text``'s tokens in the model's tokenizer (no special
        tokens, no prefix), or None when the model has no tokenizer that reports offsets."""
        return None
