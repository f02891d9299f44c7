"""Query enhancement, before the routes: which texts the dense and BM25 routes search with.

``query.enhance`` picks the method:

- ``none``: the query as typed, for both routes;
- ``rewrite``: an LLM rewrites the query into one clear search query; both routes use it;
- ``multi``: an LLM writes ``query.variants`` other phrasings; the query and each phrasing run
  through both routes, and each route's lists are fused with RRF;
- ``decompose``: an LLM splits the question into up to ``query.variants`` sub-questions; the
  question and each sub-question run through both routes, fused with RRF like ``multi``;
- ``hyde``: an LLM writes a passage that would answer the question; the dense route searches
  with that passage's vector, BM25 still with the query;
- ``keywords``: no LLM. The query's most salient terms by BM25 idf over the collection (jieba
  segments Chinese); BM25 searches with them, the dense route with the query.

Rerank and the answer always see the query as typed. When the LLM is missing, slow or answers
something unusable, the query as typed is used for both routes and a note says why.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from store.text_tokenizer import cjk_words
from workbench.config import QueryConfig
from workbench.llm.client import LlmCall, LlmClient, LlmRequest, LlmUnavailable
from workbench.retrieval.stages import BM25, DENSE, ROUTES

ENHANCE_METHODS = ("none", "rewrite", "multi", "hyde", "decompose", "keywords")
LLM_METHODS = ("rewrite", "multi", "hyde", "decompose")
#: the origin of the query as typed, among the variants a route searches with
AS_TYPED = "query"
#: the longest generated query (or passage) kept; longer replies are cut here
MAX_GENERATED_CHARS = 2000

REWRITE_SYSTEM = (
    "You rewrite search queries for a document retrieval system. Rewrite the user's query into one clear, "
    "self-contained search query: spell out abbreviations, fix typos, keep every constraint and add no facts. "
    "Write it in the language of the query. Reply with the rewritten query only, on one line."
)
MULTI_SYSTEM = (
    "You write alternative phrasings of a search query for a document retrieval system. Write {n} different "
    "queries that ask for the same information in other words (synonyms, related terms, a broader and a narrower "
    "form). Write them in the language of the query. Reply with one query per line, without numbering, and nothing "
    "else."
)
DECOMPOSE_SYSTEM = (
    "You break a complex question into simpler sub-questions for a document retrieval system. Write at most {n} "
    "self-contained sub-questions that together answer the question; if it is already simple, repeat it as the "
    "only line. Write them in the language of the question. Reply with one sub-question per line, without "
    "numbering, and nothing else."
)
HYDE_SYSTEM = (
    "You write a short passage that answers a question, as it might appear in a reference document. Write three "
    "to five factual sentences in the language of the question, using the terms such a document would use. "
    "Reply with the passage only."
)
PROMPT_VERSIONS = {
    "rewrite": "query.rewrite@1",
    "multi": "query.multi@1",
    "decompose": "query.decompose@1",
    "hyde": "query.hyde@1",
}


@dataclass(frozen=True)
class QueryVariant:
    """One text a route searches with, where it came from, and which routes use it."""

    text: str
    origin: str  # "query" | "rewrite" | "multi 1" | "sub-question 2" | "hyde" | "keywords"
    routes: tuple[str, ...] = ROUTES

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "origin": self.origin, "routes": list(self.routes)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QueryVariant:
        return cls(data["text"], data["origin"], tuple(data.get("routes", ROUTES)))


@dataclass(frozen=True)
class EnhancedQuery:
    """The query stage's outcome: the texts each route searches with, and how they were made."""

    query: str
    method: str
    variants: tuple[QueryVariant, ...]
    calls: tuple[LlmCall, ...] = ()
    notes: tuple[str, ...] = ()
    fell_back: bool = False
    keyword_scores: dict[str, float] = field(default_factory=dict)  # keywords: term -> idf
    elapsed_ms: float = 0.0

    def for_route(self, route: str) -> list[QueryVariant]:
        return [variant for variant in self.variants if route in variant.routes]

    @property
    def generated(self) -> list[QueryVariant]:
        """What the method produced (everything but the query as typed)."""
        return [variant for variant in self.variants if variant.origin != AS_TYPED]

    @property
    def changes_retrieval(self) -> bool:
        return any(v.origin != AS_TYPED for v in self.variants)

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "method": self.method,
            "variants": [v.to_dict() for v in self.variants],
            "calls": [c.to_dict() for c in self.calls],
            "notes": list(self.notes),
            "fell_back": self.fell_back,
            "keyword_scores": dict(self.keyword_scores),
            "elapsed_ms": self.elapsed_ms,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EnhancedQuery:
        return cls(
            query=data["query"],
            method=data["method"],
            variants=tuple(QueryVariant.from_dict(v) for v in data.get("variants", ())),
            calls=tuple(LlmCall.from_dict(c) for c in data.get("calls", ())),
            notes=tuple(data.get("notes", ())),
            fell_back=bool(data.get("fell_back", False)),
            keyword_scores=dict(data.get("keyword_scores", {})),
            elapsed_ms=float(data.get("elapsed_ms", 0.0)),
        )


