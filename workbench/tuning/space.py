"""The configurations a study may try: one dimension per configuration key, each with its values.

The default space holds every query-time key worth tuning (route, fusion, candidates, MMR, and
rerank when a cross-encoder is on this machine) and one index-time key, ``chunking.size``.
Choices are the configuration's own (``key_choices``: fixed, or a plugin registry's names);
numbers get a *tuning range* (``TUNING_RANGES``): a stepped range inside the key's validation
range, small enough to search and wide enough to hold the values people use. ``--keys`` picks
any of ``TUNABLE``: the index-time keys ``chunking.strategy``, ``chunking.overlap`` and
``embedding.model`` only when named, because each new layout embeds the corpus again.
``--space FILE.toml`` gives explicit values or ranges for any configuration key::

    "retrieval.mode" = ["bm25", "hybrid"]
    "fusion.k" = {low = 10, high = 100, step = 10}
    "fusion.weights" = {low = 0.2, high = 0.8, step = 0.2}   # the dense route's share; BM25 gets the rest
    "chunking.size" = [500, 1000]

Dimensions are conditional: a key the configuration built so far ignores
(``workbench.retrieval.ignored_keys``: ``fusion.k`` outside RRF hybrid, ``mmr.lambda`` with MMR
off, ``rerank.top_m`` without a rerank model) is not suggested, so no two points of the space
behave the same. Every range has a step unless a file leaves a float range without one, so the
space is finite and can be counted and, when it is small, searched exhaustively.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from workbench.config import ConfigError, Lifetime, WorkbenchConfig, key_choices, key_limits, lifetime_of
from workbench.layout import Layout
from workbench.retrieval.ignored_keys import ignored_keys

ParamValue = str | int | float | bool

#: keys decide which others are read; they are suggested first (then the rest in space order)
CONTROLLING_KEYS = ("retrieval.mode", "fusion.method", "mmr.enabled", "rerank.method", "rerank.model")
#: the keys ``ignored_keys`` reads to decide what a configuration ignores
DECIDING_KEYS = frozenset({*CONTROLLING_KEYS, "query.enhance"})
#: a number here is the dense route's share of the fusion weight; BM25 gets 1 - share
WEIGHT_SHARE_KEY = "fusion.weights"
#: when the space has more points than this, it is not counted (and never searched exhaustively)
COUNT_LIMIT = 50_000


class TrialSuggester(Protocol):
    """The part of an Optuna trial that suggests values (so this module needs no Optuna import)."""

    def suggest_categorical(
        self, name: str, choices: Sequence[bool | int | float | str | None]
    ) -> bool | int | float | str | None: ...

    def suggest_int(self, name: str, low: int, high: int, *, step: int = 1, log: bool = False) -> int: ...

    def suggest_float(
        self, name: str, low: float, high: float, *, step: float | None = None, log: bool = False
    ) -> float: ...


@dataclass(frozen=True)
class Choice:
    """A fixed list of values."""

    values: tuple[ParamValue, ...]

    def grid(self) -> tuple[ParamValue, ...] | None:
        return self.values

    def samples(self) -> tuple[ParamValue, ...]:
        return self.values

    def suggest(self, trial: TrialSuggester, name: str) -> ParamValue:
        value = trial.suggest_categorical(name, self.values)
        if value is None:  # never: no choice is None
            raise ValueError(f"{name}: the sampler suggested no value")
        return value

    def describe(self) -> str:
        return ", ".join(_show(value) for value in self.values)


@dataclass(frozen=True)
class Span:
    """A numeric range, low to high inclusive, in steps (``step=None``: any float in it)."""

    low: float
    high: float
    step: float | None
    integer: bool = False

    def grid(self) -> tuple[ParamValue, ...] | None:
        if self.step is None:
            return None
        count = int(math.floor((self.high - self.low) / self.step + 1e-9)) + 1
        values = [self.low + index * self.step for index in range(count)]
        if self.integer:
            return tuple(int(round(value)) for value in values)
        return tuple(round(value, 10) for value in values)

    def samples(self) -> tuple[ParamValue, ...]:
        """Every value, or the two ends of a continuous range (enough to check limits and layouts)."""
        return self.grid() or (self.low, self.high)

    def suggest(self, trial: TrialSuggester, name: str) -> ParamValue:
        if self.integer:
            return trial.suggest_int(name, int(self.low), int(self.high), step=int(self.step or 1))
        value = trial.suggest_float(name, self.low, self.high, step=self.step)
        return round(value, 10)

    def describe(self) -> str:
        step = f" step {_show(self.step)}" if self.step is not None else " (continuous)"
        return f"{_show(self.low)} to {_show(self.high)}{step}"


Domain = Choice | Span


@dataclass(frozen=True)
class Dimension:
    key: str
    domain: Domain

    def describe(self) -> str:
        share = (
            " (dense share; BM25 gets the rest)"
            if self.key == WEIGHT_SHARE_KEY and isinstance(self.domain, Span)
            else ""
        )
        return f"{self.key}: {self.domain.describe()}{share}"


def config_value(key: str, value: ParamValue) -> object:
    """What a suggested value sets: a number for ``fusion.weights`` is the dense share."""
    if key == WEIGHT_SHARE_KEY and isinstance(value, (int, float)) and not isinstance(value, bool):
        return (float(value), round(1.0 - float(value), 10))
    return value


def apply(base: WorkbenchConfig, params: Mapping[str, ParamValue]) -> WorkbenchConfig:
    """``base`` with every suggested value set."""
    config = base
    for key, value in params.items():
        config = config.with_value(key, config_value(key, value))
    return config


# -- the catalogue of tunable keys ------------------------------------------------------------------

#: tuning ranges of numeric keys (each inside the key's validation range; a test checks it)
TUNING_RANGES: dict[str, Span] = {
    "fusion.k": Span(10, 100, 10, integer=True),
    WEIGHT_SHARE_KEY: Span(0.1, 0.9, 0.1),
    "retrieval.candidates": Span(25, 300, 25, integer=True),
    "mmr.lambda": Span(0.1, 0.9, 0.1),
    "rerank.top_m": Span(10, 100, 10, integer=True),
    "chunking.overlap": Span(0, 200, 50, integer=True),
}
#: chunk sizes a default study compares (the starting configuration's own size is added)
DEFAULT_CHUNK_SIZES = (500, 1000)
#: query-time keys in the default space, in suggestion order
QUERY_TIME_KEYS = (
    "retrieval.mode",
    "fusion.method",
    "fusion.k",
    "fusion.weights",
    "fusion.normalization",
    "retrieval.candidates",
    "mmr.enabled",
    "mmr.lambda",
    "rerank.model",
    "rerank.top_m",
)
#: index-time keys: ``chunking.size`` is in the default space; the others only when named
INDEX_TIME_KEYS = ("chunking.size", "chunking.strategy", "chunking.overlap", "embedding.model")
DEFAULT_KEYS = (*QUERY_TIME_KEYS, "chunking.size")
TUNABLE = (*QUERY_TIME_KEYS, *INDEX_TIME_KEYS)


@dataclass(frozen=True)
class Models:
    """The models on this machine a study may choose between (never one that would download)."""

    embedding: tuple[str, ...] = ()
    rerank: tuple[str, ...] = ()


def models_on_this_machine(base: WorkbenchConfig) -> Models:
    """The catalogue's embedding and rerank models that are downloaded (plus the starting ones)."""
    from workbench.models.availability import locate
    from workbench.models.catalogue import EMBEDDING, RERANK, models

    embedding = [card.name for card in models(EMBEDDING) if locate(card.name, EMBEDDING) is not None]
    rerank = [card.name for card in models(RERANK) if locate(card.name, RERANK) is not None]
    if base.rerank.model.strip():
        rerank.insert(0, base.rerank.model.strip())
    return Models(tuple(dict.fromkeys(embedding)), tuple(dict.fromkeys(rerank)))


