"""Parameter sweeps: evaluate every combination of a grid of config values, reusing work.

Configurations are grouped by layout (``workbench.layout.Layout``: chunking, model, index
parameters). Each layout's indexes are loaded (or built) once and its relevance judgements
computed once; configurations that differ only in query-time keys (fusion, MMR, rerank, top k)
share them. Query vectors are embedded once per embedding model, and a new chunking embeds
only chunk texts the embedding cache lacks. The sweep counts the cache's rows before and after,
so it can state exactly how many corpus texts it embedded.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from store import evaluation_runs as stored_runs
from store.embedding_cache import embedding_counts
from workbench.config import DEFAULT_PRESET, ConfigError, WorkbenchConfig, flatten, overrides_between
from workbench.evaluation import metrics as m
from workbench.evaluation.golden import GoldenSet
from workbench.evaluation.inputs import run_inputs
from workbench.evaluation.intervals import against_best, mean_interval
from workbench.evaluation.runner import EvaluationResult, check_level, evaluate, judge_for
from workbench.evaluation.runs import save_run
from workbench.facade import WorkbenchFacade
from workbench.layout import Layout
from workbench.retrieval.ignored_keys import effective, ignored_keys
from workbench.retrieval.pipeline import needs_query_vectors


@dataclass(frozen=True)
class SweepPoint:
    """One grid combination: the values it sets and the full configuration they give."""

    overrides: dict[str, object]
    config: WorkbenchConfig
    #: grid keys this configuration ignores (``fusion.k`` under weighted fusion)
    ignored: tuple[str, ...] = ()
    #: the label of an earlier point that behaves the same (it differs only in ignored keys): not run again
    same_as: str | None = None

    @property
    def label(self) -> str:
        shown = " ".join(f"{key}={_show(value)}" for key, value in self.overrides.items() if key not in self.ignored)
        if not self.ignored:
            return shown
        return f"{shown} ({', '.join(self.ignored)} ignored)".strip()


@dataclass(frozen=True)
class LayoutGroup:
    layout: Layout
    points: tuple[SweepPoint, ...]


@dataclass(frozen=True)
class SweepProgress:
    done: int  # queries evaluated so far, over all points
    total: int
    point: int  # 1-based index of the point being evaluated
    points: int
    label: str
    elapsed_s: float

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0

    @property
    def eta_s(self) -> float | None:
        """Remaining time at the average pace so far (None before the first query finishes)."""
        if self.done == 0:
            return None
        return self.elapsed_s / self.done * (self.total - self.done)

    def describe(self) -> str:
        eta = self.eta_s
        remaining = f", ETA {_duration(eta)}" if eta is not None else ""
        return (
            f"[{self.point}/{self.points}] {self.label or 'base config'}: {self.done}/{self.total} queries, "
            f"{_duration(self.elapsed_s)} elapsed{remaining}"
        )


@dataclass
class SweepEntry:
    point: SweepPoint
    result: EvaluationResult


@dataclass
class SweepResult:
    collection: str
    golden: str
    level: str
    metric_names: tuple[str, ...]
    grid: dict[str, list[object]]  # key -> its values, as given
    base_config: WorkbenchConfig
    entries: list[SweepEntry] = field(default_factory=list)
    sweep_id: int | None = None
    layouts: int = 0
    embedded_texts: int = 0  # corpus (chunk) texts embedded because the cache lacked them
    chunk_texts: int = 0  # chunk texts of all evaluated layouts
    query_models: int = 0  # embedding models whose query vectors were computed (once each)
    llm_endpoint_calls: int = 0  # LLM requests sent to the endpoint (cache misses)
    llm_cached_calls: int = 0  # LLM calls answered from the reply cache
    elapsed_s: float = 0.0

    @property
    def distinct(self) -> list[SweepEntry]:
        """The entries that were run (a point that behaves like an earlier one is reported, not run)."""
        return [entry for entry in self.entries if entry.point.same_as is None]

    def best(self, metric: str = "ndcg@10") -> SweepEntry:
        if not self.entries:
            raise ValueError("the sweep has no results yet")
        if metric not in self.entries[0].result.metrics:
            raise ValueError(f"metric {metric!r} was not computed; the sweep has {', '.join(self.metric_names)}")
        # the first of equal scores wins, so the order of the grid breaks ties deterministically
        return max(self.distinct, key=lambda entry: entry.result.metrics[metric])

    def ranked(self, metric: str = "ndcg@10") -> list[SweepEntry]:
        return sorted(self.distinct, key=lambda entry: -entry.result.metrics[metric])

    def table(self, rank_by: str | None = None) -> list[dict[str, object]]:
        """One row per point: run id, the grid values, every metric, and which earlier point it is the
        same as when it differs from it only in keys its configuration ignores. With ``rank_by``:
        that metric's 95% interval over the queries, their number, and how the point stands against
        the best one (``workbench.evaluation.intervals.against_best``)."""
        standing: dict[int, str] = {}
        if rank_by and self.entries:
            scores = {i: e.result.per_query_values(rank_by) for i, e in enumerate(self.entries)}
            standing = against_best(scores, self.entries.index(self.best(rank_by)))
        rows = []
        for index, entry in enumerate(self.entries):
            row: dict[str, object] = {
                "run_id": entry.result.run_id,
                **{k: _show(v) for k, v in entry.point.overrides.items()},
                **entry.result.metrics,
            }
            values = list(entry.result.per_query_values(rank_by).values()) if rank_by else []
            if values:
                row[f"{rank_by} 95% interval"] = mean_interval(values).interval.describe_mean()
                row["queries"] = len(values)
                row["vs best"] = standing.get(index, "")
            if any(e.point.same_as or e.point.ignored for e in self.entries):
                row["same as"] = entry.point.same_as or ""
                row["ignored"] = ", ".join(entry.point.ignored)
            rows.append(row)
        return rows

    def reuse_summary(self) -> str:
        if self.embedded_texts == 0:
            embedded = f"embedded 0 corpus texts (all {self.chunk_texts} chunk texts cached)"
        else:
            embedded = (
                f"embedded {self.embedded_texts} corpus texts not in the cache (of {self.chunk_texts} chunk texts)"
            )
        if self.llm_endpoint_calls or self.llm_cached_calls:
            embedded += (
                f"; LLM: {self.llm_endpoint_calls} calls to the endpoint, {self.llm_cached_calls} "
                "answered from the cache"
            )
        return embedded

    def summary(self) -> dict[str, object]:
        return {
            "points": len(self.entries),
            "layouts": self.layouts,
            "embedded_texts": self.embedded_texts,
            "chunk_texts": self.chunk_texts,
            "query_models": self.query_models,
            "elapsed_s": self.elapsed_s,
            "llm_endpoint_calls": self.llm_endpoint_calls,
            "llm_cached_calls": self.llm_cached_calls,
            "run_ids": [entry.result.run_id for entry in self.entries],
        }


# -- the grid ---------------------------------------------------------------------------------


def parse_grid_argument(text: str) -> tuple[str, list[str]]:
    """``key=v1,v2`` -> (key, [v1, v2]). When values themselves hold commas (``fusion.weights``),
    separate them with ``;`` instead: ``fusion.weights=0.3,0.7;0.5,0.5``."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key or not raw.strip():
        raise ConfigError(f"--grid expects key=value1,value2,..., got {text!r}; e.g. --grid fusion.k=10,30,60")
    separator = ";" if ";" in raw else ","
    values = [value.strip() for value in raw.split(separator) if value.strip()]
    return key, values


