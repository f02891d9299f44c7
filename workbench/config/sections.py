"""The configuration's sections for what retrieval is built and run with: one frozen dataclass per
stage, each field declared with ``setting`` (``operations`` holds the sections that do not change
what a query returns: ingest limits, golden-set writing, the query log).

A section's ``LIFETIME`` is the lifetime of its fields unless a field declares its own: the
dense section's graph parameters are index-time, its beam width query-time; Milvus's place is
index-time, its credentials and timeouts are not.
"""

from __future__ import annotations

import re
import typing
from dataclasses import dataclass
from typing import ClassVar, Protocol

from workbench.config.fields import ConfigError, Lifetime, setting
from workbench.plugins import registry_of


@dataclass(frozen=True)
class ChunkingConfig:
    LIFETIME: ClassVar[Lifetime] = Lifetime.INDEX

    strategy: str = setting(
        "recursive",
        "how documents are split: recursive at Markdown-aware separators, markdown at headings, "
        "fixed by length, sentence_window and semantic at sentences, code at functions, classes and methods",
        plugins="chunking strategy",
    )
    size: int = setting(1000, "maximum chunk length in chunking.unit", minimum=1, maximum=100_000)
    overlap: int = setting(
        100,
        "characters (or tokens) shared by neighbouring chunks (fixed, recursive); below chunking.size",
        minimum=0,
        maximum=100_000,
    )
    unit: str = setting(
        "chars",
        "what chunking.size counts: characters, or tokens of the embedding model's tokenizer",
        choices=("chars", "tokens"),
    )
    window: int = setting(1, "sentence_window: sentences of context each side", minimum=0, maximum=20)
    threshold: float = setting(
        0.25, "semantic: break where adjacent-sentence similarity falls below this quantile", minimum=0.0, maximum=1.0
    )
    context_headers: bool = setting(True, "index the heading path in front of each chunk's text")
    enrich: str = setting(
        "none",
        "LLM-written chunk metadata stored at index time (needs an LLM endpoint): none, title, summary, tags or all",
        choices=("none", "title", "summary", "tags", "all"),
    )
    enrich_index: bool = setting(
        False, "put the enrichment (chunking.enrich) into the indexed text, so BM25 and the vectors see it"
    )
    fit_window: bool = setting(
        True,
        "cut every chunk longer than the embedding model's window (its max_seq_length in its own tokens, "
        "heading path included; all-MiniLM-L6-v2: 256) so the encoder reads each one whole; chunks in a "
        "language the model does not read are left whole; off keeps chunks at chunking.size, and ingest, "
        "the Documents page and the Chunking lab count those over it",
    )


#: the encoder runtime a new collection resolves by calibration (``workbench.embedding.calibration``)
AUTO_RUNTIME = "auto"
#: every precision some encoder runtime runs; which ones each runs is the runtime plugin's to say
PRECISIONS = ("fp32", "bf16", "int8")


class _Precisions(Protocol):
    precisions: tuple[str, ...]


def check_precision(section: str, runtime: str, precision: str) -> None:
    """A ``ConfigError`` when the encoder runtime ``runtime`` does not run ``precision``."""
    if runtime == AUTO_RUNTIME:
        return  # calibration picks the precision with the runtime
    runtimes = registry_of("encoder runtime")
    if runtime not in runtimes:
        return  # the runtime's own choices check names it
    allowed = typing.cast(_Precisions, runtimes.get(runtime)).precisions
    if precision not in allowed:
        table = "; ".join(
            f"{name}: {', '.join(typing.cast(_Precisions, plugin).precisions)}" for name, plugin in runtimes.items()
        )
        raise ConfigError(
            f"{section}.precision: {precision!r} is not available with {section}.runtime={runtime}; "
            f"it allows {', '.join(allowed)} ({table})"
        )


