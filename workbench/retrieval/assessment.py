"""Measuring the confidence signals of one query on a loaded snapshot.

``workbench.retrieval.confidence`` holds the maths; this module reads the numbers it needs from
the pipeline's ranked lists and the snapshot: the BM25 index's term statistics (through its
``explain``), the dense stage's best cosine against the collection's background, and the rerank
stage's scores.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from store.index_set import Snapshot
from store.retrieval_index import lucene_idf
from store.text_tokenizer import STOPWORD_LISTS, Bm25Tokenizer
from workbench.config import ConfidenceConfig
from workbench.retrieval.confidence import (
    DENSE,
    RERANK,
    TERMS,
    Confidence,
    Evidence,
    SimilarityBaseline,
    dense_excess,
    dense_z,
    expected_best_z,
    judge,
    probability,
    similarity_baseline,
    term_coverage,
)
from workbench.retrieval.language_guard import LanguageCheck
from workbench.retrieval.ranking import RankedList

#: words that carry no topic, for the ``terms`` signal: NLTK's English stopwords (question words,
#: auxiliaries, pronouns), a superset of the index's default list, and Chinese particles, question
#: words and auxiliaries as jieba cuts them ("怎么", "是否", "的"). The Chinese question words of
#: quantity, place and time ("多少", "几", "哪里") and the modals ("应该", "需要") count as NLTK's
#: "how", "where" and "should" do: a handbook never writes "是多少", and weighed as unseen, "多少" alone
#: sank "混合检索加 Cross-Encoder 重排的 NDCG@10 是多少？" to no_answer though its top hit answers it (issue 48)
FUNCTION_WORDS = STOPWORD_LISTS["en_plus"] | frozenset(
    "的 地 得 了 着 过 是 在 和 与 及 或 或者 把 被 将 对 从 向 这 那 这个 那个 这些 那些 哪 哪个 哪些 什么 "
    "怎么 怎样 怎么样 如何 为什么 为何 吗 呢 吧 啊 是否 能否 可以 能 会 要 一个 一种 一些 其 之 也 都 就 还 "
    "又 请问 我 你 他 她 它 我们 你们 他们 "
    "多少 几 几个 哪里 哪儿 谁 何时 何处 多大 多久 多长 什么样 是不是 有没有 有 没有 "
    "应该 应当 需要 该 分别 各 各自 以内 之内 之间 时候 的话".split()
)
#: chunk vectors drawn for a collection's similarity background (400 give 79,800 pairs)
BASELINE_SAMPLE = 400

_baselines: weakref.WeakKeyDictionary[Snapshot, SimilarityBaseline | None] = weakref.WeakKeyDictionary()
_baselines_lock = threading.Lock()


@dataclass(frozen=True)
class RerankScores:
    """What the rerank stage measured: each rescored chunk's score and the score's kind."""

    scores: dict[int, float]
    kind: str  # probability | logit
    model: str


class DeferredConfidence:
    """``assess`` with its arguments, run when called: what a trace holds until its verdict is read.

    A pickled one is its result (the snapshot it reads is not picklable, the verdict is)."""

    __slots__ = ("_assess",)

    def __init__(
        self,
        query: str,
        final: RankedList,
        dense: RankedList | None,
        reranked: RerankScores | None,
        snapshot: Snapshot,
        config: ConfidenceConfig,
        language: LanguageCheck,
        searched: int,
    ) -> None:
        self._assess = partial(assess, query, final, dense, reranked, snapshot, config, language, searched)

    def __call__(self) -> Confidence:
        return self._assess()

    def __reduce__(self) -> tuple[Callable[[Confidence], Confidence], tuple[Confidence]]:
        return _measured, (self(),)


def _measured(confidence: Confidence) -> Confidence:
    return confidence


def dense_baseline(snapshot: Snapshot) -> SimilarityBaseline | None:
    """The snapshot's similarity background, computed once per loaded snapshot."""
    with _baselines_lock:
        if snapshot in _baselines:
            return _baselines[snapshot]
    baseline = None
    if snapshot.dense is not None and len(snapshot.dense):
        ids = np.sort(np.asarray(snapshot.dense.ids(), dtype=np.int64))
        if len(ids) > BASELINE_SAMPLE:
            ids = np.sort(np.random.default_rng(0).choice(ids, size=BASELINE_SAMPLE, replace=False))
        baseline = similarity_baseline(snapshot.dense.vectors_for(ids), sample=BASELINE_SAMPLE)
    with _baselines_lock:
        _baselines[snapshot] = baseline
    return baseline


def assess(
    query: str,
    final: RankedList,
    dense: RankedList | None,
    reranked: RerankScores | None,
    snapshot: Snapshot,
    config: ConfidenceConfig,
    language: LanguageCheck,
    searched: int,
) -> Confidence:
    """The verdict for ``final`` (the list the user gets) with its evidence. ``searched`` is how
    many chunks the dense route could return (the collection, or what the filters allow)."""
    top = list(final.ids[: config.top_hits])
    evidence = [
        _terms(query, top, snapshot, config),
        _dense(dense, snapshot, config, language, searched),
        _rerank(top, reranked, config, language),
    ]
    return judge(evidence, len(final))