def parse_grid(arguments: Iterable[str]) -> dict[str, list[str]]:
    grid: dict[str, list[str]] = {}
    for argument in arguments:
        key, values = parse_grid_argument(argument)
        if key in grid:
            raise ConfigError(f"--grid {key} given twice; list all its values in one --grid {key}=v1,v2")
        grid[key] = values
    if not grid:
        raise ConfigError("a sweep needs at least one --grid key=v1,v2")
    return grid


def expand(base: WorkbenchConfig, grid: Mapping[str, Sequence[object]]) -> list[SweepPoint]:
    """Every combination of the grid's values applied to ``base`` (the cartesian product).

    Values are checked and coerced by the config itself, so a typo fails before any work.
    Combinations giving an identical configuration are evaluated once. Combinations that differ
    only in keys their configuration ignores (``fusion.k`` under weighted fusion) are kept, so the
    report lists them, but marked ``same_as`` the first of them, which alone is run.
    """
    keys = list(grid)
    for key in keys:
        if not grid[key]:
            raise ConfigError(f"--grid {key} has no values")
        base.get(key)  # unknown keys fail here, with the list of known ones
    points: list[SweepPoint] = []
    seen: set[str] = set()
    behaves_like: dict[str, SweepPoint] = {}
    for combination in itertools.product(*(grid[key] for key in keys)):
        config = base
        for key, value in zip(keys, combination, strict=False):
            config = config.with_value(key, value)
        fingerprint = repr(sorted(config.flat().items()))
        if fingerprint in seen:
            continue
        seen.add(fingerprint)
        ignored = tuple(key for key in keys if key in ignored_keys(config))
        behaviour = repr(sorted(effective(config).flat().items()))
        point = SweepPoint({key: config.get(key) for key in keys}, config, ignored)
        first = behaves_like.setdefault(behaviour, point)
        points.append(point if first is point else dataclasses.replace(point, same_as=first.label))
    return points


