import math
import threading

import pytest

from workbench.retrieval.ranking import RankedList
from workbench.retrieval.rerank import CrossEncoderReranker, Reranker, load_reranker, rerank

RUN = RankedList.from_ordered("rrf", [(1, 10, 0.5), (2, 20, 0.4), (3, 30, 0.3), (4, 40, 0.2), (5, 50, 0.1)])
TEXTS = {1: "alpha", 2: "beta", 3: "gamma", 4: "delta", 5: "epsilon"}


class TableReranker(Reranker):
    """Scores each text from a fixed table and records the calls."""

    def __init__(self, table):
        self.table = table
        self.calls = []

    def score(self, query, texts):
        self.calls.append((query, list(texts)))
        return [self.table[text] for text in texts]


class RaisingReranker(Reranker):
    def score(self, query, texts):
        raise RuntimeError("CUDA out of memory")


class BlockedReranker(Reranker):
    def __init__(self):
        self.release = threading.Event()

    def score(self, query, texts):
        self.release.wait(10)
        return [0.0] * len(texts)


def test_rerank_reorders_the_head_and_keeps_the_tail():
    reranker = TableReranker({"alpha": 0.1, "beta": 0.9, "gamma": 0.5})
    outcome = rerank("q", RUN, TEXTS, reranker, top_m=3, timeout_s=5.0)
    assert reranker.calls == [("q", ["alpha", "beta", "gamma"])]  # only the top_m were scored
    assert outcome.fell_back is False
    assert outcome.ranked.name == "rerank"
    # head by score: beta .9, gamma .5, alpha .1; tail 4, 5 keep their fused order and scores
    assert [(h.chunk_id, h.score, h.rank) for h in outcome.ranked] == [
        (2, 0.9, 1),
        (3, 0.5, 2),
        (1, 0.1, 3),
        (4, 0.2, 4),
        (5, 0.1, 5),
    ]
    assert outcome.scores == {1: 0.1, 2: 0.9, 3: 0.5}
    assert outcome.notes == ("reranked the top 3 of 5 hits with 'TableReranker'",)


def test_equal_scores_keep_the_previous_order():
    reranker = TableReranker({"alpha": 0.0, "beta": 1.0, "gamma": 0.0, "delta": 1.0, "epsilon": 0.0})
    outcome = rerank("q", RUN, TEXTS, reranker, top_m=10, timeout_s=5.0)
    assert outcome.ranked.chunk_ids() == [2, 4, 1, 3, 5]


def test_raising_reranker_falls_back_with_a_note():
    outcome = rerank("q", RUN, TEXTS, RaisingReranker(), top_m=3, timeout_s=5.0)
    assert outcome.fell_back is True
    assert outcome.ranked.hits == RUN.hits
    assert outcome.ranked.name == "rerank"
    assert outcome.scores == {}
    assert outcome.notes == (
        "rerank fell back to the previous order ('rrf'): model 'RaisingReranker' failed: "
        "RuntimeError: CUDA out of memory",
    )


def test_slow_reranker_times_out_without_waiting_for_it():
    reranker = BlockedReranker()
    try:
        outcome = rerank("q", RUN, TEXTS, reranker, top_m=3, timeout_s=0.2)
    finally:
        reranker.release.set()  # let the abandoned worker thread finish
    assert outcome.fell_back is True
    assert outcome.ranked.hits == RUN.hits
    assert len(outcome.notes) == 1
    assert "timed out after 0.2 s" in outcome.notes[0]


@pytest.mark.parametrize(
    ("table", "texts", "reason"),
    [
        ({"alpha": 1.0, "beta": math.nan, "gamma": 0.0}, TEXTS, "non-finite scores"),
        ({"alpha": 1.0, "beta": 2.0}, {1: "alpha", 2: "beta"}, "no text for chunk 3"),
    ],
)
def test_unusable_scores_or_inputs_fall_back(table, texts, reason):
    outcome = rerank("q", RUN, texts, TableReranker(table), top_m=3, timeout_s=5.0)
    assert outcome.fell_back is True
    assert outcome.ranked.hits == RUN.hits
    assert reason in outcome.notes[0]


