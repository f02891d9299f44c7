"""An OpenAI-compatible ``/embeddings`` endpoint as an embedding model (a local Ollama, a hosted API).

Choose it with ``embedding.model = openai:<model name>``, e.g. ``openai:nomic-embed-text`` on
Ollama or ``openai:text-embedding-3-small`` on OpenAI. The endpoint is the one the LLM settings
name (``WORKBENCH_LLM_BASE_URL``, ``WORKBENCH_LLM_API_KEY``; see ``workbench.llm.endpoint``).

Its cache key (``Embedder.name``, what the embedding cache stores vectors under) adds the endpoint
to the model name, ``openai:nomic-embed-text@localhost:11434/v1``: two servers can serve different
models under one name, and their vectors must never mix. Vectors are L2-normalised here, as the
dense index expects. Query vectors go through the same cache, so a re-run pays nothing.
"""

from __future__ import annotations

import threading

import numpy as np

from workbench.embedding.base import Embedder
from workbench.llm.endpoint import Endpoint, settings_from_env
from workbench.models.availability import ModelNotAvailableError

ENDPOINT_PREFIX = "openai:"
#: texts per request; hosted APIs accept a few thousand, local servers are happier with fewer
BATCH_SIZE = 64


class EmbeddingEndpointError(ModelNotAvailableError):
    """The endpoint is not configured or failed; the message names the fix. To a caller it is a
    model that cannot be used now, like one that is not downloaded."""


def is_endpoint_model(name: str) -> bool:
    return name.startswith(ENDPOINT_PREFIX)


class EndpointEmbedder(Embedder):
    #: embedding calls cost money or time: callers cache query vectors in the catalog too
    remote = True

    def __init__(self, model: str):
        if not is_endpoint_model(model) or not model[len(ENDPOINT_PREFIX) :].strip():
            raise EmbeddingEndpointError(
                f"embedding model {model!r}: write it as {ENDPOINT_PREFIX}<model name>, "
                f"e.g. {ENDPOINT_PREFIX}nomic-embed-text"
            )
        lookup = settings_from_env()
        if lookup.settings is None:
            raise EmbeddingEndpointError(
                f"embedding model {model!r} needs an OpenAI-compatible endpoint, which is {lookup.problem}"
            )
        self.model_id = model[len(ENDPOINT_PREFIX) :].strip()
        self.endpoint = Endpoint(lookup.settings)
        self.name = f"{model}@{lookup.settings.host}"
        self.max_tokens = None
        self._dimension: int | None = None
        self._lock = threading.Lock()
        self.calls = 0

    @property
    def dimension(self) -> int:  # type: ignore[override]
        if self._dimension is None:
            self.embed(["dimension probe"])
        return int(self._dimension or 0)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        parts = []
        for offset in range(0, len(texts), BATCH_SIZE):
            batch = list(texts[offset : offset + BATCH_SIZE])
            with self._lock:
                self.calls += 1
            result = self.endpoint.embed(batch, self.model_id)
            if not result.ok or result.vectors is None:  # an ok result always carries its vectors
                raise EmbeddingEndpointError(f"embedding model {self.name!r}: {result.error}")
            parts.append(result.vectors)
        vectors = np.vstack(parts).astype(np.float32)
        if self._dimension is not None and vectors.shape[1] != self._dimension:
            raise EmbeddingEndpointError(
                f"embedding model {self.name!r} changed dimension from {self._dimension} "
                f"to {vectors.shape[1]}; the endpoint serves another model under that name"
            )
        self._dimension = int(vectors.shape[1])
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        if (norms == 0).any():
            raise EmbeddingEndpointError(f"embedding model {self.name!r} returned an all-zero vector")
        return vectors / norms
