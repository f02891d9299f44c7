"""The typed configuration tree, its defaults, limits and docs, and ``--set key=value`` overrides.

Every stage reads its own frozen section. Keys are dotted (``fusion.k``). Each field carries its
own documentation and limits (a numeric range, or a fixed set of choices) in its metadata, so
the command line, the app's widgets and the MCP tool schemas all read one source:
``key_limits``, ``KEY_DOCS`` and ``key_table_markdown`` (the table README.md repeats). Sections
split into index-time keys (changing them needs new chunks or new indexes) and query-time keys
(free to change per query).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
import types
import typing
from dataclasses import dataclass, field, fields, replace

from store.settings import DEFAULT_PRESET  # noqa: F401  (the built-in preset's name, fixed by the schema)


@dataclass(frozen=True)
class Limits:
    """The values a key accepts: an inclusive range (for a tuple key, of each item), or choices."""

    minimum: int | float | None = None
    maximum: int | float | None = None
    choices: tuple[str, ...] = ()

    @property
    def bounded(self) -> bool:
        return self.minimum is not None and self.maximum is not None

    def problem(self, value) -> str | None:
        """Why ``value`` is not allowed, or None when it is. Tuples are checked item by item."""
        if isinstance(value, tuple):
            return next((p for p in map(self.problem, value) if p), None)
        if self.choices and value not in self.choices:
            return f"{value!r} is not one of {', '.join(self.choices)}"
        if isinstance(value, float) and not math.isfinite(value) and (self.minimum, self.maximum) != (None, None):
            return f"{value} is not a finite number"
        if self.minimum is not None and value < self.minimum:
            return f"{_number(value)} is below the minimum {_number(self.minimum)}"
        if self.maximum is not None and value > self.maximum:
            return f"{_number(value)} is above the maximum {_number(self.maximum)}"
        return None

    def describe(self) -> str:
        """The allowed values for people: "1 to 1000", "≥ 0", "dense, bm25, hybrid", or ""."""
        if self.choices:
            return ", ".join(self.choices)
        if self.bounded:
            return f"{_number(self.minimum)} to {_number(self.maximum)}"
        if self.minimum is not None:
            return f"≥ {_number(self.minimum)}"
        if self.maximum is not None:
            return f"≤ {_number(self.maximum)}"
        return ""

    def clamp(self, value):
        """``value`` moved into the range (widgets use this on values from older presets)."""
        if self.minimum is not None and value < self.minimum:
            return self.minimum
        if self.maximum is not None and value > self.maximum:
            return self.maximum
        return value

    def json_schema(self) -> dict:
        """The same limits as JSON-schema keywords (MCP tool input schemas)."""
        if self.choices:
            return {"enum": list(self.choices)}
        schema = {}
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        return schema


def _number(value) -> str:
    return str(value) if isinstance(value, int) else f"{value:g}"


def setting(default, doc: str, *, minimum=None, maximum=None, choices: tuple[str, ...] = ()):
    """A configuration field: its default, what it means, and the values it accepts.

    Declare every key with it: a number gets ``minimum`` and ``maximum`` (inclusive; a test
    checks that every numeric key has both), a key with a fixed set of values gets ``choices``.
    ``KEY_DOCS``, ``CHOICES`` and README's key table are derived from these fields.
    """
    return field(default=default, metadata={"doc": doc, "limits": Limits(minimum, maximum, tuple(choices))})


@dataclass(frozen=True)
class ChunkingConfig:
    strategy: str = setting(
        "recursive",
        "how documents are split: recursive at Markdown-aware separators, markdown at headings, "
        "fixed by length, sentence_window and semantic at sentences, code at functions, classes and methods",
        choices=("fixed", "recursive", "markdown", "sentence_window", "semantic", "code"),
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


#: the precisions each encoder runtime runs (``embedding.runtime`` / ``embedding.precision``)
RUNTIME_PRECISIONS: dict[str, tuple[str, ...]] = {
    "torch": ("fp32", "bf16"),
    "openvino": ("fp32", "bf16"),
    "onnx": ("fp32", "int8"),
}
AUTO_RUNTIME = "auto"


@dataclass(frozen=True)
class EmbeddingConfig:
    model: str = setting("all-MiniLM-L6-v2", "sentence-transformers id or local path; all-MiniLM-L6-v2 is bundled")
    runtime: str = setting(
        AUTO_RUNTIME,
        "what runs the encoder: auto (a new collection takes the fastest runtime and precision this "
        "machine's calibration found with cosine ≥ 0.999 to torch fp32), torch, openvino or onnx; fixed per "
        "collection",
        choices=(AUTO_RUNTIME, *RUNTIME_PRECISIONS),
    )
    precision: str = setting(
        "fp32",
        "encoder arithmetic: fp32; bf16 (torch, openvino); int8 (onnx, dynamic quantization); ignored under auto",
        choices=("fp32", "bf16", "int8"),
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

    def __post_init__(self):
        allowed = RUNTIME_PRECISIONS.get(self.runtime)
        if allowed is not None and self.precision not in allowed:
            raise ConfigError(
                f"embedding.precision: {self.precision!r} is not available with embedding.runtime="
                f"{self.runtime}; it allows {', '.join(allowed)} "
                f"({_runtime_table()})"
            )


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


def _runtime_table() -> str:
    return "; ".join(f"{runtime}: {', '.join(precisions)}" for runtime, precisions in RUNTIME_PRECISIONS.items())


@dataclass(frozen=True)
class DenseConfig:
    m: int = setting(16, "HNSW graph degree M", minimum=2, maximum=256)
    ef_construction: int = setting(200, "HNSW build-time beam width", minimum=1, maximum=100_000)
    ef_search: int = setting(128, "HNSW query-time beam width", minimum=1, maximum=100_000)
    exact: bool = setting(False, "brute-force cosine search instead of HNSW")


@dataclass(frozen=True)
class Bm25Config:
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
    backend: str = setting(
        "local",
        "where the indexes live: local (files in the home) or milvus (Milvus Lite or a Milvus server, see milvus.*)",
        choices=("local", "milvus"),
    )


@dataclass(frozen=True)
class MilvusConfig:
    """Where and how a collection with ``index.backend = milvus`` keeps its indexes."""

    #: the keys that say where a layout's collection lives and how it is analysed: part of the
    #: layout's key (``backend_place``); the token, batch size and timeout are per process
    PLACE_KEYS: typing.ClassVar[tuple[str, ...]] = ("uri", "collection_prefix", "analysis", "analyzer")

    uri: str = setting(
        "indexes/milvus.db",
        "a Milvus Lite file (a relative path is inside the home) or a Milvus server, http://host:19530",
    )
    token: str = setting(
        "", "Milvus credentials (user:password or an API key); never stored with the collection; or set MILVUS_TOKEN"
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
    batch_size: int = setting(1000, "rows per insert when pushing chunks to Milvus", minimum=1, maximum=100_000)
    timeout_s: float = setting(10.0, "seconds before a Milvus call gives up", minimum=0.1, maximum=3600.0)


@dataclass(frozen=True)
class RetrievalConfig:
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
    method: str = setting(
        "rrf",
        "how hybrid mode combines the routes: reciprocal rank fusion or weighted scores",
        choices=("rrf", "weighted"),
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
    documents: tuple[str, ...] = setting((), "keep only these documents (comma separated ids, external ids or names)")
    doc_types: tuple[str, ...] = setting((), "keep only these document types (comma separated: pdf,md,...)")


@dataclass(frozen=True)
class MmrConfig:
    enabled: bool = setting(False, "diversify with maximal marginal relevance")
    # key "mmr.lambda" (lambda is a Python keyword)
    lambda_: float = setting(0.7, "MMR trade-off: 1 = relevance only, 0 = diversity only", minimum=0.0, maximum=1.0)
    pool: int = setting(50, "candidates MMR selects from", minimum=1, maximum=10_000)


@dataclass(frozen=True)
class RerankConfig:
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
        choices=(AUTO_RUNTIME, *RUNTIME_PRECISIONS),
    )
    precision: str = setting(
        "fp32",
        "cross_encoder arithmetic: fp32; bf16 (torch, openvino); int8 (onnx, dynamic quantization); ignored under auto",
        choices=("fp32", "bf16", "int8"),
    )
    timeout_s: float = setting(
        30.0, "seconds before rerank gives up and keeps the previous order", minimum=0.1, maximum=3600.0
    )

    def __post_init__(self):
        allowed = RUNTIME_PRECISIONS.get(self.runtime)
        if allowed is not None and self.precision not in allowed:
            raise ConfigError(
                f"rerank.precision: {self.precision!r} is not available with rerank.runtime="
                f"{self.runtime}; it allows {', '.join(allowed)} ({_runtime_table()})"
            )


@dataclass(frozen=True)
class ConfidenceConfig:
    """Thresholds of the retrieval-confidence signals (``workbench.retrieval.confidence``).

    Below ``*_low`` a signal says no_answer, from ``*_high`` up it says relevant. The defaults
    sit between the values of answerable and off-topic queries on the bundled demo and on
    SciFact; ``python -m workbench calibrate`` fits them to a collection.
    """

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


@dataclass(frozen=True)
class IngestConfig:
    """Limits every file is held to while it is read; each violation fails that file alone."""

    max_file_mb: float = setting(
        20.0, "files larger than this many MB are refused before they are read", minimum=0.001, maximum=100_000.0
    )
    max_chunks: int = setting(
        3000,
        "a document estimated to make more chunks than this is refused, with the time it would take",
        minimum=1,
        maximum=100_000_000,
    )
    parse_timeout_s: float = setting(
        60.0, "seconds a parse worker may spend on one file before it is stopped", minimum=0.1, maximum=86_400.0
    )
    parse_memory_mb: int = setting(
        1536, "resident memory (MB) a parse worker may reach before it is stopped", minimum=128, maximum=1_000_000
    )
    workers: int = setting(
        0, "parse worker processes; 0 = one per available CPU core (at most 4)", minimum=0, maximum=64
    )
    max_unzipped_mb: float = setting(
        200.0,
        "ZIP-based files (docx, pptx, xlsx): largest total uncompressed size in MB",
        minimum=0.001,
        maximum=1_000_000.0,
    )
    max_compression_ratio: float = setting(
        100.0, "ZIP-based files: largest uncompressed-to-compressed size ratio", minimum=1.0, maximum=1_000_000.0
    )
    max_zip_members: int = setting(
        10_000, "ZIP-based files: most members (parts) in the archive", minimum=1, maximum=10_000_000
    )
    max_image_megapixels: float = setting(
        60.0,
        "images and scanned PDF pages larger than this many megapixels are refused",
        minimum=0.01,
        maximum=100_000.0,
    )
    ocr_languages: str = setting(
        "eng+chi_sim", "tesseract language packs for images and scanned PDF pages (installed ones are used)"
    )
    captions: bool = setting(
        True, "caption images with the configured OpenAI-compatible vision endpoint (WORKBENCH_LLM_*)"
    )


@dataclass(frozen=True)
class SynthConfig:
    """Writing golden questions with the LLM endpoint (``golden synth``) and grading pools with it."""

    max_overlap: float = setting(
        0.75,
        "golden synth: a question sharing more than this share of its BM25 tokens "
        "with its quote copies it and is rejected",
        minimum=0.0,
        maximum=1.0,
    )
    max_similarity: float = setting(
        0.95,
        "golden synth: a question whose embedding cosine with a kept one is above "
        "this is a near-duplicate and is rejected",
        minimum=0.0,
        maximum=1.0,
    )
    min_chunk_chars: int = setting(
        80, "golden synth: chunks shorter than this are not sampled", minimum=1, maximum=100_000
    )
    max_chunk_chars: int = setting(
        3000, "golden synth and judge: characters of a chunk put into a prompt", minimum=100, maximum=100_000
    )
    max_items: int = setting(
        2000, "golden synth: most questions one run may ask for (--n)", minimum=1, maximum=1_000_000
    )
    max_tokens: int = setting(400, "golden synth and judge: most tokens a reply may have", minimum=16, maximum=32_000)
    timeout_s: float = setting(
        120.0, "golden synth and judge: seconds one request may take", minimum=0.1, maximum=3600.0
    )


@dataclass(frozen=True)
class LogConfig:
    """What the workbench records about its own use (kept in the home, never sent anywhere)."""

    queries: bool = setting(
        True,
        "record each query of the Retrieval lab, the CLI and the MCP server in the query "
        "log (log list, golden from-log); off records nothing",
    )


@dataclass(frozen=True)
class WorkbenchConfig:
    chunking: ChunkingConfig = field(default_factory=ChunkingConfig)
    embedding: EmbeddingConfig = field(default_factory=EmbeddingConfig)
    dense: DenseConfig = field(default_factory=DenseConfig)
    bm25: Bm25Config = field(default_factory=Bm25Config)
    index: IndexConfig = field(default_factory=IndexConfig)
    milvus: MilvusConfig = field(default_factory=MilvusConfig)
    retrieval: RetrievalConfig = field(default_factory=RetrievalConfig)
    query: QueryConfig = field(default_factory=QueryConfig)
    fusion: FusionConfig = field(default_factory=FusionConfig)
    filters: FilterConfig = field(default_factory=FilterConfig)
    mmr: MmrConfig = field(default_factory=MmrConfig)
    rerank: RerankConfig = field(default_factory=RerankConfig)
    confidence: ConfidenceConfig = field(default_factory=ConfidenceConfig)
    ingest: IngestConfig = field(default_factory=IngestConfig)
    synth: SynthConfig = field(default_factory=SynthConfig)
    log: LogConfig = field(default_factory=LogConfig)

    def to_dict(self) -> dict:
        return {f.name: section_dict(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict) -> WorkbenchConfig:
        """Build from nested or flat (dotted) values; keys left out keep their defaults."""
        by_section: dict[str, dict] = {}
        for key, value in flatten(data).items():
            section_name, field_name = _split_key(key)
            target = _field(getattr(_DEFAULTS, section_name), field_name)
            by_section.setdefault(section_name, {})[target.name] = _coerce(key, target, value)
        return cls(**{name: replace(getattr(_DEFAULTS, name), **values) for name, values in by_section.items()})

    def with_value(self, key: str, value) -> WorkbenchConfig:
        section_name, field_name = _split_key(key)
        section = getattr(self, section_name)
        target = _field(section, field_name)
        return replace(self, **{section_name: replace(section, **{target.name: _coerce(key, target, value)})})

    def with_overrides(self, assignments: typing.Iterable[str]) -> WorkbenchConfig:
        """Apply ``key=value`` strings as given on the command line (``--set fusion.k=30``)."""
        # applied together, so keys checked against each other (embedding.runtime and .precision)
        # may be given in any order
        pairs: dict[str, str] = {}
        for assignment in assignments:
            key, sep, raw = assignment.partition("=")
            if not sep:
                raise ConfigError(f"--set expects key=value, got {assignment!r}; e.g. --set fusion.k=30")
            _field(_section_default(key.strip()), _split_key(key.strip())[1])  # an unknown key fails first
            pairs[key.strip()] = raw.strip()
        return WorkbenchConfig.from_dict({**self.flat(), **pairs}) if pairs else self

    def get(self, key: str):
        section_name, field_name = _split_key(key)
        section = getattr(self, section_name)
        return getattr(section, _field(section, field_name).name)

    def flat(self) -> dict[str, object]:
        return flatten(self.to_dict())

    def index_key(self) -> dict:
        """The index-time part of the configuration: what chunks and indexes depend on."""
        return {"chunking": section_dict(self.chunking), "embedding_model": self.embedding.model}


class ConfigError(ValueError):
    """A configuration key or value is not valid; the message names the fix."""


_DEFAULTS = WorkbenchConfig()


INDEX_TIME_SECTIONS = ("chunking", "embedding")


def backend_place(config: WorkbenchConfig) -> tuple[tuple[str, object], ...]:
    """Where ``config``'s index backend keeps a layout: the ``PLACE_KEYS`` of the section named like
    the backend (empty for a backend without settings, such as local files)."""
    section = getattr(config, config.index.backend, None)
    keys = getattr(type(section), "PLACE_KEYS", ())
    return tuple((key, _stripped(getattr(section, key))) for key in keys)


def place_keys() -> tuple[str, ...]:
    """Every backend section's place keys as flat keys (``milvus.uri``, ...): fixed with a collection."""
    return tuple(
        f"{f.name}.{key}"
        for f in fields(WorkbenchConfig)
        for key in getattr(type(getattr(_DEFAULTS, f.name)), "PLACE_KEYS", ())
    )


