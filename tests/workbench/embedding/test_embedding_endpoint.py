"""An OpenAI-compatible /embeddings endpoint as an embedding model, with its own cache key."""

from __future__ import annotations

import numpy as np
import pytest

from store.catalog import Catalog
from workbench.embedding import get_embedder
from workbench.embedding.cache import embed_cached
from workbench.embedding.endpoint import EmbeddingEndpointError, EndpointEmbedder
from workbench.embedding.registry import unregister_embedder


@pytest.fixture
def endpoint_model(fake_llm):
    name = "openai:fake-embed"
    unregister_embedder(name)  # a fresh instance per test: the fake server's port changes
    yield name
    unregister_embedder(name)


def test_vectors_come_from_the_endpoint_normalised_and_row_aligned(fake_llm, endpoint_model):
    embedder = get_embedder(endpoint_model)
    assert isinstance(embedder, EndpointEmbedder)
    vectors = embedder.embed(["reciprocal rank fusion", "混合检索", "reciprocal rank fusion"])
    assert vectors.shape == (3, 64) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert np.allclose(vectors[0], vectors[2]) and not np.allclose(vectors[0], vectors[1])
    assert fake_llm.count("/embeddings") == 1
    assert fake_llm.calls[0]["body"]["model"] == "fake-embed"
    assert embedder.dimension == 64


def test_the_cache_key_names_the_endpoint_and_nothing_is_embedded_twice(fake_llm, endpoint_model, tmp_path):
    embedder = get_embedder(endpoint_model)
    assert embedder.name == f"openai:fake-embed@127.0.0.1:{fake_llm.server_address[1]}/v1"
    catalog = Catalog(tmp_path / "catalog.duckdb")
    texts = [f"text number {i}" for i in range(70)]
    _, first = embed_cached(catalog, embedder, texts)
    _, second = embed_cached(catalog, embedder, texts)
    assert (first.embedded, second.embedded, second.cached) == (70, 0, 70)
    assert fake_llm.count("/embeddings") == 2  # 70 texts in batches of 64


def test_an_endpoint_failure_names_the_model_and_the_problem(fake_llm, endpoint_model):
    fake_llm.behaviour = "malformed"
    with pytest.raises(EmbeddingEndpointError, match="did not answer with an OpenAI-style embeddings response"):
        get_embedder(endpoint_model).embed(["x"])


def test_without_an_endpoint_the_model_cannot_load_and_says_why(no_llm):
    unregister_embedder("openai:nomic-embed-text")
    with pytest.raises(EmbeddingEndpointError, match="needs an OpenAI-compatible endpoint, which is not configured"):
        get_embedder("openai:nomic-embed-text")
    with pytest.raises(EmbeddingEndpointError, match="write it as openai:<model name>"):
        EndpointEmbedder("openai:")