@dataclass(frozen=True)
class EmbeddingConfig:
    LIFETIME: ClassVar[Lifetime] = Lifetime.INDEX

    model: str = setting("all-MiniLM-L6-v2", "sentence-transformers id or local path; all-MiniLM-L6-v2 is bundled")
    runtime: str = setting(
        AUTO_RUNTIME,
        "what runs the encoder: auto (a new collection takes the fastest runtime and precision this "
        "machine's calibration found with cosine ≥ 0.999 to torch fp32, ≥ 0.99 for int8 on texts it was not "
        "calibrated on), torch, openvino or onnx; fixed per collection",
        choices=(AUTO_RUNTIME,),
        plugins="encoder runtime",
    )
    precision: str = setting(
        "fp32",
        "encoder arithmetic: fp32; bf16 (torch, openvino); int8 (openvino: static, per channel; onnx: "
        "dynamic, per channel, feed-forward outputs in fp32); ignored under auto",
        choices=PRECISIONS,
    )

    @property
    def key(self) -> str:
        """What the embedder registry and the embedding cache know these vectors by: the bare model
        for torch fp32 (so caches and layouts from before runtimes stay valid), else
        ``model@runtime-precision``. An unresolved ``auto`` reads as torch fp32: a collection
        stores the runtime calibration chose, and every query reads the collection's."""
        if self.runtime in (AUTO_RUNTIME, "torch") and (self.runtime == AUTO_RUNTIME or self.precision == "fp32"):
            return self.model
        return f"{self.model}@{self.runtime}-{self.precision}"

    def __post_init__(self) -> None:
        check_precision("embedding", self.runtime, self.precision)


_RUNTIME_SUFFIX = re.compile(r"@([a-z][a-z0-9_]*)-(fp32|bf16|int8)$")


def embedding_settings(key: str) -> dict[str, str]:
    """The ``embedding.*`` keys behind an embedder key (``EmbeddingConfig.key``'s inverse)."""
    found = _RUNTIME_SUFFIX.search(key)
    if found is None:
        return {"embedding.model": key, "embedding.runtime": "torch", "embedding.precision": "fp32"}
    return {
        "embedding.model": key[: found.start()],
        "embedding.runtime": found.group(1),
        "embedding.precision": found.group(2),
    }


@dataclass(frozen=True)
class DenseConfig:
    LIFETIME: ClassVar[Lifetime] = Lifetime.INDEX

    m: int = setting(16, "HNSW graph degree M", minimum=2, maximum=256)
    ef_construction: int = setting(200, "HNSW build-time beam width", minimum=1, maximum=100_000)
    ef_search: int = setting(128, "HNSW query-time beam width", minimum=1, maximum=100_000, lifetime=Lifetime.QUERY)
    exact: bool = setting(False, "brute-force cosine search instead of HNSW", lifetime=Lifetime.QUERY)


@dataclass(frozen=True)
class Bm25Config:
    LIFETIME: ClassVar[Lifetime] = Lifetime.INDEX

    k1: float = setting(1.2, "BM25 term-frequency saturation", minimum=0.0, maximum=10.0)
    b: float = setting(0.75, "BM25 length normalisation", minimum=0.0, maximum=1.0)
    stopwords: str = setting(
        "en",
        "English words BM25 leaves out of chunks and queries: en (bm25s's 33 function words: the, of, and, "
        "is…), en_plus (179 words, NLTK's list: adds question and pronoun words such as what, how, which, "
        "you), or none",
        choices=("en", "en_plus", "none"),
    )


@dataclass(frozen=True)
class IndexConfig:
    LIFETIME: ClassVar[Lifetime] = Lifetime.INDEX

    backend: str = setting(
        "local",
        "where the indexes live: local (files in the home) or milvus (Milvus Lite or a Milvus server, see milvus.*)",
        plugins="index backend",
    )


