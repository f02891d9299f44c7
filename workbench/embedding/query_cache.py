"""Query vectors kept in memory, least recently used out first, so re-running a query never embeds it again.

Changing a query-time setting (fusion, MMR, rerank) re-runs the same query text: its vector
comes from here. Keys are (model, text); the cache is shared by the app's threads, so every
read and write holds one lock, and embedding itself runs outside it (a slow model never blocks
a hit). A query can be embedded ahead, on a thread of its own, while the app draws the rest of
its page; asking for it then waits for that embedding rather than making a second.

Misses that arrive together are embedded together: while one batch of a model runs, the texts
asked for meanwhile queue, and the first of their callers to find the model free embeds the queue
as the next batch. A lone miss waits for nothing: it is a batch of one at once. Warming (an
evaluation's queries) queues its texts the same way, so a query asked meanwhile never embeds
beside it on the same cores, but a batch holds at most ``max_batch`` texts and a text someone is
waiting for goes first: a query asked while an evaluation warms its 300 queries waits for one
batch in progress (about 0.1 s), not for all 300 (seconds), and its own text, if the warming
queued it too, moves to the front.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import Future

import numpy as np

#: (model, texts) -> one query vector per text, in order
EmbedQueries = Callable[[str, list[str]], np.ndarray]

#: vectors kept by default: 20,000 x 384 float32 is about 30 MB
DEFAULT_CAPACITY = 20_000
#: texts embedded in one batch at most: the longest a query asked meanwhile waits for
DEFAULT_MAX_BATCH = 16


class QueryVectorCache:
    """At most ``capacity`` query vectors by (model, text), filled by ``embed`` on a miss."""

    def __init__(self, embed: EmbedQueries, capacity: int = DEFAULT_CAPACITY, max_batch: int = DEFAULT_MAX_BATCH):
        if capacity < 1:
            raise ValueError(f"query-vector cache capacity must be at least 1, got {capacity}")
        if max_batch < 1:
            raise ValueError(f"query-vector cache max_batch must be at least 1, got {max_batch}")
        self._embed = embed
        self.capacity = capacity
        self.max_batch = max_batch
        self._vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        #: embeddings started by ``embed_ahead`` and not finished yet
        self._pending: dict[tuple[str, str], Future[np.ndarray]] = {}
        #: seconds each embedding made ahead took, until ``vector_with_cost`` reports it once
        self._ahead_seconds: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()
        #: misses waiting for a batch of their model: texts a caller asked for, ahead of texts
        #: being warmed; and the models with a batch running
        self._queued: dict[tuple[str, str], Future[np.ndarray]] = {}
        self._asked: dict[str, list[str]] = {}
        self._warming: dict[str, list[str]] = {}
        self._embedding: set[str] = set()
        self._batch_ended = threading.Condition(self._lock)

    def vector(self, model: str, text: str) -> np.ndarray:
        """``text``'s query vector under ``model``: cached, being embedded ahead (waited for), or
        embedded now, in one batch with the misses that arrived meanwhile, and kept. An embedding
        that failed raises its error here, in every caller that waited for it."""
        return self._vectors_of(model, [text], asked=True)[0]

    def _vectors_of(self, model: str, texts: list[str], asked: bool) -> list[np.ndarray]:
        """One vector per text: the kept ones at once, the others from the batches they join
        (``asked``: a caller waits for them now, so they go ahead of texts being warmed)."""
        found: list[np.ndarray | Future[np.ndarray]] = []
        queued: list[Future[np.ndarray]] = []
        with self._lock:
            for text in texts:
                key = (model, text)
                vector = self._vectors.get(key)
                if vector is not None:
                    self._vectors.move_to_end(key)
                    found.append(vector)
                    continue
                future = self._pending.get(key) or self._queued.get(key)
                if future is None:
                    future = self._queued[key] = Future()
                    (self._asked if asked else self._warming).setdefault(model, []).append(text)
                elif asked and text in self._warming.get(model, ()):
                    self._warming[model].remove(text)
                    self._asked.setdefault(model, []).append(text)
                if key in self._queued:
                    queued.append(future)
                found.append(future)
        for future in queued:
            while not future.done():
                with self._lock:
                    while model in self._embedding and not future.done():
                        self._batch_ended.wait()
                    if future.done():
                        break
                    # the model is free and this text still queued: this caller embeds the next batch
                    self._embedding.add(model)
                    batch = self._next_batch(model)
                self._embed_batch(model, batch)
        return [item.result() if isinstance(item, Future) else item for item in found]

    def _next_batch(self, model: str) -> list[str]:
        """Up to ``max_batch`` queued texts, the asked-for first (callers hold the lock)."""
        batch: list[str] = []
        for queue in (self._asked, self._warming):
            waiting = queue.get(model, [])
            taken = waiting[: self.max_batch - len(batch)]
            batch += taken
            del waiting[: len(taken)]
            if not waiting:
                queue.pop(model, None)
        return batch

    def _embed_batch(self, model: str, texts: list[str]) -> None:
        """Embed ``texts`` and settle their callers' futures; then let the next batch start."""
        with self._lock:
            futures = [self._queued[(model, text)] for text in texts]
        try:
            vectors = list(self._embed(model, texts))  # one object per row: kept and returned alike
        except BaseException as error:  # every caller of the batch sees it; nothing is kept
            for future in futures:
                future.set_exception(error)
        else:
            self._keep(model, texts, vectors)
            for future, vector in zip(futures, vectors, strict=True):
                future.set_result(vector)
        finally:
            with self._lock:
                for text in texts:
                    self._queued.pop((model, text), None)
                self._embedding.discard(model)
                self._batch_ended.notify_all()

    def vector_with_cost(self, model: str, text: str) -> tuple[np.ndarray, float]:
        """The vector, and the seconds embedding it took for this request: embedded now, or ahead
        (reported once, to the first that asks this way), or 0 for a vector kept from before."""
        started = time.perf_counter()
        with self._lock:
            kept_before = (model, text) in self._vectors or (model, text) in self._pending
        vector = self.vector(model, text)
        with self._lock:
            ahead = self._ahead_seconds.pop((model, text), None)
        if ahead is not None:
            return vector, ahead
        return vector, 0.0 if kept_before else time.perf_counter() - started

    def embed_ahead(self, model: str, text: str) -> None:
        """Start embedding ``text`` on a thread of its own unless it is cached or under way."""
        key = (model, text)
        with self._lock:
            if key in self._vectors or key in self._pending or key in self._queued:
                return
            future: Future[np.ndarray] = Future()
            self._pending[key] = future

        def embed() -> None:
            started = time.perf_counter()
            try:
                vector = self._embed(model, [text])[0]
            except BaseException as error:  # handed to whoever asks for the vector
                future.set_exception(error)
            else:
                with self._lock:  # before the vector is kept: whoever finds it finds its cost too
                    self._ahead_seconds[key] = time.perf_counter() - started
                self._keep(model, [text], [vector])
                future.set_result(vector)
            finally:
                with self._lock:
                    self._pending.pop(key, None)

        threading.Thread(target=embed, name="query-vector-ahead", daemon=True).start()

    def warm(self, model: str, texts: Iterable[str]) -> None:
        """Embed the texts not kept yet, in batches of at most ``max_batch`` (evaluation embeds
        all its queries up front). They queue like misses, behind the texts callers ask for: a
        caller asking for one of them meanwhile moves it to the front, and it is embedded once."""
        self._vectors_of(model, list(dict.fromkeys(texts)), asked=False)

    def _keep(self, model: str, texts: list[str], vectors) -> None:
        with self._lock:
            for text, vector in zip(texts, vectors, strict=False):
                self._vectors[(model, text)] = vector
                self._vectors.move_to_end((model, text))
            while len(self._vectors) > self.capacity:
                evicted, _ = self._vectors.popitem(last=False)
                self._ahead_seconds.pop(evicted, None)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._vectors

    def __len__(self) -> int:
        with self._lock:
            return len(self._vectors)