def _stripped(value):
    return value.strip() if isinstance(value, str) else value


QUERY_TIME_SECTIONS = ("dense", "retrieval", "query", "fusion", "filters", "mmr", "rerank", "confidence")
#: limits applied while files are read; they change what is accepted, not how it is indexed
INGEST_TIME_SECTIONS = ("ingest",)
#: how golden sets are written and graded with the LLM endpoint; no effect on retrieval
GOLDEN_SECTIONS = ("synth",)
#: what the workbench records about its own use; no effect on results
USAGE_SECTIONS = ("log",)


def _section_fields():
    for section in fields(WorkbenchConfig):
        for f in fields(section.default_factory()):
            yield f"{section.name}.{_public_name(f)}", f


# A field declared without ``setting`` has no documentation and no limits; the tests name it
# (every key documented, every numeric key bounded) rather than the app failing to start.


def _limits_of(f: dataclasses.Field) -> Limits:
    return f.metadata.get("limits", Limits())


def _doc_of(f: dataclasses.Field) -> str:
    return f.metadata.get("doc", "")


def key_limits(key: str) -> Limits:
    """The values ``key`` accepts (``Limits()`` for free text and booleans)."""
    return _limits_of(_field(_section_default(key), _split_key(key)[1]))


def key_default(key: str):
    return _DEFAULTS.get(key)


