"""95% intervals for means over queries: the one bootstrap every number with an interval uses.

Percentile bootstrap: with values x_1..x_n (one per query), draw R resamples of n indices with
replacement, take each resample's mean, and report the (1 - c) / 2 and (1 + c) / 2 quantiles of
those R means (c = 0.95 by default). The RNG is seeded, so an interval is repeatable.

- A single mean (``eval``, the runs table, a sweep cell): x_i is the query's metric.
- A difference of two configurations (``tune``, ``check``, ``compare``): x_i = b_i - a_i on the
  queries both scored, the paired bootstrap. Pairing matters: both are scored on the same
  queries, so query difficulty cancels and only the difference varies.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

DEFAULT_RESAMPLES = 10_000
DEFAULT_CONFIDENCE = 0.95
_BATCH = 1_000


@dataclass(frozen=True)
class Interval:
    low: float
    high: float
    confidence: float = DEFAULT_CONFIDENCE

    def covers(self, value: float = 0.0) -> bool:
        return self.low <= value <= self.high

    def describe(self) -> str:
        """Signed, for a difference: ``[-0.0123, +0.0456]``."""
        return f"[{self.low:+.4f}, {self.high:+.4f}]"

    def describe_mean(self) -> str:
        """Unsigned, for a mean: ``[0.9012, 0.9788]``."""
        return f"[{self.low:.4f}, {self.high:.4f}]"

    def to_dict(self) -> dict[str, float]:
        return {"low": self.low, "high": self.high, "confidence": self.confidence}


def bootstrap_interval(
    values: Sequence[float] | np.ndarray,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Interval:
    """The percentile bootstrap interval of the mean of ``values`` (see the module doc)."""
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1 or array.size == 0:
        raise ValueError("a bootstrap interval needs at least one value")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    for offset in range(0, resamples, _BATCH):
        count = min(_BATCH, resamples - offset)
        picks = rng.integers(0, array.size, size=(count, array.size))
        means[offset : offset + count] = array[picks].mean(axis=1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return Interval(float(low), float(high), confidence)


def paired_bootstrap_interval(
    differences: Sequence[float] | np.ndarray,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Interval:
    """The interval of a mean paired difference: the bootstrap above over d_i = b_i - a_i."""
    if np.asarray(differences).size == 0:
        raise ValueError("a bootstrap interval needs at least one paired difference")
    return bootstrap_interval(differences, resamples, seed, confidence)


@dataclass(frozen=True)
class MeanInterval:
    """A mean over queries with its 95% interval and the number of queries it is over."""

    mean: float
    interval: Interval
    queries: int

    def describe(self) -> str:
        return f"{self.mean:.4f} {self.interval.describe_mean()} over {self.queries} queries"

    def to_dict(self) -> dict[str, object]:
        return {"mean": self.mean, "queries": self.queries, "interval": self.interval.to_dict()}


def mean_interval(values: Sequence[float], resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> MeanInterval:
    return MeanInterval(float(np.mean(values)), bootstrap_interval(values, resamples, seed), len(values))


def metric_intervals(
    per_query: Iterable[Mapping[str, float]], names: Iterable[str], resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> dict[str, MeanInterval]:
    """Each metric of ``names`` as a mean with its interval, from the queries' metric dicts
    (a metric no query has is left out)."""
    rows = list(per_query)
    found = {}
    for name in names:
        values = [row[name] for row in rows if name in row]
        if values:
            found[name] = mean_interval(values, resamples, seed)
    return found


K = TypeVar("K", bound=Hashable)

#: how a configuration stands against the best one (paired bootstrap of its difference)
BEST, NOT_DISTINGUISHABLE, LOWER = "best", "not distinguishable", "lower"


def against_best(
    scores: Mapping[K, Mapping[str, float]], best: K, resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> dict[K, str]:
    """For each configuration of ``scores`` (name -> query id -> metric): ``best``, ``not
    distinguishable`` when the paired interval of (it - best) reaches zero, else ``lower``."""
    standing: dict[K, str] = {}
    for name, values in scores.items():
        if name == best:
            standing[name] = BEST
            continue
        shared = [qid for qid in values if qid in scores[best]]
        if not shared:
            standing[name] = NOT_DISTINGUISHABLE
            continue
        interval = paired_bootstrap_interval([values[q] - scores[best][q] for q in shared], resamples, seed)
        standing[name] = NOT_DISTINGUISHABLE if interval.high >= 0 else LOWER
    return standing
