"""The embedder interface and the registry that maps model names to embedders."""

from __future__ import annotations

import hashlib
import threading
from abc import ABC, abstractmethod
from typing import Callable

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
    def embed(self, texts: list[str]) -> np.ndarray: ...

    def token_counts(self, texts: list[str]) -> list[int] | None:
        """Token counts in the model's tokenizer, or None when the model has none."""
        return None


_FACTORIES: dict[str, Callable[[str], Embedder]] = {}
_INSTANCES: dict[str, Embedder] = {}
_GUARD = threading.Lock()


def register_embedder(name: str, factory: Callable[[str], Embedder]) -> None:
    """Route a model name to a factory (tests register deterministic fakes this way)."""
    with _GUARD:
        _FACTORIES[name] = factory
        _INSTANCES.pop(name, None)


def unregister_embedder(name: str) -> None:
    with _GUARD:
        _FACTORIES.pop(name, None)
        _INSTANCES.pop(name, None)


def get_embedder(name: str) -> Embedder:
    """One shared instance per model name; sentence-transformers unless a factory is registered."""
    with _GUARD:
        if name not in _INSTANCES:
            factory = _FACTORIES.get(name)
            if factory is None:
                from workbench.embedding.sentence_transformer import SentenceTransformerEmbedder

                factory = SentenceTransformerEmbedder
            _INSTANCES[name] = factory(name)
        return _INSTANCES[name]
