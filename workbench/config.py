"""The typed configuration tree, its defaults, and ``--set key=value`` overrides.

Every stage reads its own frozen section. Keys are dotted (``fusion.k``); ``KEY_DOCS`` documents
each one and README.md repeats that table. Sections split into index-time keys (changing them
needs new chunks or new indexes) and query-time keys (free to change per query).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import types
import typing
from dataclasses import dataclass, field, fields, replace

from store.settings import DEFAULT_PRESET  # noqa: F401  (the built-in preset's name, fixed by the schema)


@dataclass(frozen=True)
class ChunkingConfig:
    strategy: str = "recursive"  # fixed | recursive | markdown | sentence_window | semantic
    size: int = 1000  # maximum chunk length, in `unit`s
    overlap: int = 100  # characters (or tokens) shared by neighbouring chunks (fixed, recursive)
    unit: str = "chars"  # chars | tokens (tokens of the embedding model's own tokenizer)
    window: int = 1  # sentence_window: sentences of context on each side
    threshold: float = 0.25  # semantic: break where adjacent-sentence similarity < this quantile
    context_headers: bool = True  # index "heading path + text" so every chunk keeps its document context


@dataclass(frozen=True)
class EmbeddingConfig:
    model: str = "all-MiniLM-L6-v2"


@dataclass(frozen=True)
class DenseConfig:
    m: int = 16
    ef_construction: int = 200
    ef_search: int = 128  # query-time
    exact: bool = False  # query-time: brute-force cosine instead of HNSW


@dataclass(frozen=True)
class Bm25Config:
    k1: float = 1.2
    b: float = 0.75


@dataclass(frozen=True)
class RetrievalConfig:
    mode: str = "hybrid"  # dense | bm25 | hybrid
    top_k: int = 10
    candidates: int = 100  # candidates per route (dense, BM25) before fusion


@dataclass(frozen=True)
class FusionConfig:
    method: str = "rrf"  # rrf | weighted
    k: int = 60  # RRF constant
    weights: tuple[float, ...] = (0.5, 0.5)  # weighted: (dense, bm25)
    normalization: str = "minmax"  # weighted: minmax | zscore


@dataclass(frozen=True)
class FilterConfig:
    documents: tuple[str, ...] = ()  # keep only these documents (id, external id or source name)
    doc_types: tuple[str, ...] = ()  # keep only these types (pdf, docx, md, ...)


@dataclass(frozen=True)
class MmrConfig:
    enabled: bool = False
    lambda_: float = 0.7  # key "mmr.lambda": 1.0 = pure relevance, 0.0 = pure diversity
    pool: int = 50  # candidates MMR selects from


@dataclass(frozen=True)
class RerankConfig:
    model: str = ""  # "" = no rerank; else a sentence-transformers CrossEncoder id or local path
    top_m: int = 30
    timeout_s: float = 30.0


@dataclass(frozen=True)
class WorkbenchConfig:
    chunking: ChunkingConfig = field(default_factory=ChunkingConfig)
    embedding: EmbeddingConfig = field(default_factory=EmbeddingConfig)
    dense: DenseConfig = field(default_factory=DenseConfig)
    bm25: Bm25Config = field(default_factory=Bm25Config)
    retrieval: RetrievalConfig = field(default_factory=RetrievalConfig)
    fusion: FusionConfig = field(default_factory=FusionConfig)
    filters: FilterConfig = field(default_factory=FilterConfig)
    mmr: MmrConfig = field(default_factory=MmrConfig)
    rerank: RerankConfig = field(default_factory=RerankConfig)

    def to_dict(self) -> dict:
        return {f.name: section_dict(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict) -> "WorkbenchConfig":
        """Build from nested or flat (dotted) values; keys left out keep their defaults."""
        by_section: dict[str, dict] = {}
        for key, value in flatten(data).items():
            section_name, field_name = _split_key(key)
            target = _field(getattr(_DEFAULTS, section_name), field_name)
            by_section.setdefault(section_name, {})[target.name] = _coerce(key, target, value)
        return cls(**{name: replace(getattr(_DEFAULTS, name), **values) for name, values in by_section.items()})

    def with_value(self, key: str, value) -> "WorkbenchConfig":
        section_name, field_name = _split_key(key)
        section = getattr(self, section_name)
        target = _field(section, field_name)
        return replace(self, **{section_name: replace(section, **{target.name: _coerce(key, target, value)})})

    def with_overrides(self, assignments: typing.Iterable[str]) -> "WorkbenchConfig":
        """Apply ``key=value`` strings as given on the command line (``--set fusion.k=30``)."""
        config = self
        for assignment in assignments:
            key, sep, raw = assignment.partition("=")
            if not sep:
                raise ConfigError(f"--set expects key=value, got {assignment!r}; e.g. --set fusion.k=30")
            config = config.with_value(key.strip(), raw.strip())
        return config

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
QUERY_TIME_SECTIONS = ("dense", "retrieval", "fusion", "filters", "mmr", "rerank")

CHOICES: dict[str, tuple[str, ...]] = {
    "chunking.strategy": ("fixed", "recursive", "markdown", "sentence_window", "semantic"),
    "chunking.unit": ("chars", "tokens"),
    "retrieval.mode": ("dense", "bm25", "hybrid"),
    "fusion.method": ("rrf", "weighted"),
    "fusion.normalization": ("minmax", "zscore"),
}

KEY_DOCS: dict[str, str] = {
    "chunking.strategy": "fixed, recursive (Markdown-aware separators), markdown (split at headings), sentence_window, semantic",
    "chunking.size": "maximum chunk length in chunking.unit",
    "chunking.overlap": "characters (or tokens) shared by neighbouring chunks (fixed, recursive)",
    "chunking.unit": "chars, or tokens of the embedding model's tokenizer",
    "chunking.window": "sentence_window: sentences of context each side",
    "chunking.threshold": "semantic: break where adjacent-sentence similarity falls below this quantile",
    "chunking.context_headers": "index the heading path in front of each chunk's text",
    "embedding.model": "sentence-transformers id or local path; all-MiniLM-L6-v2 is bundled",
    "dense.m": "HNSW graph degree M",
    "dense.ef_construction": "HNSW build-time beam width",
    "dense.ef_search": "HNSW query-time beam width",
    "dense.exact": "brute-force cosine search instead of HNSW",
    "bm25.k1": "BM25 term-frequency saturation",
    "bm25.b": "BM25 length normalisation",
    "retrieval.mode": "dense, bm25 or hybrid",
    "retrieval.top_k": "results returned",
    "retrieval.candidates": "candidates taken from each route before fusion",
    "fusion.method": "rrf or weighted",
    "fusion.k": "RRF constant k in 1/(k + rank)",
    "fusion.weights": "weighted fusion: dense,bm25 weights",
    "fusion.normalization": "weighted fusion score normalisation: minmax or zscore",
    "filters.documents": "keep only these documents (comma separated ids, external ids or names)",
    "filters.doc_types": "keep only these document types (comma separated: pdf,md,...)",
    "mmr.enabled": "diversify with maximal marginal relevance",
    "mmr.lambda": "MMR trade-off: 1 = relevance only, 0 = diversity only",
    "mmr.pool": "candidates MMR selects from",
    "rerank.model": "CrossEncoder id or local path; empty = no rerank",
    "rerank.top_m": "candidates the cross-encoder rescores",
    "rerank.timeout_s": "seconds before rerank gives up and keeps the previous order",
}


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
    raise ConfigError(
        f"unknown config key {type(section).__name__}.{name!r}; known keys: {', '.join(known_keys())}"
    )


def _coerce(key: str, target: dataclasses.Field, value):
    hint = _type_hints(type(_section_default(key)))[target.name]
    try:
        coerced = _coerce_to(hint, value)
    except (TypeError, ValueError) as error:
        raise ConfigError(f"{key}: cannot use {value!r} ({error}); expected {_hint_name(hint)}") from None
    choices = CHOICES.get(_canonical_key(key))
    if choices and coerced not in choices:
        raise ConfigError(f"{key}: {coerced!r} is not one of {', '.join(choices)}")
    return coerced


@functools.lru_cache(maxsize=None)
def _type_hints(section_type: type) -> dict:
    return typing.get_type_hints(section_type)


def _canonical_key(key: str) -> str:
    section_name, field_name = _split_key(key)
    return f"{section_name}.{field_name.rstrip('_')}"


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
