"""The torch embedder's thread count: a query-sized batch runs on one thread, a larger batch on
torch's own count, and the process's count is the same afterwards, in English and Chinese."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

from workbench.embedding.sentence_transformer import ONE_THREAD_BATCH, SentenceTransformerEmbedder


@pytest.fixture
def two_threads():
    """Torch allowed two threads, as on the two-core machine the app runs on."""
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield 2
    torch.set_num_threads(before)


@pytest.fixture
def recorded(tiny_chinese_model_dir, monkeypatch) -> tuple[SentenceTransformerEmbedder, list[int]]:
    """An embedder whose forward passes record torch's thread count while they run."""
    embedder = SentenceTransformerEmbedder(str(tiny_chinese_model_dir))
    counts: list[int] = []
    forward = embedder._forward

    def counting(model, texts):
        counts.append(torch.get_num_threads())
        return forward(model, texts)

    monkeypatch.setattr(embedder, "_forward", counting)
    return embedder, counts


def test_a_query_runs_on_one_thread_and_the_count_comes_back(recorded, two_threads):
    embedder, counts = recorded
    vectors = embedder.embed_queries(["混合检索怎样融合排名？"])
    embedder.embed_queries(["How does hybrid retrieval fuse ranks?"] * ONE_THREAD_BATCH)
    assert counts == [1, 1]
    assert torch.get_num_threads() == two_threads
    assert vectors.shape[0] == 1 and np.isclose(np.linalg.norm(vectors[0]), 1.0, atol=1e-5)


def test_a_batch_past_the_limit_keeps_torchs_thread_count(recorded, two_threads):
    embedder, counts = recorded
    embedder.embed(["passage"] * (ONE_THREAD_BATCH + 1))
    assert counts == [two_threads]


def test_one_threads_vectors_are_the_same_as_the_batchs(recorded, two_threads):
    embedder, _ = recorded
    texts = ["Hybrid retrieval fuses dense and BM25 ranks.", "混合检索把向量检索和关键词检索的排名融合起来。"]
    together = embedder.embed(texts * 3)  # past the limit: torch's own threads
    alone = np.vstack([embedder.embed([text]) for text in texts])
    assert np.allclose(together[:2], alone, atol=1e-5)


def test_queries_from_two_threads_leave_the_process_count_as_it_was(tiny_chinese_model_dir, two_threads):
    embedders = [SentenceTransformerEmbedder(str(tiny_chinese_model_dir)) for _ in range(2)]

    def ask(embedder: SentenceTransformerEmbedder) -> None:
        for number in range(20):
            embedder.embed_queries([f"query {number}"])

    workers = [threading.Thread(target=ask, args=(embedder,)) for embedder in embedders]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert torch.get_num_threads() == two_threads
