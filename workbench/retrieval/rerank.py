"""Cross-encoder reranking of the top of a ranked list, with a safe fallback.

Reranking is an optional refinement: if the model cannot be loaded, raises, or is too slow,
the query must still be answered, so ``rerank`` keeps the previous order and says why.
"""

from __future__ import annotations

import math
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeoutError
from dataclasses import dataclass, field

from workbench.config import AUTO_RUNTIME
from workbench.models.long_lived import exempt_from_collection
from workbench.retrieval.cross_encoder import OpenedCrossEncoder, RerankerLoadError
from workbench.retrieval.ranking import RankedList
from workbench.retrieval.rerank_calibration import open_reranker_runtime, read_rerank_calibrations
from workbench.retrieval.stages import RERANK


class Reranker(ABC):
    """Scores (query, text) pairs; a higher score means more relevant."""

    @abstractmethod
    def score(self, query: str, texts: list[str]) -> list[float]:
        """One score per text, in the order of ``texts``."""

    @property
    def name(self) -> str:
        """How notes and the UI refer to this reranker."""
        return type(self).__name__

    @property
    def scored_by(self) -> str:
        """The runtime and precision that computed the scores (``openvino-bf16``); "" when not local."""
        return ""

    @property
    def runtime_notes(self) -> tuple[str, ...]:
        """Why the scores did not come from the runtime asked for (a fallback), if they did not."""
        return ()

    @property
    def score_kind(self) -> str:
        """``probability`` when scores are already in [0, 1], else ``logit`` (the confidence
        verdict reads a logit through the logistic function)."""
        return "logit"


_loaded_models: dict[tuple[str, str, str], OpenedCrossEncoder] = {}
# One lock for the cache: holding it while loading also stops two threads loading the same model twice.
_loaded_models_lock = threading.Lock()


class CrossEncoderReranker(Reranker):
    """A ``sentence_transformers.CrossEncoder`` on the runtime ``rerank.runtime`` names, loaded
    offline on first use and cached per name and runtime.

    Loading is deferred to the first ``score`` call so that it runs inside ``rerank``'s guarded
    worker thread: a missing or broken model then becomes a fallback note, not a failed query.
    Call ``load()`` to warm the model up front instead. Under ``auto`` with no calibration on this
    machine yet, the first load starts it in the background and scores with torch fp32 (saying so)
    until it is recorded.
    """

    def __init__(self, model_name_or_path: str, runtime: str = "torch", precision: str = "fp32") -> None:
        if not model_name_or_path:
            raise ValueError("CrossEncoderReranker needs a model id or local path (rerank.model)")
        self.model_name_or_path = model_name_or_path
        self.runtime = runtime
        self.precision = "" if runtime == AUTO_RUNTIME else precision

    @property
    def name(self) -> str:
        return self.model_name_or_path

    def load(self) -> OpenedCrossEncoder:
        key = (self.model_name_or_path, self.runtime, self.precision)
        with _loaded_models_lock:
            opened = _loaded_models.get(key)
            if opened is None or (opened.provisional and self.model_name_or_path in read_rerank_calibrations()):
                # a query never waits for auto's calibration: it runs in the background meanwhile
                opened = open_reranker_runtime(*key, wait=False)
                _loaded_models[key] = opened
                exempt_from_collection()
            return opened

    @property
    def scored_by(self) -> str:
        return self.load().key

    @property
    def runtime_notes(self) -> tuple[str, ...]:
        note = self.load().note
        return (note,) if note else ()

    @property
    def score_kind(self) -> str:
        # sentence-transformers applies the model's own activation: a sigmoid for most one-logit
        # models, none for the MS MARCO cross-encoders, whose config asks for raw logits
        import torch

        return "probability" if isinstance(self.load().model.activation_fn, torch.nn.Sigmoid) else "logit"

    def score(self, query: str, texts: list[str]) -> list[float]:
        if not texts:
            return []
        return [float(value) for value in self.load().score_pairs([(query, text) for text in texts])]


def load_reranker(model: str, runtime: str = "torch", precision: str = "fp32") -> Reranker | None:
    """The reranker for a ``rerank.model`` value on ``rerank.runtime`` at ``rerank.precision``;
    ``""`` means reranking is off."""
    model = model.strip()
    return CrossEncoderReranker(model, runtime, precision) if model else None


@dataclass(frozen=True)
class RerankOutcome:
    """The reranked list, what happened, and the cross-encoder score of each rescored chunk."""

    ranked: RankedList
    notes: tuple[str, ...] = ()
    scores: dict[int, float] = field(default_factory=dict)
    fell_back: bool = False