#: what a first sweep varies, in order of preference; keys the base configuration ignores are skipped
DEFAULT_SWEEP_KEYS = ("fusion.k", "fusion.weights", "mmr.enabled", "retrieval.candidates")


def default_sweep_keys(base: WorkbenchConfig, count: int = 2) -> list[str]:
    """Keys worth varying first: ones ``base`` reads (never ``fusion.k`` under weighted fusion)."""
    ignored = ignored_keys(base)
    return [key for key in DEFAULT_SWEEP_KEYS if key not in ignored][:count]


def plan(points: Sequence[SweepPoint]) -> list[LayoutGroup]:
    """Points grouped by layout, in order of first appearance: one index load per group."""
    groups: dict[Layout, list[SweepPoint]] = {}
    for point in points:
        groups.setdefault(Layout.of(point.config), []).append(point)
    return [LayoutGroup(layout, tuple(group)) for layout, group in groups.items()]


# -- running ----------------------------------------------------------------------------------


def run_sweep(
    bench: WorkbenchFacade,
    collection: str,
    golden: GoldenSet,
    base_config: WorkbenchConfig,
    grid: Mapping[str, Sequence[object]],
    *,
    level: str = "doc",
    metric_names: Sequence[str] = m.DEFAULT_METRICS,
    progress: Callable[[SweepProgress], None] | None = None,
    store: bool = True,
) -> SweepResult:
    """Evaluate every grid point on ``collection``, storing each as a run."""
    bench.require_writable("Running a sweep")
    started = time.perf_counter()
    check_level(level)
    metric_names = m.validate(metric_names)
    points = expand(base_config, grid)
    groups = plan(points)
    result = SweepResult(
        collection,
        golden.name,
        level,
        metric_names,
        {k: list(v) for k, v in grid.items()},
        base_config,
        layouts=len(groups),
    )
    models = sorted({group.layout.embedding_model for group in groups})
    before = embedding_counts(bench.catalog, models)
    llm = bench.llm()
    llm_before = (llm.endpoint_calls, llm.cached_calls)
    if store:
        result.sweep_id = stored_runs.start_sweep(
            bench.catalog,
            collection=collection,
            golden=golden.name,
            level=level,
            base_config=base_config.to_dict(),
            grid={k: [_show(v) for v in vs] for k, vs in grid.items()},
            metrics=list(metric_names),
        )
    runs = [point for point in points if point.same_as is None]
    total = len(runs) * len(golden.queries)
    by_label: dict[str, EvaluationResult] = {}
    warmed: set[str] = set()
    status = "failed"
    try:
        for group in groups:
            judge = judge_for(bench, collection, group.points[0].config)
            result.chunk_texts += judge.chunk_count
            for point in group.points:
                if point.same_as is not None:  # behaves like a point already run: reported, not run
                    result.entries.append(SweepEntry(point, by_label[point.same_as]))
                    continue
                model = point.config.embedding.key
                if needs_query_vectors(point.config) and model not in warmed:
                    bench.embed_queries(model, [q.query for q in golden.queries])
                    warmed.add(model)
                index = len(by_label)
                evaluation = evaluate(
                    lambda text, cfg: bench.query(text, collection, cfg),
                    golden,
                    point.config,
                    collection,
                    judge,
                    level=level,
                    metric_names=metric_names,
                    progress=_forward(progress, index, len(runs), len(golden.queries), total, point.label, started),
                )
                by_label[point.label] = evaluation
                evaluation.label = point.label
                evaluation.inputs = run_inputs(bench.catalog, collection, point.config)
                if store:
                    save_run(
                        bench.catalog,
                        evaluation,
                        label=point.label,
                        overrides=_jsonable(point.overrides),
                        sweep_id=result.sweep_id,
                    )
                result.entries.append(SweepEntry(point, evaluation))
        status = "done"
    finally:
        after = embedding_counts(bench.catalog, models)
        result.embedded_texts = sum(after[model] - before[model] for model in models)
        result.query_models = len(warmed)
        result.llm_endpoint_calls = llm.endpoint_calls - llm_before[0]
        result.llm_cached_calls = llm.cached_calls - llm_before[1]
        result.elapsed_s = time.perf_counter() - started
        if store and result.sweep_id is not None:
            stored_runs.finish_sweep(bench.catalog, result.sweep_id, status, result.summary())
    return result


