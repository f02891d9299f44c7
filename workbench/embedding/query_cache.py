"""Query vectors kept in memory, least recently used out first, so re-running a query never embeds it again.

Changing a query-time setting (fusion, MMR, rerank) re-runs the same query text: its vector
comes from here. Keys are (model, text); the cache is shared by the app's threads, so every
read and write holds one lock, and embedding itself runs outside it (a slow model never blocks
a hit). A query can be embedded ahead, on a thread of its own, while the app draws the rest of
its page; asking for it then waits for that embedding rather than making a second.
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


class QueryVectorCache:
    """At most ``capacity`` query vectors by (model, text), filled by ``embed`` on a miss."""

    def __init__(self, embed: EmbedQueries, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError(f"query-vector cache capacity must be at least 1, got {capacity}")
        self._embed = embed
        self.capacity = capacity
        self._vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        #: embeddings started by ``embed_ahead`` and not finished yet
        self._pending: dict[tuple[str, str], Future[np.ndarray]] = {}
        #: seconds each embedding made ahead took, until ``vector_with_cost`` reports it once
        self._ahead_seconds: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()

    def vector(self, model: str, text: str) -> np.ndarray:
        """``text``'s query vector under ``model``: cached, being embedded ahead (waited for), or
        embedded now and kept. An embedding ahead that failed raises its error here."""
        key = (model, text)
        with self._lock:
            found = self._vectors.get(key)
            if found is not None:
                self._vectors.move_to_end(key)
                return found
            pending = self._pending.get(key)
        if pending is not None:
            return pending.result()
        vector = self._embed(model, [text])[0]
        self._keep(model, [text], [vector])
        return vector

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
            if key in self._vectors or key in self._pending:
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
        """Embed the texts not cached yet in one batch (evaluation embeds all its queries at once)."""
        with self._lock:
            missing = [text for text in dict.fromkeys(texts) if (model, text) not in self._vectors]
        if missing:
            self._keep(model, missing, self._embed(model, missing))

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