def format_value(value) -> str:
    """A value as it is written after ``--set key=``: tuples comma separated, "" for empty text."""
    if isinstance(value, tuple):
        return ",".join(str(item) for item in value) or '""'
    return '""' if value == "" else str(value)


def out_of_limits_message(name: str, value, limits: Limits, default) -> str | None:
    """ "retrieval.top_k: 5000 is above the maximum 1000 (default 10); allowed: 1 to 1000", or None."""
    problem = limits.problem(value)
    if problem is None:
        return None
    allowed = "" if limits.choices else f"; allowed: {limits.describe()}"
    each = " each" if isinstance(value, tuple) and allowed else ""
    return f"{name}: {problem} (default {format_value(default)}){allowed}{each}"


def _free_form(default) -> str:
    if isinstance(default, bool):
        return "true, false"
    return "comma-separated list" if isinstance(default, tuple) else "text"


def key_table_markdown() -> str:
    """The configuration-key table README.md shows: key, default, allowed values, meaning."""
    lines = ["| key | default | allowed | meaning |", "|---|---|---|---|"]
    for key, f in _section_fields():
        limits = _limits_of(f)
        default = key_default(key)
        allowed = limits.describe() or _free_form(default)
        if isinstance(default, tuple) and limits.bounded:
            allowed += " each"
        lines.append(f"| `{key}` | `{format_value(default)}` | {allowed} | {_doc_of(f)} |")
    return "\n".join(lines)