def _terms(query: str, chunk_ids: list[int], snapshot: Snapshot, config: ConfidenceConfig) -> Evidence:
    thresholds = (config.terms_low, config.terms_high)
    sparse = snapshot.sparse
    if not sparse.supports_explain:
        return Evidence(TERMS, None, *thresholds, False, "the keyword index cannot show which terms a chunk holds")
    explained = [(cid, sparse.explain(query, cid).parts) for cid in chunk_ids if cid in snapshot.chunks]
    if not chunk_ids or not explained:
        return Evidence(TERMS, None, *thresholds, False, "no hit to compare the query's terms with")
    rows = explained[0][1]
    if not rows:
        return Evidence(
            TERMS,
            None,
            *thresholds,
            False,
            "the query has no term the keyword index reads (only stopwords, digits or punctuation)",
        )
    # a function word ("does", "how", "which") names no topic: the keyword index may keep it, but a
    # collection that never writes "does" is no sign that a question with it has no answer there
    function = function_terms(query, sparse.tokenizer)
    rows = tuple(row for row in rows if row["term"] not in function)
    if not rows:
        return Evidence(TERMS, None, *thresholds, False, "the query has only function words (how, does, what…)")
    explained = [(cid, tuple(row for row in parts if row["term"] not in function)) for cid, parts in explained]
    unseen_idf = lucene_idf(0, max(len(sparse), 1))
    idf = {row["term"]: (row["idf"] if row["df"] else unseen_idf) for row in rows}
    unseen = [row["term"] for row in rows if not row["df"]]
    matches = [term_coverage(idf, [row["term"] for row in hit_rows if row["tf"]]) for _cid, hit_rows in explained]
    best = max(matches, key=lambda match: match.coverage)  # the first of equal coverages: the better-ranked hit
    best_rank = matches.index(best) + 1
    unseen_text = f"; never in the collection: {', '.join(unseen)}" if unseen else ""
    detail = (
        f"hit {best_rank} holds {len(best.matched)} of the query's {len(idf)} terms, "
        f"{best.coverage:.0%} of their idf weight{unseen_text}"
    )
    numbers = {
        "best_hit": best_rank,
        "matched": list(best.matched),
        "missing": list(best.missing),
        "idf": {term: round(weight, 4) for term, weight in idf.items()},
    }
    return Evidence(TERMS, best.coverage, *thresholds, True, detail, numbers)


def function_terms(query: str, tokenizer: Bm25Tokenizer) -> set[str]:
    """The index terms of ``query`` that come from function words (``FUNCTION_WORDS``): the
    ``terms`` signal leaves them out, whichever stopwords the index uses."""
    forms = tokenizer.surface_forms(query)
    return {term for term, word in forms.items() if word.lower() in FUNCTION_WORDS}


def _dense(
    dense: RankedList | None, snapshot: Snapshot, config: ConfidenceConfig, language: LanguageCheck, searched: int
) -> Evidence:
    thresholds = (config.dense_low, config.dense_high)
    if dense is None:
        return Evidence(DENSE, None, *thresholds, False, "the dense route did not run")
    if not dense.ids:
        return Evidence(DENSE, None, *thresholds, False, "the dense route returned nothing")
    baseline = dense_baseline(snapshot)
    top = float(dense.scores[0])
    if baseline is None:
        return Evidence(
            DENSE,
            None,
            *thresholds,
            False,
            f"best cosine {top:.3f}; too few chunks to know what an unrelated cosine looks like",
            {"top_cosine": top},
        )
    z, chance = dense_z(top, baseline), expected_best_z(searched)
    excess = dense_excess(top, baseline, searched)
    numbers = {
        "top_cosine": round(top, 6),
        "z": round(z, 4),
        "expected_best_z": round(chance, 4),
        "searched": searched,
        "background_mean": round(baseline.mean, 6),
        "background_sd": round(baseline.sd, 6),
        "background_pairs": baseline.pairs,
    }
    detail = (
        f"best cosine {top:.3f} is {z:.1f} sd above this collection's background (random chunk pairs: "
        f"mean {baseline.mean:.3f}, sd {baseline.sd:.3f}); the best of {searched:,} unrelated chunks would "
        f"reach about {chance:.1f} sd by chance, so it stands {excess:+.1f} sd above chance"
    )
    if language.embedding.covered is False:
        return Evidence(
            DENSE,
            excess,
            *thresholds,
            False,
            f"{language.embedding.model} does not read {language.embedding.text_language}, so it does "
            f"not count: {detail}",
            numbers,
        )
    return Evidence(DENSE, excess, *thresholds, True, detail, numbers)


def _rerank(
    chunk_ids: list[int], reranked: RerankScores | None, config: ConfidenceConfig, language: LanguageCheck
) -> Evidence:
    thresholds = (config.rerank_low, config.rerank_high)
    if reranked is None:
        return Evidence(RERANK, None, *thresholds, False, "no rerank stage ran")
    scored = [reranked.scores[cid] for cid in chunk_ids if cid in reranked.scores]
    if not scored:
        return Evidence(RERANK, None, *thresholds, False, "the reranker scored none of the top hits")
    best = max(scored)
    value = probability(best, reranked.kind)
    detail = f"{reranked.model} gives the best top hit {value:.2f}" + (
        f" (logit {best:.2f})" if reranked.kind != "probability" else ""
    )
    numbers = {"best_score": best, "score_kind": reranked.kind}
    if language.rerank is not None and language.rerank.covered is False:
        return Evidence(
            RERANK,
            value,
            *thresholds,
            False,
            f"{reranked.model} does not read {language.rerank.text_language}, so it does not count: {detail}",
            numbers,
        )
    return Evidence(RERANK, value, *thresholds, True, detail, numbers)
