"""Counted token ids reused as an exported encoder's batch features: the assembly by hand, the
check that refuses a tokenizer it does not match, and the same features and vectors as
tokenizing again, on English and Chinese text past the model's limit."""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

from workbench.embedding.registry import get_embedder
from workbench.embedding.token_ids import KEPT_TEXTS, CountedIds, assemble

NAMES = ("input_ids", "attention_mask", "token_type_ids")


def test_assemble_cuts_at_the_limit_keeping_the_closing_token_and_pads():
    ids = [[101, 5, 6, 7, 102], [101, 8, 102]]
    input_ids, mask, types = assemble(ids, NAMES, limit=4, pad_id=0)
    assert input_ids.tolist() == [[101, 5, 6, 102], [101, 8, 102, 0]]
    assert mask.tolist() == [[1, 1, 1, 1], [1, 1, 1, 0]]
    assert types.tolist() == [[0, 0, 0, 0], [0, 0, 0, 0]]
    assert input_ids.dtype == np.int64
    assert [a.tolist() for a in assemble(ids, ("input_ids",), limit=None, pad_id=9)] == [
        [[101, 5, 6, 7, 102], [101, 8, 102, 9, 9]]
    ]


def _fake_tokenizer(text: str) -> list[int]:
    return [101, *(ord(c) for c in text), 102]


def _tokenized(texts):
    return assemble([_fake_tokenizer(t) for t in texts], NAMES, 16, 0)


def test_counted_ids_are_given_back_once_and_only_when_every_text_was_counted():
    counted = CountedIds(NAMES, 16, 0, _tokenized, lambda texts: [_fake_tokenizer(t) for t in texts])
    assert counted.reusable
    counted.remember(["ab", "c"], [_fake_tokenizer("ab"), _fake_tokenizer("c")])
    assert counted.features(["ab", "never counted"]) is None
    features = counted.features(["c", "ab", "c"])  # a repeated text is fine
    assert features[0].tolist() == [[101, 99, 102, 0], [101, 97, 98, 102], [101, 99, 102, 0]]
    assert counted.features(["ab"]) is None  # given back once: an import encodes a text once


def test_a_tokenizer_that_does_not_match_its_counted_ids_is_never_given_them():
    # the model's own features drop nothing, but its counted ids lose their first token
    counted = CountedIds(NAMES, 16, 0, _tokenized, lambda texts: [_fake_tokenizer(t)[1:] for t in texts])
    assert not counted.reusable
    counted.remember(["ab"], [[97, 98, 102]])
    assert counted.features(["ab"]) is None


def test_only_the_most_recent_counts_are_kept():
    counted = CountedIds(NAMES, 16, 0, _tokenized, lambda texts: [_fake_tokenizer(t) for t in texts])
    texts = [f"t{n}" for n in range(KEPT_TEXTS + 5)]
    counted.remember(texts, [_fake_tokenizer(t) for t in texts])
    assert counted.features(texts[:1]) is None
    assert counted.features(texts[-1:]) is not None


@pytest.fixture(scope="module")
def exported_embedder(tiny_chinese_model_dir, tmp_path_factory):
    """The suite's tiny BERT (MiniLM's vocabulary, max 64 tokens here) on an installed exported runtime."""
    installed = [
        runtime
        for runtime, package in (("onnx", "onnxruntime"), ("openvino", "openvino"))
        if importlib.util.find_spec(package)
    ]
    if not installed:
        pytest.skip("neither onnxruntime nor openvino is installed")
    runtime = installed[0]
    previous = os.environ.get("WORKBENCH_EXPORT_CACHE")
    os.environ["WORKBENCH_EXPORT_CACHE"] = str(tmp_path_factory.mktemp("exports"))
    embedder = get_embedder(f"{tiny_chinese_model_dir}@{runtime}-fp32")
    limit = embedder.model.max_seq_length
    embedder.model.max_seq_length = 64  # so ordinary passages run past the limit
    embedder._counted = None  # made again under this limit
    try:
        yield embedder
    finally:
        embedder.model.max_seq_length = limit
        embedder._counted = None
        if previous is None:
            os.environ.pop("WORKBENCH_EXPORT_CACHE", None)
        else:
            os.environ["WORKBENCH_EXPORT_CACHE"] = previous


PASSAGES = [
    "Vitamin D supplementation and bone mineral density: a randomised trial in 412 adults. " * 3,
    "短文本",
    "检索增强生成（RAG）先把文档切成块，再用向量检索和关键词检索找回与问题最相关的块，最后交给大模型回答。" * 2,
    "  Mixed 中英 text, with ÀCCENTS and numbers 3.14  ",
    "x",
]


def test_counted_ids_are_exactly_the_models_own_batch_features(exported_embedder):
    counted = exported_embedder._counted_ids()
    assert counted.reusable
    counts = exported_embedder.token_counts(PASSAGES)
    assert max(counts) > 64  # the check covers truncation, not only padding
    prefixed = [exported_embedder.passage_prefix + text for text in PASSAGES]
    reused = counted.features(prefixed)
    assert reused is not None
    for mine, theirs in zip(reused, exported_embedder._tokenized(prefixed), strict=False):
        assert mine.shape == theirs.shape and np.array_equal(mine, theirs)


def test_an_encode_after_counting_gives_the_same_vectors_as_one_without(exported_embedder):
    fresh = exported_embedder.embed(PASSAGES)  # nothing counted: tokenizes
    exported_embedder.token_counts(PASSAGES)
    reused = exported_embedder.embed(PASSAGES)
    assert np.array_equal(fresh, reused)
    assert (
        exported_embedder._counted_ids().features([exported_embedder.passage_prefix + PASSAGES[0]]) is None
    )  # the encode took them