def flatten(data: dict, prefix: str = "") -> dict[str, object]:
    flat: dict[str, object] = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten(value, dotted + "."))
        else:
            flat[dotted] = value
    return flat


def known_keys() -> list[str]:
    return [f"{s.name}.{_public_name(f)}" for s in fields(WorkbenchConfig) for f in fields(s.default_factory())]


def _public_name(f: dataclasses.Field) -> str:
    return f.name.rstrip("_")


def section_dict(section) -> dict:
    """A config section as plain JSON values, keyed by public names (``lambda``, not ``lambda_``)."""
    return {_public_name(f): _jsonable(getattr(section, f.name)) for f in fields(section)}


def _jsonable(value):
    return list(value) if isinstance(value, tuple) else value


def _split_key(key: str) -> tuple[str, str]:
    section_name, _, field_name = key.partition(".")
    sections = [f.name for f in fields(WorkbenchConfig)]
    if section_name not in sections or not field_name:
        raise ConfigError(f"unknown config key {key!r}; known keys: {', '.join(known_keys())}")
    return section_name, field_name


def _field(section, name: str) -> dataclasses.Field:
    for f in fields(section):
        if _public_name(f) == name or f.name == name:
            return f
    raise ConfigError(f"unknown config key {type(section).__name__}.{name!r}; known keys: {', '.join(known_keys())}")