def default_domain(key: str, base: WorkbenchConfig, models: Models) -> Domain | None:
    """The values ``key`` takes in a default study, or None when there is nothing to choose."""
    if key == "mmr.enabled":
        return Choice((False, True))
    if key == "chunking.size":
        return Choice(tuple(sorted({*DEFAULT_CHUNK_SIZES, base.chunking.size})))
    if key == "rerank.model":
        downloaded = tuple(name for name in models.rerank if name)
        return Choice(("", *downloaded)) if downloaded else None
    if key == "embedding.model":
        names = tuple(dict.fromkeys((base.embedding.model, *models.embedding)))
        return Choice(names) if len(names) > 1 else None
    if key in TUNING_RANGES:
        return TUNING_RANGES[key]
    choices = key_choices().get(key)
    return Choice(choices) if choices else None


# -- the space ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchSpace:
    dimensions: tuple[Dimension, ...]
    #: why a key asked for is not in the space (no downloaded rerank model, say)
    notes: tuple[str, ...] = ()

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(dimension.key for dimension in self.dimensions)

    def suggest(self, trial: TrialSuggester, base: WorkbenchConfig) -> dict[str, ParamValue]:
        """One point: each dimension's value, skipping keys the configuration so far ignores."""
        config, params = base, {}
        for dimension in self.dimensions:
            if dimension.key in ignored_keys(config):
                continue
            value = dimension.domain.suggest(trial, dimension.key)
            params[dimension.key] = value
            config = config.with_value(dimension.key, config_value(dimension.key, value))
        return params

    def points(self, base: WorkbenchConfig) -> Iterator[dict[str, ParamValue]]:
        """Every point, in order (depth first); raises ValueError for a continuous dimension."""

        def walk(
            position: int, config: WorkbenchConfig, params: dict[str, ParamValue]
        ) -> Iterator[dict[str, ParamValue]]:
            if position == len(self.dimensions):
                yield dict(params)
                return
            dimension = self.dimensions[position]
            if dimension.key in ignored_keys(config):
                yield from walk(position + 1, config, params)
                return
            grid = dimension.domain.grid()
            if grid is None:
                raise ValueError(f"{dimension.key} is a continuous range; its points cannot be listed")
            controls = dimension.key in DECIDING_KEYS
            for value in grid:
                params[dimension.key] = value
                # only a deciding key changes what later keys ignore: the others need no new config
                after = config.with_value(dimension.key, config_value(dimension.key, value)) if controls else config
                yield from walk(position + 1, after, params)
                del params[dimension.key]

        return walk(0, base, {})

    def size(self, base: WorkbenchConfig, limit: int = COUNT_LIMIT) -> int | None:
        """How many distinct points there are, or None when continuous or more than ``limit``."""
        if any(dimension.domain.grid() is None for dimension in self.dimensions):
            return None
        count = 0
        for _ in self.points(base):
            count += 1
            if count > limit:
                return None
        return count

    def index_time_keys(self) -> tuple[str, ...]:
        """The dimensions whose values change the layout (new chunks, vectors or indexes)."""
        return tuple(key for key in self.keys if lifetime_of(key) is Lifetime.INDEX)

    def layouts(self, base: WorkbenchConfig) -> list[Layout]:
        """Every layout the space can ask for (the product of its index-time dimensions)."""
        index_keys = self.index_time_keys()
        sub = SearchSpace(tuple(d for d in self.dimensions if d.key in index_keys))
        if sub.size(base) is None:
            raise ValueError("an index-time key has a continuous range; give it a step or a list of values")
        return list(dict.fromkeys(Layout.of(apply(base, point)) for point in sub.points(base)))

    def describe(self) -> list[str]:
        return [dimension.describe() for dimension in self.dimensions]

    def to_dict(self) -> dict[str, object]:
        """What a study records about its space (to refuse resuming with another one)."""
        return {dimension.key: dimension.describe() for dimension in self.dimensions}


