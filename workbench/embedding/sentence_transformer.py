"""sentence-transformers models, loaded offline and lazily, with their prefixes applied.

Models such as e5 (``query: `` / ``passage: ``) or bge-zh (a query instruction) were trained
with text in front of queries or passages; the catalogue knows it, and this embedder adds it,
so a user never types it and cached vectors always match what the model expects.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from typing import ClassVar

import numpy as np

from workbench.embedding.base import Embedder
from workbench.embedding.sentence_graph import LazyTrace
from workbench.models.availability import (
    ModelNotAvailableError,
    card_for,
    download_command,
    is_path_like,
    require_available,
)
from workbench.models.catalogue import EMBEDDING
from workbench.models.long_lived import exempt_from_collection

BUNDLED_MODEL = "all-MiniLM-L6-v2"
#: a batch of at most this many texts runs its forward pass on one thread: a query's few tokens
#: gain nothing from splitting each operator across cores, and while another process holds a core
#: (the browser drawing the lab's last answer) torch's threads wait for each other at every one.
#: In the app a lab query's embedding took 50-300 ms on two threads and 26-31 ms on one.
ONE_THREAD_BATCH = 4
#: texts per forward pass; longer ones first, so each batch pads little
BATCH_SIZE = 64
# held while a small batch has lowered torch's thread count, so two of them never restore each
# other's lowered count as the process's own
_THREAD_COUNT_LOCK = threading.Lock()

__all__ = ["BUNDLED_MODEL", "ModelNotAvailableError", "SentenceTransformerEmbedder"]


class SentenceTransformerEmbedder(Embedder):
    """fp32 PyTorch: the reference every other runtime is measured against.

    ``name`` is the embedder key the cache stores vectors under; ``model`` the model it runs
    (the same, unless a runtime subclass adds ``@runtime-precision`` to the key).
    """

    #: the forward pass runs a traced graph of the model: the same vectors, without waiting for
    #: the GIL at every operator while other threads compute
    traces: ClassVar[bool] = True

    def __init__(self, name: str, model: str | None = None):
        self.name = name
        self.model_name = model or name
        self._model = None
        self.load_seconds: float | None = None  # how long loading took, once it has
        self._load_lock = threading.Lock()
        # a Hugging Face fast tokenizer raises "Already borrowed" when two threads use it at once
        self._use_lock = threading.Lock()
        self._trace = LazyTrace()
        card = card_for(self.model_name, EMBEDDING)
        self.query_prefix, self.passage_prefix = card.query_prefix, card.passage_prefix
        if is_path_like(self.model_name):
            require_available(self.model_name, EMBEDDING)  # a folder that does not exist fails now, not on first use

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def model(self):
        if self._model is None:
            with self._load_lock:
                if self._model is None:
                    started = time.perf_counter()
                    self._model = self._load()
                    self.load_seconds = time.perf_counter() - started
                    exempt_from_collection()
        return self._model

    def _load(self):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        # progress bars and load reports go to stderr, but they are noise in logs and CI output
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        folder = require_available(self.model_name, EMBEDDING)
        from sentence_transformers import SentenceTransformer

        try:
            return SentenceTransformer(str(folder), device="cpu", local_files_only=True)
        except Exception as error:  # the library raises many types for a broken or partial model
            cause = (str(error).strip().splitlines() or [""])[0]
            raise ModelNotAvailableError(
                f"embedding model {self.model_name!r} could not be loaded from {folder} ({type(error).__name__}: "
                f"{cause}); if a download was cut short, fetch it again: {download_command(self.model_name)}"
            ) from None

    @property
    def dimension(self) -> int:  # type: ignore[override]
        return int(
            self.model.get_embedding_dimension()
            if hasattr(self.model, "get_embedding_dimension")
            else self.model.get_sentence_embedding_dimension()
        )

    @property
    def max_tokens(self) -> int | None:  # type: ignore[override]
        return int(self.model.max_seq_length) if self.model.max_seq_length else None

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._encode([self.passage_prefix + text for text in texts])

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._encode([self.query_prefix + text for text in texts])

    def _encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = self.model
        with self._use_lock, _threads_for(len(texts)), self._arithmetic():
            vectors = self._forward(model, texts)
        return np.asarray(vectors, dtype=np.float32)

    def _forward(self, model, texts: list[str]) -> np.ndarray:
        """Unit vectors for ``texts`` (callers hold the lock): through the traced graph, which
        lets go of the GIL once for a whole pass rather than at every operator
        (``workbench.embedding.sentence_graph`` says why), or, for a model that cannot be traced,
        the eager forward pass."""
        traced = self._trace.get(model, self.model_name) if self.traces else None
        if traced is not None:
            return traced.encode(texts, batch_size=BATCH_SIZE)
        return model.encode(
            texts, batch_size=BATCH_SIZE, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )

    def _arithmetic(self):
        """The context the forward pass runs in: plain fp32 here (a subclass casts)."""
        return contextlib.nullcontext()

    def token_counts(self, texts: list[str]) -> list[int] | None:
        with self._use_lock:
            ids = self._untruncated_ids([self.passage_prefix + text for text in texts])
        return [len(row) for row in ids]

    def token_spans(self, text: str) -> list[tuple[int, int]] | None:
        tokenizer = self.model.tokenizer
        if not getattr(tokenizer, "is_fast", False):  # only fast tokenizers report offsets
            return None
        with self._use_lock:
            # verbose=False: a chunk may be longer than the window on purpose; no warning wanted
            encoding = tokenizer(
                text, add_special_tokens=False, return_offsets_mapping=True, truncation=False, verbose=False
            )
        return [(start, end) for start, end in encoding["offset_mapping"] if end > start]

    def _untruncated_ids(self, texts: list[str]) -> list[list[int]]:
        """Each text's token ids, special tokens included, before truncation (callers hold the lock)."""
        return self.model.tokenizer(texts, add_special_tokens=True, truncation=False)["input_ids"]


@contextlib.contextmanager
def _threads_for(batch: int) -> Iterator[None]:
    """One torch thread for a batch of at most ``ONE_THREAD_BATCH`` texts; otherwise torch's own count."""
    if batch > ONE_THREAD_BATCH:
        yield
        return
    import torch

    with _THREAD_COUNT_LOCK:
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            yield
        finally:
            torch.set_num_threads(threads)