def _coerce(key: str, target: dataclasses.Field, value):
    hint = _type_hints(type(_section_default(key)))[target.name]
    try:
        coerced = _coerce_to(hint, value)
    except (TypeError, ValueError) as error:
        raise ConfigError(f"{key}: cannot use {value!r} ({error}); expected {_hint_name(hint)}") from None
    message = out_of_limits_message(key, coerced, _limits_of(target), _DEFAULTS.get(key))
    if message:
        raise ConfigError(message)
    return coerced


@functools.cache
def _type_hints(section_type: type) -> dict:
    return typing.get_type_hints(section_type)


def _section_default(key: str):
    section_name, _ = _split_key(key)
    return getattr(_DEFAULTS, section_name)


def _coerce_to(hint, value):
    origin = typing.get_origin(hint)
    if hint is bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise ValueError("not a boolean")
    if hint is int:
        if isinstance(value, bool):
            raise ValueError("not an integer")
        if isinstance(value, float) and not value.is_integer():
            raise ValueError("not an integer")
        return int(value)
    if hint is float:
        return float(value)
    if hint is str:
        return "" if value is None else str(value)
    if origin is tuple:
        (item_hint, *_rest) = typing.get_args(hint)
        if isinstance(value, str):
            items = [part.strip() for part in value.split(",") if part.strip()]
        else:
            items = list(value)
        return tuple(_coerce_to(item_hint, item) for item in items)
    if origin in (typing.Union, types.UnionType):
        return value
    raise TypeError(f"unsupported type {hint}")