def _ordered(dimensions: Sequence[Dimension]) -> tuple[Dimension, ...]:
    """Controlling keys first, in ``CONTROLLING_KEYS`` order; the rest as given."""
    rank = {key: position for position, key in enumerate(CONTROLLING_KEYS)}
    indexed = list(enumerate(dimensions))
    indexed.sort(key=lambda item: (rank.get(item[1].key, len(rank)), item[0]))
    return tuple(dimension for _, dimension in indexed)


def default_space(base: WorkbenchConfig, models: Models, keys: Sequence[str] | None = None) -> SearchSpace:
    """The default space, or its ``keys`` only (any of ``TUNABLE``)."""
    wanted = tuple(dict.fromkeys(key.strip() for key in keys if key.strip())) if keys else DEFAULT_KEYS
    unknown = [key for key in wanted if key not in TUNABLE]
    if unknown:
        raise ConfigError(
            f"--keys: {', '.join(unknown)} cannot be tuned by name; tunable keys: {', '.join(TUNABLE)} "
            "(any other key: give its values in --space FILE.toml)"
        )
    dimensions, notes = [], []
    for key in wanted:
        domain = default_domain(key, base, models)
        if domain is None:
            if key == "rerank.model":
                notes.append(
                    "rerank is not tuned: no cross-encoder is downloaded (python -m workbench models download NAME)"
                )
            elif key == "embedding.model":
                notes.append("embedding.model is not tuned: no other embedding model is downloaded")
            continue
        dimensions.append(Dimension(key, domain))
    if "rerank.top_m" in wanted and not any(d.key == "rerank.model" for d in dimensions) and not base.rerank.model:
        dimensions = [d for d in dimensions if d.key != "rerank.top_m"]
    return _checked(SearchSpace(_ordered(dimensions), tuple(notes)), base)


