"""Compare two evaluation runs query by query, with a paired significance test.

The runs are paired on query id. For one metric, each query's difference ``b - a`` decides a
win (b better), a loss or a tie; the queries that moved most are listed; and a paired
randomization test asks how likely a mean difference at least this large is if the two
systems were interchangeable.

Paired randomization (sign-flip) test, two-sided: under the null hypothesis each query's pair
of scores could have come from either system, so each difference is equally likely to have
either sign. With d_i the differences and D = mean(d), draw R random sign vectors s, compute
D_r = mean(s_i * d_i) and report p = (1 + #{r : |D_r| >= |D|}) / (R + 1). The +1 counts the
observed assignment itself, so p is never 0. The RNG is seeded, so a comparison is repeatable.

Each metric's difference also carries its paired bootstrap 95% interval
(``workbench.evaluation.intervals``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.config import flatten
from workbench.evaluation.intervals import Interval, paired_bootstrap_interval
from workbench.evaluation.runner import EvaluationResult

TIE_TOLERANCE = 1e-12
DEFAULT_PERMUTATIONS = 10_000
_BATCH = 1_000  # sign vectors drawn at a time, so thousands of queries stay within memory


@dataclass(frozen=True)
class SignificanceTest:
    method: str
    mean_difference: float
    p_value: float
    permutations: int
    seed: int
    null_distribution: tuple[float, ...]  # the R permuted mean differences (for the plot)


@dataclass(frozen=True)
class QueryChange:
    query_id: str
    query: str
    a: float
    b: float

    @property
    def delta(self) -> float:
        return self.b - self.a


@dataclass(frozen=True)
class MetricDelta:
    metric: str
    a: float
    b: float
    #: the paired bootstrap 95% interval of the mean of b - a over the paired queries
    interval: Interval | None = None

    @property
    def delta(self) -> float:
        return self.b - self.a


@dataclass(frozen=True)
class Comparison:
    run_a: int | None
    run_b: int | None
    metric: str
    deltas: tuple[MetricDelta, ...]  # every metric both runs report, on the paired queries
    changes: tuple[QueryChange, ...]  # per paired query, largest |delta| first
    test: SignificanceTest
    config_changes: tuple[tuple[str, object, object], ...]  # (key, value in a, value in b)
    only_in_a: tuple[str, ...] = ()
    only_in_b: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def wins(self) -> int:
        return sum(1 for c in self.changes if c.delta > TIE_TOLERANCE)

    @property
    def losses(self) -> int:
        return sum(1 for c in self.changes if c.delta < -TIE_TOLERANCE)

    @property
    def ties(self) -> int:
        return len(self.changes) - self.wins - self.losses

    def most_changed(self, n: int = 10) -> list[QueryChange]:
        return [c for c in self.changes[:n] if abs(c.delta) > TIE_TOLERANCE]


def paired_randomization_test(
    a: np.ndarray | list[float], b: np.ndarray | list[float], permutations: int = DEFAULT_PERMUTATIONS, seed: int = 0
) -> SignificanceTest:
    """Two-sided sign-flip test of mean(b - a) = 0 over paired per-query scores (see module doc)."""
    differences = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    if differences.ndim != 1:
        raise ValueError("paired scores must be two equally long 1-D sequences")
    if permutations < 1:
        raise ValueError(f"permutations must be at least 1, got {permutations}")
    observed = float(differences.mean()) if differences.size else 0.0
    if differences.size == 0 or not np.any(np.abs(differences) > TIE_TOLERANCE):
        # identical systems: every sign assignment gives the observed (zero) difference
        return SignificanceTest("paired randomization", observed, 1.0, permutations, seed, (0.0,) * permutations)
    rng = np.random.default_rng(seed)
    null = np.empty(permutations)
    for offset in range(0, permutations, _BATCH):
        count = min(_BATCH, permutations - offset)
        signs = rng.integers(0, 2, size=(count, differences.size)) * 2 - 1
        null[offset : offset + count] = (signs * differences).mean(axis=1)
    extreme = int(np.count_nonzero(np.abs(null) >= abs(observed) - TIE_TOLERANCE))
    p_value = (1 + extreme) / (permutations + 1)
    return SignificanceTest("paired randomization", observed, p_value, permutations, seed, tuple(null.tolist()))


def config_changes(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[tuple[str, object, object], ...]:
    flat_a, flat_b = flatten(a), flatten(b)
    return tuple(
        (key, flat_a.get(key), flat_b.get(key))
        for key in sorted(set(flat_a) | set(flat_b))
        if flat_a.get(key) != flat_b.get(key)
    )


def _delta(name: str, a: Sequence[Mapping[str, float]], b: Sequence[Mapping[str, float]], seed: int) -> MetricDelta:
    pairs = [(x[name], y[name]) for x, y in zip(a, b, strict=True) if name in x and name in y]
    if not pairs:
        return MetricDelta(name, float("nan"), float("nan"))
    interval = paired_bootstrap_interval([y - x for x, y in pairs], seed=seed)
    return MetricDelta(name, float(np.mean([x for x, _ in pairs])), float(np.mean([y for _, y in pairs])), interval)


def compare_runs(
    a: EvaluationResult,
    b: EvaluationResult,
    metric: str = "ndcg@10",
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = 0,
) -> Comparison:
    """Pair ``a`` and ``b`` on query id and compare them on ``metric`` (b relative to a)."""
    if metric not in a.metrics or metric not in b.metrics:
        shared = sorted(set(a.metrics) & set(b.metrics))
        raise ValueError(f"metric {metric!r} is not in both runs; both have: {', '.join(shared) or 'nothing'}")
    warnings = []
    for what, left, right in (
        ("collection", a.collection, b.collection),
        ("golden set", a.golden, b.golden),
        ("level", a.level, b.level),
    ):
        if left != right:
            warnings.append(f"the runs differ in {what} ({left} vs {right}); the pairing may not be meaningful")
    if a.golden == b.golden and a.golden_hash and b.golden_hash and a.golden_hash != b.golden_hash:
        warnings.append(
            f"the runs used different contents of golden set {a.golden!r} (hash {a.golden_hash} vs "
            f"{b.golden_hash}): it was edited between them, so the two are not measured on the same set"
        )
    elif a.golden == b.golden and bool(a.golden_hash) != bool(b.golden_hash):
        warnings.append(
            f"only one run recorded the content of golden set {a.golden!r}; it may have changed between them"
        )
    queries_a = {q.query_id: q for q in a.per_query}
    queries_b = {q.query_id: q for q in b.per_query}
    paired = [qid for qid in queries_a if qid in queries_b]
    if not paired:
        raise ValueError("the two runs share no query ids; compare runs of the same golden set")
    changes = [
        QueryChange(qid, queries_a[qid].query, queries_a[qid].metrics[metric], queries_b[qid].metrics[metric])
        for qid in paired
    ]
    test = paired_randomization_test([c.a for c in changes], [c.b for c in changes], permutations, seed)
    shared_metrics = [name for name in a.metrics if name in b.metrics]
    deltas = tuple(
        _delta(name, [queries_a[q].metrics for q in paired], [queries_b[q].metrics for q in paired], seed)
        for name in shared_metrics
    )
    only_a = tuple(q for q in queries_a if q not in queries_b)
    only_b = tuple(q for q in queries_b if q not in queries_a)
    if only_a or only_b:
        warnings.append(
            f"{len(only_a)} queries only in run a and {len(only_b)} only in run b are left out; "
            f"metrics are over the {len(paired)} shared queries"
        )
    ordered = tuple(sorted(changes, key=lambda c: (-abs(c.delta), c.query_id)))
    return Comparison(
        a.run_id,
        b.run_id,
        metric,
        deltas,
        ordered,
        test,
        config_changes(a.config, b.config),
        only_a,
        only_b,
        tuple(warnings),
    )


def compare_pickers(run_ids: list[int], a: int | None, b: int | None, known: frozenset[int] | None) -> tuple[int, int]:
    """The runs the compare pickers show: the user's pick while it holds, else the baseline ``a`` as
    the older and the new ``b`` as the newest run. A new run (``known`` differs) resets them to
    that default, so the run just made is compared against the one before it."""
    ordered = sorted(run_ids, reverse=True)  # run ids grow with time: newest first
    newest = ordered[0]
    older = ordered[1] if len(ordered) > 1 else newest
    if known != frozenset(run_ids) or a not in run_ids or b not in run_ids or (a == b and len(ordered) > 1):
        return older, newest
    return a, b