def _forward(
    progress: Callable[[SweepProgress], None] | None,
    index: int,
    points: int,
    queries: int,
    total: int,
    label: str,
    started: float,
) -> Callable[[int, int], None] | None:
    if progress is None:
        return None

    def report(done_in_point: int, _total_in_point: int) -> None:
        progress(
            SweepProgress(
                index * queries + done_in_point, total, index + 1, points, label, time.perf_counter() - started
            )
        )

    return report


def save_best_as_preset(
    bench: WorkbenchFacade, sweep: SweepResult, name: str, metric: str = "ndcg@10", description: str | None = None
) -> dict[str, object]:
    """Save the best point as preset ``name``: the keys the sweep varied, at their best values, and
    whatever else the sweep's configuration set over the collection's own (the preset it started
    from). The collection's own settings (its model, chunking, encoder runtime) are left out: they
    come with the collection, and ``config_for(collection, name)`` gives the best configuration."""
    bench.require_writable("Saving a preset")
    best = sweep.best(metric)
    chosen = best.point.config.flat()
    overrides = overrides_between(bench.config_for(sweep.collection, DEFAULT_PRESET), best.point.config)
    kept = [*sweep.grid, *bench.preset_overrides(DEFAULT_PRESET)]
    overrides.update({key: chosen[key] for key in kept if key in chosen})
    description = description or (
        f"best {metric} = {best.result.metrics[metric]:.4f} in sweep"
        f"{' #' + str(sweep.sweep_id) if sweep.sweep_id else ''} on {sweep.collection}/{sweep.golden} ({sweep.level})"
    )
    return bench.save_preset(name, overrides, description)


def _show(value: object) -> object:
    """Grid values as typed: tuples (fusion.weights) as "0.3,0.7", the rest unchanged."""
    if isinstance(value, (tuple, list)):
        return ",".join(str(v) for v in value)
    return value


def _jsonable(overrides: Mapping[str, object]) -> dict[str, object]:
    return {key: list(value) if isinstance(value, tuple) else value for key, value in flatten(overrides).items()}


def _duration(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, rest = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes} min {rest:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"
