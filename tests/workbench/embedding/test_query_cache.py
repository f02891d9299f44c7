"""The query-vector cache: hits skip the embedder, the least recently used vector leaves first, batches warm it."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from workbench.embedding.query_cache import QueryVectorCache


class CountingEmbedder:
    """Text -> [len(text), calls so far]: a vector that shows when it was made."""

    def __init__(self) -> None:
        self.batches: list[tuple[str, list[str]]] = []

    def __call__(self, model: str, texts: list[str]) -> np.ndarray:
        self.batches.append((model, list(texts)))
        return np.array([[len(text), len(self.batches)] for text in texts], dtype=np.float32)


def test_a_hit_returns_the_kept_vector_without_embedding() -> None:
    embed = CountingEmbedder()
    cache = QueryVectorCache(embed, capacity=10)
    first = cache.vector("m", "abc")
    again = cache.vector("m", "abc")
    assert first.tolist() == [3.0, 1.0] and again is first
    assert embed.batches == [("m", ["abc"])]
    # another model is another key
    assert cache.vector("other", "abc").tolist() == [3.0, 2.0]
    assert len(cache) == 2


def test_the_least_recently_used_vector_leaves_first() -> None:
    embed = CountingEmbedder()
    cache = QueryVectorCache(embed, capacity=2)
    cache.vector("m", "a")
    cache.vector("m", "b")
    cache.vector("m", "a")  # a is now the most recently used
    cache.vector("m", "c")  # over capacity: b goes
    assert ("m", "b") not in cache and ("m", "a") in cache and ("m", "c") in cache
    assert len(cache) == 2
    cache.vector("m", "b")  # embedded again
    assert [texts for _, texts in embed.batches] == [["a"], ["b"], ["c"], ["b"]]


def test_warm_embeds_only_the_missing_texts_in_one_batch_and_keeps_the_cap() -> None:
    embed = CountingEmbedder()
    cache = QueryVectorCache(embed, capacity=3)
    cache.vector("m", "a")
    cache.warm("m", ["a", "bb", "bb", "ccc"])
    assert embed.batches == [("m", ["a"]), ("m", ["bb", "ccc"])]
    assert cache.vector("m", "ccc").tolist() == [3.0, 2.0]
    cache.warm("m", ["a", "bb"])  # all cached: no call, but both are used now (a, then bb, most recent)
    assert len(embed.batches) == 2
    cache.warm("m", ["dddd", "eeeee"])  # 5 vectors for 3 places: the two least recent go
    assert len(cache) == 3 and ("m", "ccc") not in cache and ("m", "a") not in cache and ("m", "bb") in cache


def test_capacity_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1, got 0"):
        QueryVectorCache(CountingEmbedder(), capacity=0)


class HeldEmbedder(CountingEmbedder):
    """A CountingEmbedder that waits for ``release`` before it answers: an embedding under way."""

    def __init__(self) -> None:
        super().__init__()
        self.started = threading.Event()
        self.release = threading.Event()

    def __call__(self, model: str, texts: list[str]) -> np.ndarray:
        self.started.set()
        assert self.release.wait(10), "the test never released the embedder"
        return super().__call__(model, texts)


def test_a_vector_embedded_ahead_is_waited_for_not_embedded_twice() -> None:
    embed = HeldEmbedder()
    cache = QueryVectorCache(embed, capacity=10)
    cache.embed_ahead("m", "倒数排名融合")
    assert embed.started.wait(10)
    cache.embed_ahead("m", "倒数排名融合")  # under way: not started again
    asked: list[np.ndarray] = []
    reader = threading.Thread(target=lambda: asked.append(cache.vector("m", "倒数排名融合")))
    reader.start()
    reader.join(0.2)
    assert reader.is_alive() and not asked  # waiting for the embedding ahead
    embed.release.set()
    reader.join(10)
    assert asked[0].tolist() == [6.0, 1.0]
    assert embed.batches == [("m", ["倒数排名融合"])]
    assert cache.vector("m", "倒数排名融合") is asked[0]  # kept
    cache.embed_ahead("m", "倒数排名融合")  # cached: nothing to do
    assert len(embed.batches) == 1


def test_an_embedding_ahead_that_fails_raises_when_the_vector_is_asked_for_and_is_not_kept() -> None:
    release = threading.Event()
    calls = []

    def broken(model: str, texts: list[str]) -> np.ndarray:
        calls.append(texts)
        assert release.wait(10), "the test never released the embedder"
        raise RuntimeError("model 'm' is not loaded")

    cache = QueryVectorCache(broken, capacity=10)
    cache.embed_ahead("m", "what is rrf")
    raised: list[BaseException] = []

    def ask() -> None:
        try:
            cache.vector("m", "what is rrf")
        except RuntimeError as error:
            raised.append(error)

    reader = threading.Thread(target=ask)
    reader.start()
    reader.join(0.2)
    assert reader.is_alive() and len(calls) == 1  # waiting for the embedding ahead, not embedding
    release.set()
    reader.join(10)
    assert [str(error) for error in raised] == ["model 'm' is not loaded"]
    assert len(calls) == 1  # the reader waited for the embedding ahead, it did not embed again
    assert ("m", "what is rrf") not in cache
    with pytest.raises(RuntimeError, match="not loaded"):  # asked again: embedded again, and fails again
        cache.vector("m", "what is rrf")
    assert len(calls) == 2


def test_the_cost_reported_is_this_requests_embedding_once_then_nothing() -> None:
    embed = CountingEmbedder()
    cache = QueryVectorCache(embed, capacity=10)
    vector, seconds = cache.vector_with_cost("m", "how far is a lighthouse beam seen")
    assert seconds > 0.0 and vector.tolist() == [33.0, 1.0]
    assert cache.vector_with_cost("m", "how far is a lighthouse beam seen") == (vector, 0.0)  # kept from before


def test_an_embedding_ahead_reports_its_own_time_to_the_first_that_asks() -> None:
    embed = HeldEmbedder()
    cache = QueryVectorCache(embed, capacity=10)
    cache.embed_ahead("m", "灯塔的光能照多远")
    assert embed.started.wait(10)
    time.sleep(0.05)  # the embedding takes at least this long
    embed.release.set()
    vector, seconds = cache.vector_with_cost("m", "灯塔的光能照多远")
    assert seconds >= 0.05 and vector.tolist() == [8.0, 1.0]
    assert cache.vector_with_cost("m", "灯塔的光能照多远")[1] == 0.0  # reported once
    assert embed.batches == [("m", ["灯塔的光能照多远"])]


class GatedEmbedder(CountingEmbedder):
    """Holds its first batch until ``release`` is set, so misses can arrive while it runs."""

    def __init__(self, fail_second: bool = False) -> None:
        super().__init__()
        self.first_started = threading.Event()
        self.release = threading.Event()
        self.fail_second = fail_second

    def __call__(self, model: str, texts: list[str]) -> np.ndarray:
        if not self.batches:
            self.first_started.set()
            assert self.release.wait(10)
        elif self.fail_second and len(self.batches) == 1:
            self.batches.append((model, list(texts)))
            raise RuntimeError("the model fell over")
        return super().__call__(model, texts)


def _queued(cache: QueryVectorCache) -> int:
    with cache._lock:
        return len(cache._queued)


def _asked(cache: QueryVectorCache) -> int:
    with cache._lock:
        return sum(len(texts) for texts in cache._asked.values())


def _ask_while_the_first_batch_runs(cache, embed, texts: list[str]) -> dict[str, object]:
    answers: dict[str, object] = {}

    def ask(text: str) -> None:
        try:
            answers[text] = cache.vector("m", text).tolist()
        except RuntimeError as error:
            answers[text] = str(error)

    first = threading.Thread(target=ask, args=("a",))
    first.start()
    assert embed.first_started.wait(10)
    others = [threading.Thread(target=ask, args=(text,)) for text in texts]
    for thread in others:
        thread.start()
    deadline = time.monotonic() + 10
    while _queued(cache) < len(set(texts)) and time.monotonic() < deadline:
        time.sleep(0.01)  # every other text queued behind the running batch
    embed.release.set()
    for thread in [first, *others]:
        thread.join(10)
    return answers


def test_misses_that_arrive_during_a_batch_are_embedded_together_in_the_next() -> None:
    embed = GatedEmbedder()
    cache = QueryVectorCache(embed, capacity=10)
    answers = _ask_while_the_first_batch_runs(cache, embed, ["bb", "ccc", "dddd", "bb"])
    assert embed.batches[0] == ("m", ["a"])
    assert len(embed.batches) == 2 and sorted(embed.batches[1][1]) == ["bb", "ccc", "dddd"]  # "bb" once
    assert answers == {"a": [1.0, 1.0], "bb": [2.0, 2.0], "ccc": [3.0, 2.0], "dddd": [4.0, 2.0]}
    assert cache.vector("m", "ccc").tolist() == [3.0, 2.0] and len(embed.batches) == 2  # kept


def test_a_failed_batch_fails_each_of_its_callers_and_keeps_nothing() -> None:
    embed = GatedEmbedder(fail_second=True)
    cache = QueryVectorCache(embed, capacity=10)
    answers = _ask_while_the_first_batch_runs(cache, embed, ["bb", "ccc"])
    assert answers == {"a": [1.0, 1.0], "bb": "the model fell over", "ccc": "the model fell over"}
    assert ("m", "bb") not in cache
    assert cache.vector("m", "bb").tolist() == [2.0, 3.0]  # asked again: embedded again


def test_a_query_asked_while_its_text_is_being_warmed_waits_for_the_warm_batch() -> None:
    embed = GatedEmbedder()
    cache = QueryVectorCache(embed, capacity=10)
    warming = threading.Thread(target=cache.warm, args=("m", ["a", "bb", "ccc"]))
    warming.start()
    assert embed.first_started.wait(10)
    asked: list[list[float]] = []
    reader = threading.Thread(target=lambda: asked.append(cache.vector("m", "bb").tolist()))
    reader.start()
    reader.join(0.2)
    assert reader.is_alive() and not asked  # waiting for the warm batch, not embedding beside it
    embed.release.set()
    for thread in (warming, reader):
        thread.join(10)
    assert asked == [[2.0, 1.0]]
    assert embed.batches == [("m", ["a", "bb", "ccc"])]


def test_warming_embeds_in_batches_of_at_most_max_batch() -> None:
    embed = CountingEmbedder()
    cache = QueryVectorCache(embed, capacity=10, max_batch=2)
    cache.warm("m", ["a", "bb", "ccc", "dddd", "eeeee"])
    assert embed.batches == [("m", ["a", "bb"]), ("m", ["ccc", "dddd"]), ("m", ["eeeee"])]
    with pytest.raises(ValueError, match="max_batch must be at least 1, got 0"):
        QueryVectorCache(embed, max_batch=0)


def test_a_text_asked_for_goes_ahead_of_the_texts_being_warmed() -> None:
    """While a batch runs, an evaluation queues its queries to warm and two callers ask: one for a
    new text, one for a text the warming queued too (混合检索). Both callers' texts make the next
    batch, the warming's own texts the ones after, and no text is embedded twice."""
    embed = GatedEmbedder()
    cache = QueryVectorCache(embed, capacity=10, max_batch=2)
    first = threading.Thread(target=cache.vector, args=("m", "a"))
    first.start()
    assert embed.first_started.wait(10)
    warming = threading.Thread(target=cache.warm, args=("m", ["w1", "w2", "混合检索"]))
    warming.start()
    deadline = time.monotonic() + 10
    while _queued(cache) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    asked: dict[str, list[float]] = {}
    readers = [
        threading.Thread(target=lambda text=text: asked.update({text: cache.vector("m", text).tolist()}))
        for text in ("new", "混合检索")
    ]
    for number, reader in enumerate(readers, start=1):
        reader.start()
        while _asked(cache) < number and time.monotonic() < deadline:
            time.sleep(0.01)  # one at a time, so the order they asked in is known
    embed.release.set()
    for thread in (first, warming, *readers):
        thread.join(10)
    assert embed.batches == [("m", ["a"]), ("m", ["new", "混合检索"]), ("m", ["w1", "w2"])]
    assert asked == {"new": [3.0, 2.0], "混合检索": [4.0, 2.0]}
