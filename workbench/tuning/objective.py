"""One trial: a configuration evaluated on the queries it may see, giving the metric and p95 latency.

``Evaluator`` scores a configuration on a golden set with ``workbench.evaluation.runner.evaluate``
(the same metrics, judgements and depth as ``eval``) and times each query from its trace
(``Trace.total_ms``: the pipeline, without loading indexes). It keeps, per layout, the relevance
judge, and per embedding model, the query vectors: a new layout is built on first use
(``Workbench.snapshot``: chunks, the texts the embedding cache lacks, indexes), and every later
trial on it only queries.

A query's score under a configuration does not depend on which other queries it is scored with,
so the evaluator keeps each (configuration, query) score and its time once measured, and answers
from it when the same effective configuration (keys a configuration ignores count as their
defaults: ``workbench.evaluation.inputs.config_hash``) meets the same query again: in another fold
of a nested cross-validation (they share four fifths of their queries), or when TPE suggests it
again. How much that saves depends on how often configurations repeat: on the own-collection
bench's 205 queries, a 10-trial 5-fold study ran 10,001 queries instead of 10,660, with the same
verdict.

``tuning_objective`` closes over the tuning queries alone: the study calls it with a
configuration and never holds the held-out part of the split.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from workbench.config import WorkbenchConfig
from workbench.evaluation.golden import GoldenQuery, GoldenSet
from workbench.evaluation.inputs import config_hash
from workbench.evaluation.relevance import ChunkJudge
from workbench.evaluation.runner import evaluate, judge_for
from workbench.facade import WorkbenchFacade
from workbench.ingestion.sources import Progress
from workbench.layout import Layout
from workbench.retrieval.pipeline import needs_query_vectors
from workbench.retrieval.trace import Trace

P95 = 95.0


class Stopped(Exception):
    """The user asked the study to stop (Ctrl-C, or Stop in the app)."""


#: how a layout opened for a trial is announced (the app's progress reads it: ``workbench.tuning.job``)
OPENING = "opening layout "


@dataclass(frozen=True)
class Score:
    """A configuration on a set of queries: the metric's mean, its per-query values and p95 latency."""

    metric: float
    p95_ms: float
    per_query: Mapping[str, float]
    queries: int


def p95(values: Sequence[float]) -> float:
    """The 95th percentile (linear interpolation between order statistics; 0 for no values)."""
    return float(np.percentile(np.asarray(values, dtype=np.float64), P95)) if len(values) else 0.0


@dataclass
class Evaluator:
    bench: WorkbenchFacade
    collection: str
    metric: str
    level: str = "doc"
    #: told "building layout ..." before a new layout is built, and its build's progress events
    on_build: Callable[[str], None] | None = None
    cancel: threading.Event | None = None
    #: called before each query: where a job lets interactive calls go first (the MCP server's)
    pace: Callable[[], object] | None = None
    _judges: dict[Layout, ChunkJudge] = field(default_factory=dict)
    _warmed: set[tuple[str, str]] = field(default_factory=set)
    #: (configuration hash, query id, query text) -> (metric value, ms): the value None when the
    #: query has no score at this level, the time None when it was not run (skipped)
    _measured: dict[tuple[str, str, str], tuple[float | None, float | None]] = field(default_factory=dict)

    def _check_cancel(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise Stopped("stopped")

    def judge(self, config: WorkbenchConfig) -> ChunkJudge:
        layout = Layout.of(config)
        found = self._judges.get(layout)
        if found is None:
            if self.on_build is not None:
                self.on_build(f"{OPENING}{layout.chunkset_key} (built first if it does not exist)")

            def building(event: Progress) -> None:
                self._check_cancel()  # a stop lands between batches; what was committed stays
                if self.on_build is not None and event.stage == "embed" and event.done == event.total:
                    self.on_build(f"building layout {layout.chunkset_key}: {event.source}")

            self.bench.snapshot(self.collection, config, building)
            found = self._judges[layout] = judge_for(self.bench, self.collection, config)
        return found

    def score(self, golden: GoldenSet, config: WorkbenchConfig) -> Score:
        """Evaluate ``config`` on ``golden``'s queries (those it was scored on before, from memory)."""
        self._check_cancel()
        configuration = config_hash(config)

        def key(query: GoldenQuery) -> tuple[str, str, str]:
            return configuration, query.id, query.query

        unmeasured = tuple(q for q in golden.queries if key(q) not in self._measured)
        if unmeasured:
            self._measure(GoldenSet(golden.name, unmeasured), config, key)
        measured = [(q.id, *self._measured[key(q)]) for q in golden.queries]
        per_query = {query_id: value for query_id, value, _ in measured if value is not None}
        timings = [ms for _, _, ms in measured if ms is not None]
        mean = float(np.mean(list(per_query.values()))) if per_query else 0.0
        return Score(mean, p95(timings), per_query, len(per_query))

    def _measure(
        self, golden: GoldenSet, config: WorkbenchConfig, key: Callable[[GoldenQuery], tuple[str, str, str]]
    ) -> None:
        judge = self.judge(config)
        model = config.embedding.key
        if needs_query_vectors(config) and (model, golden.name) not in self._warmed:
            self.bench.embed_queries(model, [q.query for q in golden.queries])
            self._warmed.add((model, golden.name))
        timings: dict[str, float] = {}

        def run_query(text: str, run_config: WorkbenchConfig) -> Trace:
            self._check_cancel()
            if self.pace is not None:
                self.pace()  # before the clock starts: a trial's p95 is its own queries' time
            trace = self.bench.query(text, self.collection, run_config)
            timings[text] = trace.total_ms
            return trace

        result = evaluate(
            run_query,
            golden,
            config,
            self.collection,
            judge,
            level=self.level,
            metric_names=(self.metric,),
            stages=False,  # a trial is judged by its final ranking only
        )
        values = result.per_query_values(self.metric)
        for query in golden.queries:
            value = values.get(query.id)
            self._measured[key(query)] = (value, timings.get(query.query))


Objective = Callable[[WorkbenchConfig], Score]


def tuning_objective(evaluator: Evaluator, tuning: GoldenSet) -> Objective:
    """The study's objective: ``config`` scored on the tuning queries, and on nothing else."""

    def objective(config: WorkbenchConfig) -> Score:
        return evaluator.score(tuning, config)

    return objective
