"""``WorkbenchConfig``, the whole tree of sections, and its flat dotted keys (``fusion.k``).

A configuration is built from defaults, then nested or flat values (``from_dict``), then
``key=value`` strings as the command line gives them (``with_overrides``); every value is
coerced to its field's type and checked against its limits on the way in, so a bad one fails
with a ``ConfigError`` naming the key, the value, the default and what is allowed.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import types
import typing
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from workbench.config.fields import ConfigError, Lifetime, Limits, Section, declared_lifetime, limits_of
from workbench.config.operations import IngestConfig, LogConfig, SynthConfig, TuningConfig
from workbench.config.sections import (
    Bm25Config,
    ChunkingConfig,
    ConfidenceConfig,
    DenseConfig,
    EmbeddingConfig,
    FilterConfig,
    FoldConfig,
    FusionConfig,
    IndexConfig,
    MilvusConfig,
    MmrConfig,
    QueryConfig,
    RerankConfig,
    RetrievalConfig,
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
    fold: FoldConfig = field(default_factory=FoldConfig)
    confidence: ConfidenceConfig = field(default_factory=ConfidenceConfig)
    ingest: IngestConfig = field(default_factory=IngestConfig)
    synth: SynthConfig = field(default_factory=SynthConfig)
    tuning: TuningConfig = field(default_factory=TuningConfig)
    log: LogConfig = field(default_factory=LogConfig)

    def to_dict(self) -> dict[str, dict[str, Any]]:
        return {f.name: section_dict(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WorkbenchConfig:
        """Build from nested or flat (dotted) values; keys left out keep their defaults."""
        by_section: dict[str, dict[str, Any]] = {}
        for key, value in flatten(data).items():
            section_name, field_name = _split_key(key)
            target = _field(key)
            by_section.setdefault(section_name, {})[target.name] = _coerce(key, target, value)
        return cls(**{name: replace(getattr(_DEFAULTS, name), **values) for name, values in by_section.items()})

    def with_value(self, key: str, value: Any) -> WorkbenchConfig:
        section_name, _ = _split_key(key)
        section = getattr(self, section_name)
        target = _field(key)
        return replace(self, **{section_name: replace(section, **{target.name: _coerce(key, target, value)})})

    def with_overrides(self, assignments: Iterable[str]) -> WorkbenchConfig:
        """Apply ``key=value`` strings as given on the command line (``--set fusion.k=30``)."""
        # applied together, so keys checked against each other (embedding.runtime and .precision)
        # may be given in any order
        pairs: dict[str, str] = {}
        for assignment in assignments:
            key, sep, raw = assignment.partition("=")
            if not sep:
                raise ConfigError(f"--set expects key=value, got {assignment!r}; e.g. --set fusion.k=30")
            _field(key.strip())  # an unknown key fails first
            pairs[key.strip()] = raw.strip()
        return WorkbenchConfig.from_dict({**self.flat(), **pairs}) if pairs else self

    def get(self, key: str) -> Any:
        section_name, _ = _split_key(key)
        return getattr(getattr(self, section_name), _field(key).name)

    def flat(self) -> dict[str, Any]:
        return flatten(self.to_dict())


_DEFAULTS = WorkbenchConfig()


def section_fields() -> Iterator[tuple[str, type[Section], dataclasses.Field[Any]]]:
    """Every key with its section's type and its field, in declaration order."""
    for section in fields(WorkbenchConfig):
        section_type = type(getattr(_DEFAULTS, section.name))
        for f in fields(section_type):
            yield f"{section.name}.{public_name(f)}", section_type, f


@functools.cache
def _lifetimes() -> dict[str, Lifetime]:
    return {key: declared_lifetime(section_type, f) for key, section_type, f in section_fields()}


def lifetime_of(key: str) -> Lifetime:
    """When a change to ``key`` takes effect (its field's declaration, else its section's)."""
    found = _lifetimes().get(key)
    if found is None:
        _field(key)  # names the unknown key
        raise AssertionError(key)  # pragma: no cover -- every known key has a lifetime
    return found