def test_wrong_number_of_scores_falls_back():
    class ShortReranker(Reranker):
        def score(self, query, texts):
            return [1.0]

    outcome = rerank("q", RUN, TEXTS, ShortReranker(), top_m=3, timeout_s=5.0)
    assert outcome.fell_back is True
    assert "returned 1 scores for 3 texts" in outcome.notes[0]


def test_no_reranker_keeps_the_order():
    outcome = rerank("q", RUN, TEXTS, None, top_m=3, timeout_s=5.0)
    assert outcome.fell_back is False
    assert outcome.ranked.hits == RUN.hits
    assert outcome.scores == {}


def test_invalid_arguments_are_named():
    with pytest.raises(ValueError, match="rerank.top_m"):
        rerank("q", RUN, TEXTS, None, top_m=-1, timeout_s=5.0)
    with pytest.raises(ValueError, match="rerank.timeout_s"):
        rerank("q", RUN, TEXTS, None, top_m=3, timeout_s=0)


def test_load_reranker():
    assert load_reranker("") is None
    assert load_reranker("  ") is None
    reranker = load_reranker("some/model")
    assert isinstance(reranker, CrossEncoderReranker)
    assert reranker.name == "some/model"


def test_real_cross_encoder_scores_and_orders(tiny_cross_encoder_dir):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    texts = {
        1: "the cat sat on the mat",
        2: "stock markets fell sharply today",
        3: "cats are small domesticated felines",
        4: "a recipe for lemon cake",
        5: "never reranked: beyond top_m",
    }
    reranker = CrossEncoderReranker(str(tiny_cross_encoder_dir))
    first = rerank("where do cats sleep", RUN, texts, reranker, top_m=4, timeout_s=60.0)
    second = rerank("where do cats sleep", RUN, texts, reranker, top_m=4, timeout_s=60.0)

    assert first.fell_back is False, first.notes
    assert set(first.scores) == {1, 2, 3, 4}
    assert all(math.isfinite(s) for s in first.scores.values())
    assert len(set(first.scores.values())) == 4  # the tiny model does tell the texts apart
    assert first.scores == second.scores
    assert first.ranked == second.ranked
    by_score = sorted(first.scores, key=lambda c: -first.scores[c])
    assert first.ranked.chunk_ids() == by_score + [5]
    assert reranker.load() is reranker.load()  # loaded once, then cached

    # The scores are the model's own: sigmoid of the single logit for each (query, text) pair.
    tokenizer = AutoTokenizer.from_pretrained(tiny_cross_encoder_dir, local_files_only=True)
    model = AutoModelForSequenceClassification.from_pretrained(tiny_cross_encoder_dir, local_files_only=True).eval()
    batch = tokenizer(["where do cats sleep"] * 4, [texts[c] for c in (1, 2, 3, 4)], padding=True, return_tensors="pt")
    with torch.no_grad():
        expected = torch.sigmoid(model(**batch).logits[:, 0]).tolist()
    assert [first.scores[c] for c in (1, 2, 3, 4)] == pytest.approx(expected, abs=1e-5)


def test_missing_model_falls_back_with_a_note_naming_it(tmp_path):
    missing = str(tmp_path / "no-such-model")
    outcome = rerank("q", RUN, TEXTS, CrossEncoderReranker(missing), top_m=3, timeout_s=60.0)
    assert outcome.fell_back is True
    assert outcome.ranked.hits == RUN.hits
    assert f"model {missing!r} failed" in outcome.notes[0]
    assert f"rerank model folder {missing!r} does not exist" in outcome.notes[0]


def test_uncached_catalogue_model_falls_back_with_the_download_command(tmp_path, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    outcome = rerank("q", RUN, TEXTS, CrossEncoderReranker("BAAI/bge-reranker-base"), top_m=3, timeout_s=60.0)
    assert outcome.fell_back is True
    assert "rerank model 'BAAI/bge-reranker-base' is not available offline" in outcome.notes[0]
    assert "python -m workbench models download BAAI/bge-reranker-base" in outcome.notes[0]


def test_score_kind_follows_the_model_activation(tiny_cross_encoder_dir):
    # a one-logit model saved without an activation gets sentence-transformers' sigmoid
    assert CrossEncoderReranker(str(tiny_cross_encoder_dir)).score_kind == "probability"
    assert TableReranker({}).score_kind == "logit"
