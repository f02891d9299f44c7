"""The torch runtime's traced graph: the model's own vectors (English, Chinese, past the window,
mixed batches), used instead of the eager pass, and the eager pass, with one warning, for a model
it cannot trace or that traces wrong."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from workbench.embedding import sentence_graph
from workbench.embedding.sentence_transformer import SentenceTransformerEmbedder

TEXTS = [
    "How does hybrid retrieval fuse dense and keyword ranks?",
    "混合检索如何融合向量检索和关键词检索的排名？",
    "短",
    " ".join(["a long passage past the model's window"] * 80),
]


def eager(embedder: SentenceTransformerEmbedder, texts: list[str]) -> np.ndarray:
    return embedder.model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)


def test_the_traced_graph_gives_the_models_own_vectors(tiny_chinese_model_dir):
    embedder = SentenceTransformerEmbedder(str(tiny_chinese_model_dir))
    for texts in ([TEXTS[0]], [TEXTS[1]], [TEXTS[3]], TEXTS, TEXTS * 20):  # 80 texts: two batches
        traced = embedder.embed(texts)
        assert traced.shape == (len(texts), embedder.dimension)
        assert np.abs(traced - eager(embedder, texts)).max() <= sentence_graph.TRACE_TOLERANCE


def test_queries_run_the_traced_graph_not_the_eager_pass(tiny_chinese_model_dir, monkeypatch):
    embedder = SentenceTransformerEmbedder(str(tiny_chinese_model_dir))
    expected = eager(embedder, TEXTS[:2])
    embedder.embed_queries(["traced on first use"])

    def no_eager_pass(*args, **kwargs):
        raise AssertionError("the eager forward pass ran")

    monkeypatch.setattr(embedder.model, "encode", no_eager_pass)
    assert np.abs(embedder.embed_queries(TEXTS[:2]) - expected).max() <= sentence_graph.TRACE_TOLERANCE


@pytest.mark.parametrize(
    ("break_it", "cause"),
    [
        ("trace", "could not be traced (unsupported operator in this model)"),
        ("tolerance", "differ from the model's by"),
    ],
)
def test_a_model_that_cannot_be_traced_runs_eagerly_with_one_warning(
    tiny_chinese_model_dir, monkeypatch, caplog, break_it, cause
):
    import torch

    traces: list[int] = []
    trace = torch.jit.trace

    def counted_trace(*args, **kwargs):
        traces.append(1)
        if break_it == "trace":
            raise RuntimeError("unsupported operator in this model\nmore detail")
        return trace(*args, **kwargs)

    monkeypatch.setattr(torch.jit, "trace", counted_trace)
    if break_it == "tolerance":
        monkeypatch.setattr(sentence_graph, "TRACE_TOLERANCE", -1.0)  # no graph can match: it is refused
    embedder = SentenceTransformerEmbedder(str(tiny_chinese_model_dir))
    with caplog.at_level(logging.WARNING, logger="workbench.embedding.sentence_graph"):
        first = embedder.embed_queries(TEXTS[:2])
        again = embedder.embed_queries(TEXTS[1:3])
    assert np.allclose(first, eager(embedder, TEXTS[:2]), atol=1e-6)
    assert np.allclose(again, eager(embedder, TEXTS[1:3]), atol=1e-6)
    warnings = [r.getMessage() for r in caplog.records if r.name == "workbench.embedding.sentence_graph"]
    assert len(warnings) == 1 and cause in warnings[0] and str(tiny_chinese_model_dir) in warnings[0]
    assert "eager forward pass" in warnings[0]
    assert traces == [1]  # tried once, not on every query


def test_bf16_autocast_runs_the_eager_pass(tiny_chinese_model_dir):
    from workbench.embedding.torch_runtime import TorchBf16Embedder

    assert SentenceTransformerEmbedder.traces and not TorchBf16Embedder.traces