def keys_with_lifetime(lifetime: Lifetime) -> tuple[str, ...]:
    """The keys of one lifetime, in declaration order: ``keys_with_lifetime(Lifetime.INDEX)`` are
    what chunks and indexes are built with, the one definition layouts and collections read."""
    return tuple(key for key, found in _lifetimes().items() if found is lifetime)


def index_settings(config: WorkbenchConfig) -> dict[str, Any]:
    """The index-time keys of ``config`` and their values: what a collection fixes when it is created."""
    flat = config.flat()
    return {key: flat[key] for key in keys_with_lifetime(Lifetime.INDEX)}


def key_limits(key: str) -> Limits:
    """The values ``key`` accepts (``Limits()`` for free text and booleans)."""
    return limits_of(_field(key))


def key_default(key: str) -> Any:
    return _DEFAULTS.get(key)


def format_value(value: Any) -> str:
    """A value as it is written after ``--set key=``: tuples comma separated, "" for empty text."""
    if isinstance(value, tuple):
        return ",".join(str(item) for item in value) or '""'
    return '""' if value == "" else str(value)


def out_of_limits_message(name: str, value: Any, limits: Limits, default: Any) -> str | None:
    """ "retrieval.top_k: 5000 is above the maximum 1000 (default 10); allowed: 1 to 1000", or None."""
    problem = limits.problem(value)
    if problem is None:
        return None
    allowed = "" if limits.choices else f"; allowed: {limits.describe()}"
    each = " each" if isinstance(value, tuple) and allowed else ""
    return f"{name}: {problem} (default {format_value(default)}){allowed}{each}"


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten(value, dotted + "."))
        else:
            flat[dotted] = value
    return flat


def known_keys() -> list[str]:
    return [key for key, _, _ in section_fields()]


def public_name(f: dataclasses.Field[Any]) -> str:
    return f.name.rstrip("_")  # ``mmr.lambda`` is the field ``lambda_``: lambda is a Python keyword


def section_dict(section: object) -> dict[str, Any]:
    """A config section as plain JSON values, keyed by public names (``lambda``, not ``lambda_``)."""
    return {public_name(f): _jsonable(getattr(section, f.name)) for f in fields(section)}  # type: ignore[arg-type]


def _jsonable(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


@functools.cache  # every config.get and with_value asks; the sections never change
def _split_key(key: str) -> tuple[str, str]:
    section_name, _, field_name = key.partition(".")
    sections = [f.name for f in fields(WorkbenchConfig)]
    if section_name not in sections or not field_name:
        raise ConfigError(f"unknown config key {key!r}; known keys: {', '.join(known_keys())}")
    return section_name, field_name


@functools.cache
def _field(key: str) -> dataclasses.Field[Any]:
    """The field behind a dotted key, or a ``ConfigError`` naming it and listing the known keys."""
    section_name, name = _split_key(key)
    for f in fields(getattr(_DEFAULTS, section_name)):
        if public_name(f) == name or f.name == name:
            return f
    raise ConfigError(f"unknown config key {key!r}; known keys: {', '.join(known_keys())}")


def _coerce(key: str, target: dataclasses.Field[Any], value: Any) -> Any:
    hint = _type_hints(_section_type(key))[target.name]
    try:
        coerced = _coerce_to(hint, value)
    except (TypeError, ValueError) as error:
        raise ConfigError(f"{key}: cannot use {value!r} ({error}); expected {_hint_name(hint)}") from None
    message = out_of_limits_message(key, coerced, limits_of(target), _DEFAULTS.get(key))
    if message:
        raise ConfigError(message)
    return coerced


@functools.cache
def _type_hints(section_type: type) -> dict[str, Any]:
    return typing.get_type_hints(section_type)


def _section_type(key: str) -> type:
    """The dataclass of the key's section."""
    section_name, _ = _split_key(key)
    return type(getattr(_DEFAULTS, section_name))


def _coerce_to(hint: Any, value: Any) -> Any:
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


def _hint_name(hint: Any) -> str:
    if typing.get_origin(hint) is tuple:
        return f"comma-separated {typing.get_args(hint)[0].__name__} values"
    return getattr(hint, "__name__", str(hint))


def dumps(config: WorkbenchConfig) -> str:
    return json.dumps(config.to_dict(), sort_keys=True)