@dataclass(frozen=True)
class MilvusConfig:
    """Where and how a collection with ``index.backend = milvus`` keeps its indexes."""

    LIFETIME: ClassVar[Lifetime] = Lifetime.INDEX

    # The index-time keys say where a layout's collection lives and how it is analysed: they are
    # part of the layout's key (``backend_place``). The token, batch size and timeout are per process.

    uri: str = setting(
        "indexes/milvus.db",
        "a Milvus Lite file (a relative path is inside the home) or a Milvus server, http://host:19530",
    )
    token: str = setting(
        "",
        "Milvus credentials (user:password or an API key); never stored with the collection; or set MILVUS_TOKEN",
        lifetime=Lifetime.USAGE,
    )
    collection_prefix: str = setting(
        "workbench_", "start of the Milvus collection names; give each home that shares a Milvus its own"
    )
    analysis: str = setting(
        "client",
        "who turns text into BM25 terms: client (the workbench tokenizer, as the local "
        "index) or server (Milvus's analyzer)",
        choices=("client", "server"),
    )
    analyzer: str = setting(
        "auto",
        "server analysis: Milvus's analyzer; auto picks jieba for Chinese text, else "
        "standard with English stop words and stemming",
        choices=("auto", "standard", "jieba"),
    )
    batch_size: int = setting(
        1000, "rows per insert when pushing chunks to Milvus", minimum=1, maximum=100_000, lifetime=Lifetime.USAGE
    )
    timeout_s: float = setting(
        10.0, "seconds before a Milvus call gives up", minimum=0.1, maximum=3600.0, lifetime=Lifetime.USAGE
    )


@dataclass(frozen=True)
class RetrievalConfig:
    LIFETIME: ClassVar[Lifetime] = Lifetime.QUERY

    mode: str = setting(
        "hybrid",
        "the routes searched: dense vectors, BM25 keywords, or both fused",
        choices=("dense", "bm25", "hybrid"),
    )
    # 1000: evaluation ranks three chunks per document at document level, so map@100 needs 300
    top_k: int = setting(10, "results returned", minimum=1, maximum=1000)
    candidates: int = setting(
        100, "candidates taken from each route (dense, BM25) before fusion", minimum=1, maximum=10_000
    )
    language_guard: str = setting(
        "auto",
        "auto: the dense route gets no vote in fusion when its model does not cover the query's language "
        "(the trace says so); off: it always votes",
        choices=("auto", "off"),
    )


@dataclass(frozen=True)
class QueryConfig:
    LIFETIME: ClassVar[Lifetime] = Lifetime.QUERY

    enhance: str = setting(
        "none",
        "query enhancement before the routes: rewrite, multi (phrasings), hyde (a generated passage for the "
        "dense route) and decompose (sub-questions) need an LLM endpoint; keywords (salient terms by BM25 idf, "
        "for BM25) needs none",
        choices=("none", "rewrite", "multi", "hyde", "decompose", "keywords"),
    )
    variants: int = setting(3, "multi / decompose: generated queries searched beside the query", minimum=1, maximum=10)
    keywords: int = setting(6, "keywords: salient terms kept for BM25", minimum=1, maximum=50)
    timeout_s: float = setting(
        30.0,
        "seconds before query enhancement gives up and searches with the query as typed",
        minimum=0.1,
        maximum=3600.0,
    )


@dataclass(frozen=True)
class FusionConfig:
    LIFETIME: ClassVar[Lifetime] = Lifetime.QUERY

    method: str = setting(
        "rrf",
        "how hybrid mode combines the routes: reciprocal rank fusion or weighted scores",
        plugins="fusion method",
    )
    k: int = setting(60, "RRF constant k in 1/(k + rank)", minimum=0, maximum=10_000)
    weights: tuple[float, ...] = setting(
        (0.5, 0.5), "weighted fusion: the dense and the BM25 weight, comma separated", minimum=0.0, maximum=10.0
    )
    normalization: str = setting(
        "minmax",
        "weighted fusion: how each route's scores are normalised before weighting",
        choices=("minmax", "zscore"),
    )


@dataclass(frozen=True)
class FilterConfig:
    LIFETIME: ClassVar[Lifetime] = Lifetime.QUERY

    documents: tuple[str, ...] = setting((), "keep only these documents (comma separated ids, external ids or names)")
    doc_types: tuple[str, ...] = setting((), "keep only these document types (comma separated: pdf,md,...)")


@dataclass(frozen=True)
class MmrConfig:
    LIFETIME: ClassVar[Lifetime] = Lifetime.QUERY

    enabled: bool = setting(False, "diversify with maximal marginal relevance")
    # key "mmr.lambda" (lambda is a Python keyword)
    lambda_: float = setting(0.7, "MMR trade-off: 1 = relevance only, 0 = diversity only", minimum=0.0, maximum=1.0)
    pool: int = setting(50, "candidates MMR selects from", minimum=1, maximum=10_000)