def _hint_name(hint) -> str:
    if typing.get_origin(hint) is tuple:
        return f"comma-separated {typing.get_args(hint)[0].__name__} values"
    return getattr(hint, "__name__", str(hint))


def dumps(config: WorkbenchConfig) -> str:
    return json.dumps(config.to_dict(), sort_keys=True)


# -- presets: named sets of overrides ----------------------------------------------------------
#
# A preset holds only the keys it sets (flat, dotted), like a saved list of ``--set`` options, so
# it applies on top of any collection's own index configuration. ``DEFAULT_PRESET`` always exists
# and sets nothing: the built-in defaults. The catalog keeps them (``Workbench.save_preset``).


def overrides_between(base: WorkbenchConfig, chosen: WorkbenchConfig) -> dict[str, object]:
    """The flat keys where ``chosen`` differs from ``base``: what a preset must record."""
    base_flat, chosen_flat = base.flat(), chosen.flat()
    return {key: value for key, value in chosen_flat.items() if base_flat.get(key) != value}


def validate_overrides(overrides: dict) -> dict[str, object]:
    """``overrides`` flattened, or a ``ConfigError`` naming a bad key or value."""
    flat = flatten(overrides)
    WorkbenchConfig.from_dict(flat)
    return flat


#: every key's documentation, from its field
KEY_DOCS: dict[str, str] = {key: _doc_of(f) for key, f in _section_fields()}
#: the keys with a fixed set of values, and those values
CHOICES: dict[str, tuple[str, ...]] = {
    key: _limits_of(f).choices for key, f in _section_fields() if _limits_of(f).choices
}