def needs_llm(method: str) -> bool:
    return method in LLM_METHODS


def enhance_query(
    query: str,
    config: QueryConfig,
    llm: LlmClient | None = None,
    idf_of: Callable[[str], float] | None = None,
) -> EnhancedQuery:
    """The texts the routes search with for ``query`` under ``config.enhance``.

    ``idf_of`` gives a word's BM25 idf in the collection (0 when absent); ``keywords`` needs it.
    """
    method = config.enhance
    if method not in ENHANCE_METHODS:
        raise ValueError(f"unknown query.enhance {method!r}; use one of {', '.join(ENHANCE_METHODS)}")
    as_typed = (QueryVariant(query, AS_TYPED),)
    if method == "none":
        return EnhancedQuery(query, method, as_typed)
    if method == "keywords":
        return _keywords(query, config, idf_of)
    if llm is None or not llm.available:
        reason = (
            llm.unavailable_reason(f"query.enhance={method}")
            if llm
            else f"query.enhance={method} needs an LLM endpoint"
        )
        return EnhancedQuery(
            query, method, as_typed, notes=(f"{reason}; searched with the query as typed",), fell_back=True
        )
    request, parse = _request(query, method, config.variants)
    try:
        call = llm.complete(request, timeout_s=config.timeout_s, parse=parse)
    except LlmUnavailable as error:
        return EnhancedQuery(
            query, method, as_typed, notes=(f"{error}; searched with the query as typed",), fell_back=True
        )
    if not call.ok:
        note = f"query enhancement ({method}) fell back to the query as typed: {call.error}"
        return EnhancedQuery(query, method, as_typed, (call,), (note,), fell_back=True)
    variants = _variants(query, method, parse(call.text))
    return EnhancedQuery(query, method, variants, (call,), (_summary(method, variants),))


def _request(query: str, method: str, variants: int) -> tuple[LlmRequest, Callable[[str], list[str]]]:
    version = PROMPT_VERSIONS[method]
    if method == "rewrite":
        return LlmRequest.of(
            "query.rewrite", version, REWRITE_SYSTEM, f"Query: {query}", max_tokens=200
        ), lambda text: _lines(text, 1)
    if method == "multi":
        return LlmRequest.of(
            "query.multi", version, MULTI_SYSTEM.format(n=variants), f"Query: {query}", max_tokens=100 * variants
        ), lambda text: _lines(text, variants)
    if method == "decompose":
        return LlmRequest.of(
            "query.decompose",
            version,
            DECOMPOSE_SYSTEM.format(n=variants),
            f"Question: {query}",
            max_tokens=100 * variants,
        ), lambda text: _lines(text, variants)
    return LlmRequest.of("query.hyde", version, HYDE_SYSTEM, f"Question: {query}", max_tokens=300), _passage


def _variants(query: str, method: str, generated: list[str]) -> tuple[QueryVariant, ...]:
    if method == "rewrite":
        return (QueryVariant(generated[0], "rewrite"),)
    if method == "hyde":
        return (QueryVariant(query, AS_TYPED, (BM25,)), QueryVariant(generated[0], "hyde", (DENSE,)))
    label = "multi" if method == "multi" else "sub-question"
    extra = [text for text in generated if text.casefold() != query.strip().casefold()]
    return (QueryVariant(query, AS_TYPED),) + tuple(
        QueryVariant(text, f"{label} {position}") for position, text in enumerate(extra, start=1)
    )