def rerank(
    query: str,
    run: RankedList,
    texts: Mapping[int, str],
    reranker: Reranker | None,
    top_m: int,
    timeout_s: float,
    name: str = RERANK,
) -> RerankOutcome:
    """Reorder the first ``top_m`` hits of ``run`` by ``reranker`` scores.

    Hits beyond ``top_m`` follow, in their previous order and with their previous scores (the
    cross-encoder never saw them; ``RerankOutcome.scores`` holds only the rescored chunks). Ties
    in the cross-encoder score keep the previous order.

    Scoring runs in a worker thread. If it raises, returns unusable scores, or takes longer than
    ``timeout_s`` seconds, the previous order is kept, ``fell_back`` is set and a note explains
    why; a timed-out thread is abandoned, not waited for.
    """
    if top_m < 0:
        raise ValueError(f"rerank top_m must be >= 0 (rerank.top_m), got {top_m}")
    if not timeout_s > 0:
        raise ValueError(f"rerank timeout must be > 0 seconds (rerank.timeout_s), got {timeout_s}")
    if reranker is None:
        return RerankOutcome(run.renamed(name), notes=("no rerank model configured; kept the previous order",))

    head, tail = run.hits[:top_m], run.hits[top_m:]
    fallback = f"rerank fell back to the previous order ({run.name!r}): model {reranker.name!r}"

    def score_head() -> list[float]:
        head_texts = [_text_of(texts, hit.chunk_id) for hit in head]
        scores = reranker.score(query, head_texts)
        _check_scores(scores, len(head_texts))
        return [float(value) for value in scores]

    try:
        scores = _call_with_timeout(score_head, timeout_s)
    except _RerankTimeout:
        return RerankOutcome(run.renamed(name), notes=(f"{fallback} timed out after {timeout_s} s",), fell_back=True)
    except RerankerLoadError as error:
        return RerankOutcome(run.renamed(name), notes=(f"{fallback} failed: {error}",), fell_back=True)
    except Exception as error:
        reason = f"{type(error).__name__}: {error}"
        return RerankOutcome(run.renamed(name), notes=(f"{fallback} failed: {reason}",), fell_back=True)

    # Sorting previous positions by score keeps the previous order among equal scores (sort is stable).
    order = sorted(range(len(head)), key=lambda i: -scores[i])
    reranked = [(head[i].chunk_id, head[i].doc_id, scores[i]) for i in order]
    reranked += [(hit.chunk_id, hit.doc_id, hit.score) for hit in tail]
    on = f" on {reranker.scored_by}" if reranker.scored_by else ""
    return RerankOutcome(
        RankedList.from_ordered(name, reranked),
        notes=(f"reranked the top {len(head)} of {len(run)} hits with {reranker.name!r}{on}", *reranker.runtime_notes),
        scores={hit.chunk_id: score for hit, score in zip(head, scores, strict=False)},
    )


def _text_of(texts: Mapping[int, str], chunk_id: int) -> str:
    try:
        return texts[chunk_id]
    except KeyError:
        raise ValueError(f"no text for chunk {chunk_id} to rerank; pass every reranked chunk's text") from None


def _check_scores(scores: list[float], expected: int) -> None:
    if len(scores) != expected:
        raise ValueError(f"reranker returned {len(scores)} scores for {expected} texts")
    bad = [value for value in scores if not math.isfinite(float(value))]
    if bad:
        raise ValueError(f"reranker returned non-finite scores {bad[:3]}")


def _call_with_timeout(function: Callable[[], list[float]], timeout_s: float) -> list[float]:
    """Run ``function`` in a daemon thread and wait at most ``timeout_s`` for its result.

    A plain thread rather than a ThreadPoolExecutor: executors join their workers at interpreter
    exit, so a hung model call would keep the process alive; a daemon thread is simply dropped.
    """
    future: Future[list[float]] = Future()

    def run() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(function())
        except BaseException as error:  # handed to the waiting caller, which decides what to do
            future.set_exception(error)

    threading.Thread(target=run, name="rerank-worker", daemon=True).start()
    try:
        return future.result(timeout=timeout_s)
    except FutureTimeoutError:
        # The same exception type may come from inside the reranker (a network timeout, say);
        # only an unfinished future means *we* ran out of time.
        if future.done():
            raise
        raise _RerankTimeout() from None


class _RerankTimeout(Exception):
    """The worker thread did not finish within the rerank timeout."""