@dataclass(frozen=True)
class FoldConfig:
    """Near-identical passages (a boilerplate paragraph closing every chapter) folded into one hit
    that lists its other places (``workbench.retrieval.fold``)."""

    LIFETIME: ClassVar[Lifetime] = Lifetime.QUERY

    enabled: bool = setting(
        True,
        "fold near-identical chunks into one hit that lists its other places (document, section, page), "
        "so a repeated passage takes one place in the results and the next distinct hits take the rest",
    )
    # 0.9: one changed character in a 1,000-character chunk moves about 5 of its ~1,000 shingles
    # (J ≈ 0.99), a changed chapter number or date a few more; two different passages share few
    threshold: float = setting(
        0.9,
        "fold: the overlap from which two chunks are the same passage: the Jaccard similarity of their "
        "normalized texts' 5-character shingles (1 = only texts equal once case, character width, Markdown "
        "markers and whitespace are normalized)",
        # below 0.8 the candidate search (MinHash bands, ``workbench.retrieval.fold``) would miss pairs
        minimum=0.8,
        maximum=1.0,
    )


@dataclass(frozen=True)
class RerankConfig:
    LIFETIME: ClassVar[Lifetime] = Lifetime.QUERY

    method: str = setting(
        "cross_encoder",
        "cross_encoder (rerank.model) or llm (the LLM endpoint scores each candidate 0-10)",
        choices=("cross_encoder", "llm"),
    )
    model: str = setting("", "cross_encoder: CrossEncoder id or local path; empty = no rerank")
    top_m: int = setting(30, "candidates the reranker rescores", minimum=1, maximum=10_000)
    runtime: str = setting(
        AUTO_RUNTIME,
        "cross_encoder: what runs it: auto (the fastest runtime and precision this machine's "
        "calibration found ranking like torch fp32), torch, openvino or onnx",
        choices=(AUTO_RUNTIME,),
        plugins="encoder runtime",
    )
    precision: str = setting(
        "fp32",
        "cross_encoder arithmetic: fp32; bf16 (torch, openvino); int8 (openvino: static, per channel; onnx: "
        "dynamic, per channel, feed-forward outputs in fp32); ignored under auto",
        choices=PRECISIONS,
    )
    timeout_s: float = setting(
        30.0, "seconds before rerank gives up and keeps the previous order", minimum=0.1, maximum=3600.0
    )

    def __post_init__(self) -> None:
        check_precision("rerank", self.runtime, self.precision)


@dataclass(frozen=True)
class ConfidenceConfig:
    """Thresholds of the retrieval-confidence signals (``workbench.retrieval.confidence``).

    Below ``*_low`` a signal says no_answer, from ``*_high`` up it says relevant. The defaults
    sit between the values of answerable and off-topic queries on the bundled demo and on
    SciFact; ``python -m workbench calibrate`` fits them to a collection.
    """

    LIFETIME: ClassVar[Lifetime] = Lifetime.QUERY

    top_hits: int = setting(3, "final hits the confidence verdict reads", minimum=1, maximum=100)
    terms_low: float = setting(
        0.3,
        "confidence: idf-weighted share of the query's terms in the best top hit below "
        "which that signal says no_answer",
        minimum=0.0,
        maximum=1.0,
    )
    terms_high: float = setting(
        0.7, "confidence: the term share from which that signal says relevant", minimum=0.0, maximum=1.0
    )
    dense_low: float = setting(
        -2.0,
        "confidence: best cosine above what chance gives, in sd of the collection's "
        "random-pair cosines, below which that signal says no_answer",
        minimum=-100.0,
        maximum=100.0,
    )
    dense_high: float = setting(
        0.0, "confidence: the dense excess from which that signal says relevant", minimum=-100.0, maximum=100.0
    )
    rerank_low: float = setting(
        0.05,
        "confidence: cross-encoder probability of the best top hit below which that signal says no_answer",
        minimum=0.0,
        maximum=1.0,
    )
    rerank_high: float = setting(
        0.5, "confidence: the cross-encoder probability from which that signal says relevant", minimum=0.0, maximum=1.0
    )