def space_from_file(path: Path, base: WorkbenchConfig) -> SearchSpace:
    """A space from a TOML file: each key's list of values, or a ``{low, high, step}`` range."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"--space: cannot read {path}: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"--space: {path} is not valid TOML: {error}") from None
    entries = _entries(data)
    if not entries:
        raise ConfigError(f'--space: {path} names no keys; e.g. "fusion.k" = [10, 30, 60]')
    dimensions = [Dimension(key, _domain_from(key, raw, path)) for key, raw in entries.items()]
    return _checked(SearchSpace(_ordered(dimensions)), base)


def _entries(data: Mapping[str, object], prefix: str = "") -> dict[str, object]:
    """Flat keys; a table of only low/high/step is a range, not a section."""
    found: dict[str, object] = {}
    for name, value in data.items():
        key = f"{prefix}{name}"
        if isinstance(value, dict) and not (set(value) <= {"low", "high", "step"} and value):
            found.update(_entries(value, key + "."))
        else:
            found[key] = value
    return found


def _domain_from(key: str, raw: object, path: Path) -> Domain:
    where = f"--space {path}: {key}"
    WorkbenchConfig().get(key)  # an unknown key fails here, naming the known ones
    if isinstance(raw, list):
        if not raw:
            raise ConfigError(f"{where} has no values")
        values = tuple(",".join(str(item) for item in value) if isinstance(value, list) else value for value in raw)
        if not all(isinstance(value, (str, int, float, bool)) for value in values):
            raise ConfigError(f"{where}: values must be numbers, text, true/false or lists of numbers")
        return Choice(tuple(dict.fromkeys(values)))
    if isinstance(raw, dict):
        low, high, step = raw.get("low"), raw.get("high"), raw.get("step")
        if not isinstance(low, (int, float)) or not isinstance(high, (int, float)) or low > high:
            raise ConfigError(f"{where}: a range needs numbers low <= high, e.g. {{low = 10, high = 100, step = 10}}")
        if step is not None and (not isinstance(step, (int, float)) or step <= 0):
            raise ConfigError(f"{where}: step must be a positive number")
        integer = isinstance(WorkbenchConfig().get(key), int) and not isinstance(WorkbenchConfig().get(key), bool)
        if integer and not all(isinstance(v, int) for v in (low, high, step or 1)):
            raise ConfigError(f"{where} is a whole number: give low, high and step as integers")
        return Span(low, high, step if step is not None or not integer else 1, integer=integer)
    raise ConfigError(f"{where}: give a list of values or a range {{low = ..., high = ..., step = ...}}")


def _checked(space: SearchSpace, base: WorkbenchConfig) -> SearchSpace:
    """Every value of every dimension is valid for its key (a typo fails before any work)."""
    if not space.dimensions:
        raise ConfigError("the search space is empty: name at least one tunable key (--keys or --space)")
    for dimension in space.dimensions:
        domain = dimension.domain
        samples = domain.samples() if isinstance(domain, Choice) else (domain.low, domain.high)  # a range: its ends
        if dimension.key == WEIGHT_SHARE_KEY and isinstance(domain, Span) and not 0 <= domain.low <= domain.high <= 1:
            raise ConfigError(f"{WEIGHT_SHARE_KEY}: a range is the dense share, between 0 and 1")
        for value in samples:
            base.with_value(dimension.key, config_value(dimension.key, value))  # raises ConfigError naming the limit
        if isinstance(domain, Span):
            limits = key_limits(dimension.key)
            if limits.problem(domain.low) or limits.problem(domain.high):
                raise ConfigError(f"{dimension.key}: range {domain.describe()} leaves {limits.describe()}")
    if space.size(base) is not None:
        read = {key for point in space.points(base) for key in point}
        never = [key for key in space.keys if key not in read]
        if never:
            raise ConfigError(
                f"{', '.join(never)}: never read in this space from the starting configuration "
                f"(retrieval.mode={base.retrieval.mode}, fusion.method={base.fusion.method}, "
                f"mmr.enabled={_show(base.mmr.enabled)}); add the key that turns it on "
                "(retrieval.mode, fusion.method, mmr.enabled, rerank.model) or start from a preset that does"
            )
    return space


def _show(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if value == "":
        return '""'
    return str(value)