def _summary(method: str, variants: tuple[QueryVariant, ...]) -> str:
    generated = [variant.text for variant in variants if variant.origin != AS_TYPED]
    if method == "rewrite":
        return f"rewritten query: {generated[0]}"
    if method == "hyde":
        return f"dense route searched with a generated passage ({len(generated[0])} characters); BM25 with the query"
    what = "phrasings" if method == "multi" else "sub-questions"
    if not generated:
        return f"the generated {what} only repeat the query; searched with the query as typed"
    return f"{len(generated)} generated {what} searched beside the query; each route's lists fused with RRF"


_NUMBERING = re.compile(r"^\s*(?:[-*•·]+|\(?\d{1,2}[.)、:：]|[（(]\d{1,2}[)）])\s*")


def _lines(text: str, limit: int) -> list[str]:
    """Non-empty reply lines without list numbering or quotes, at most ``limit``; raises if none."""
    found: list[str] = []
    for line in text.splitlines():
        cleaned = _NUMBERING.sub("", line).strip().strip("\"'“”「」").strip()
        if re.search(r"\w", cleaned) and cleaned.casefold() not in {f.casefold() for f in found}:
            found.append(cleaned[:MAX_GENERATED_CHARS])
    if not found:
        raise ValueError("the reply holds no query")
    return found[:limit]


def _passage(text: str) -> list[str]:
    passage = " ".join(text.split())
    if not re.search(r"\w", passage):
        raise ValueError("the reply holds no passage")
    return [passage[:MAX_GENERATED_CHARS]]


# -- keywords (offline) -------------------------------------------------------------------------

_LATIN_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*", re.UNICODE)
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+")


def surface_words(query: str, segment_cjk: Callable[[str], list[str]]) -> list[str]:
    """The query's words as typed, in order: Latin words by regex, CJK runs cut by ``segment_cjk``."""
    words: list[str] = []
    position = 0
    for run in _CJK_RUN.finditer(query):
        words.extend(_LATIN_WORD.findall(query[position : run.start()]))
        words.extend(w for w in segment_cjk(run.group()) if w.strip())
        position = run.end()
    words.extend(_LATIN_WORD.findall(query[position:]))
    return words


def salient_terms(words: Sequence[str], idf_of: Callable[[str], float], limit: int) -> dict[str, float]:
    """The ``limit`` words with the highest idf (ties: earlier first), kept in query order.

    A word whose idf is 0 (a stopword, or absent from the collection) is never salient.
    """
    if limit < 1:
        raise ValueError(f"query.keywords must be at least 1, got {limit}")
    scored: dict[str, float] = {}
    for word in words:
        if word.casefold() in (w.casefold() for w in scored):
            continue
        scored[word] = float(idf_of(word))
    ranked = sorted((w for w in scored if scored[w] > 0 and math.isfinite(scored[w])), key=lambda w: -scored[w])[:limit]
    keep = set(ranked)
    return {word: scored[word] for word in scored if word in keep}


def _keywords(query: str, config: QueryConfig, idf_of: Callable[[str], float] | None) -> EnhancedQuery:
    as_typed = (QueryVariant(query, AS_TYPED),)
    if idf_of is None:
        return EnhancedQuery(
            query,
            "keywords",
            as_typed,
            notes=(
                "query.enhance=keywords needs the collection's BM25 term statistics, which "
                "this index backend does not expose (local indexes do); searched with the query "
                "as typed",
            ),
            fell_back=True,
        )
    scores = salient_terms(surface_words(query, cjk_words), idf_of, config.keywords)
    if not scores:
        return EnhancedQuery(
            query,
            "keywords",
            as_typed,
            notes=("no query term occurs in the collection; searched with the query as typed",),
            fell_back=True,
        )
    keywords = " ".join(scores)
    shown = ", ".join(f"{word} ({idf:.2f})" for word, idf in scores.items())
    return EnhancedQuery(
        query,
        "keywords",
        (QueryVariant(query, AS_TYPED, (DENSE,)), QueryVariant(keywords, "keywords", (BM25,))),
        notes=(f"BM25 searched with the salient terms by idf: {shown}",),
        keyword_scores=scores,
    )
