"""The one-off work of a query, done before either side of an A/B comparison is timed.

The first query on a fresh process pays for things the next one does not: reading the indexes,
loading the embedding and rerank models (and their first, slower forward pass), embedding the
query, loading the Chinese word segmenter for the first Chinese query, and whatever else loads
lazily the first time a language meets an index (postings read from disk, stemmer caches). If
side A ran first it would carry all of that and B none, and identical settings would look 100
times apart. ``warm_up`` does that work first, for every configuration about to run (the first
query of each language on an index runs once, untimed and unlogged), and says what it cost, so
the page shows it apart as the first-use cost and the stages' own times compare fairly.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial

from store.text_tokenizer import cjk_character_count, load_segmenter, segmenter_loaded
from workbench.config import WorkbenchConfig
from workbench.facade import WorkbenchFacade
from workbench.language.scripts import LanguageMix
from workbench.retrieval.llm_cost import llm_calls_per_query


@dataclass(frozen=True)
class FirstUseStep:
    what: str  # "load the indexes of demo", "load embedding model all-MiniLM-L6-v2", ...
    ms: float


@dataclass(frozen=True)
class FirstUseCost:
    steps: tuple[FirstUseStep, ...]

    @property
    def total_ms(self) -> float:
        return sum(step.ms for step in self.steps)

    def describe(self) -> str:
        """``1,065 ms before either side ran: load embedding model x 980 ms, …``; "" when nothing was slow."""
        shown = [step for step in self.steps if step.ms >= 1.0]
        if not shown:
            return ""
        parts = ", ".join(f"{step.what} {step.ms:,.0f} ms" for step in shown)
        return f"First-use cost, paid once before either side was timed ({self.total_ms:,.0f} ms): {parts}"


#: models that already ran their first forward pass in this process
_WARMED: set[tuple[str, str]] = set()
#: (index folder, query language) pairs that met their first query in this process
_FIRST_QUERIES: set[tuple[str, str]] = set()


def embedding_warmed(model: str) -> bool:
    """Whether the embedder ``model`` (an embedder key) already ran its first forward pass here."""
    return ("embed", model) in _WARMED


def _timed(steps: list[FirstUseStep], what: str, work: Callable[[], object]) -> object:
    started = time.perf_counter()
    result = work()
    steps.append(FirstUseStep(what, (time.perf_counter() - started) * 1000))
    return result


def warm_up(bench: WorkbenchFacade, collection: str, query: str, configs: Iterable[WorkbenchConfig]) -> FirstUseCost:
    """Load what every config needs and embed the query once per embedding model.

    Work already done (a loaded model, a cached
    query vector) takes next to nothing the second time, so this is cheap after the first query.
    Failures are left to the real run, which reports them on its own side.
    """
    from workbench.embedding import get_embedder
    from workbench.retrieval.rerank import load_reranker

    steps: list[FirstUseStep] = []
    embedded: set[str] = set()
    for config in configs:
        try:
            snapshot = _timed(steps, f"load the indexes of {collection}", partial(bench.snapshot, collection, config))
            # the key, not the bare model name: the query's run reads its vector under the key
            # (``model@openvino-bf16``), so embedding it under the name would embed it twice
            model = config.embedding.key
            if (config.retrieval.mode != "bm25" or config.mmr.enabled) and model not in embedded:
                embedded.add(model)
                embedder = get_embedder(model)
                if ("embed", model) not in _WARMED and not getattr(embedder, "remote", False):
                    _timed(
                        steps,
                        f"load embedding model {model}",
                        partial(embedder.embed_queries, ["warm up"]),
                    )
                    _WARMED.add(("embed", model))
                # what embedding it took, also when it ran ahead while the page was drawn
                steps.append(FirstUseStep("embed the query", bench.embed_query_cost_ms(model, query)))
            reranker_name = config.rerank.model.strip()
            if config.rerank.method != "llm" and reranker_name and ("rerank", reranker_name) not in _WARMED:
                reranker = load_reranker(reranker_name, config.rerank.runtime, config.rerank.precision)
                if reranker is not None:  # always, for a model name
                    _timed(steps, f"load rerank model {reranker_name}", partial(reranker.score, query, ["warm up"]))
                    _WARMED.add(("rerank", reranker_name))
            if cjk_character_count(query) and not segmenter_loaded():
                _timed(steps, "load the Chinese word segmenter (jieba)", load_segmenter)
            _first_query_of_its_language(bench, collection, query, config, snapshot, steps)
        except Exception:  # the side's own run shows the error where it belongs
            continue
    return FirstUseCost(_merge(steps))


def _first_query_of_its_language(
    bench: WorkbenchFacade,
    collection: str,
    query: str,
    config: WorkbenchConfig,
    snapshot: object,
    steps: list[FirstUseStep],
) -> None:
    """Run the first query of a language on an index once, untimed and unlogged: whatever loads
    lazily then (postings, caches) is first-use cost, not side A's. Not for a configuration that
    calls the LLM: that run would cost real calls."""
    language = LanguageMix.of(query).language or "other"
    key = (str(getattr(snapshot, "folder", collection)), language)
    if key in _FIRST_QUERIES or llm_calls_per_query(config).calls:
        return
    _timed(
        steps, f"first {language} query on these indexes (lazy loads)", partial(bench.query, query, collection, config)
    )
    _FIRST_QUERIES.add(key)


def _merge(steps: list[FirstUseStep]) -> tuple[FirstUseStep, ...]:
    merged: dict[str, float] = {}
    for step in steps:
        merged[step.what] = merged.get(step.what, 0.0) + step.ms
    return tuple(FirstUseStep(what, ms) for what, ms in merged.items())
