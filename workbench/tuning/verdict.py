"""How much better the winner is than the starting configuration on held-out queries, with an interval.

Paired bootstrap, percentile interval: with d_i = winner_i - base_i over the n held-out queries
both scored, draw R resamples of n indices with replacement, take each resample's mean of d, and
report the (1 - c) / 2 and (1 + c) / 2 quantiles of those R means (c = 0.95 by default). The RNG
is seeded, so a verdict is repeatable. Pairing matters: the two configurations are scored on the
same queries, so query difficulty cancels and only the difference varies.

The verdict reads the interval: above zero, the winner is better; below zero, worse; covering
zero, it is "not distinguishable from your current configuration", and ``tune`` saves nothing
unless forced.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

DEFAULT_RESAMPLES = 10_000
DEFAULT_CONFIDENCE = 0.95
#: fewer paired queries than this and the interval is said to be rough
FEW_QUERIES = 10
_BATCH = 1_000

NOT_DISTINGUISHABLE = "not distinguishable from your current configuration"


@dataclass(frozen=True)
class Interval:
    low: float
    high: float
    confidence: float = DEFAULT_CONFIDENCE

    def covers(self, value: float = 0.0) -> bool:
        return self.low <= value <= self.high

    def describe(self) -> str:
        return f"[{self.low:+.4f}, {self.high:+.4f}]"

    def to_dict(self) -> dict[str, float]:
        return {"low": self.low, "high": self.high, "confidence": self.confidence}


def paired_bootstrap_interval(
    differences: Sequence[float] | np.ndarray,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Interval:
    """The percentile bootstrap interval of the mean of paired ``differences`` (see module doc)."""
    values = np.asarray(differences, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError("a bootstrap interval needs at least one paired difference")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    for offset in range(0, resamples, _BATCH):
        count = min(_BATCH, resamples - offset)
        picks = rng.integers(0, values.size, size=(count, values.size))
        means[offset : offset + count] = values[picks].mean(axis=1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return Interval(float(low), float(high), confidence)


@dataclass(frozen=True)
class Paired:
    """Two configurations' scores on the queries both were scored on, in query-id order."""

    query_ids: tuple[str, ...]
    base: tuple[float, ...]
    winner: tuple[float, ...]

    @property
    def differences(self) -> tuple[float, ...]:
        return tuple(w - b for w, b in zip(self.winner, self.base, strict=True))


def pair(base: Mapping[str, float], winner: Mapping[str, float]) -> Paired:
    ids = tuple(sorted(set(base) & set(winner)))
    return Paired(ids, tuple(base[i] for i in ids), tuple(winner[i] for i in ids))


@dataclass(frozen=True)
class Gain:
    """The winner against the starting configuration on held-out queries."""

    metric: str
    queries: int
    base: float  # the starting configuration's mean on those queries
    winner: float
    interval: Interval
    resamples: int
    seed: int

    @property
    def mean(self) -> float:
        return self.winner - self.base

    @property
    def better(self) -> bool:
        """The whole interval lies above zero: the only case ``tune`` saves a preset without --force."""
        return self.interval.low > 0

    @property
    def worse(self) -> bool:
        return self.interval.high < 0

    def verdict(self) -> str:
        if self.better:
            return "better than your current configuration"
        if self.worse:
            return "worse than your current configuration"
        return NOT_DISTINGUISHABLE

    def describe(self) -> str:
        level = f"{self.interval.confidence:.0%}"
        rough = (
            f"; only {self.queries} held-out queries, so the interval is rough" if self.queries < FEW_QUERIES else ""
        )
        return (
            f"held-out {self.metric}: {self.base:.4f} -> {self.winner:.4f}, gain {self.mean:+.4f}, "
            f"{level} interval {self.interval.describe()} over {self.queries} queries "
            f"(paired bootstrap, {self.resamples} resamples){rough}: {self.verdict()}"
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "metric": self.metric,
            "queries": self.queries,
            "base": self.base,
            "winner": self.winner,
            "gain": self.mean,
            "interval": self.interval.to_dict(),
            "resamples": self.resamples,
            "seed": self.seed,
            "verdict": self.verdict(),
        }


def held_out_gain(
    metric: str,
    paired: Paired,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Gain:
    if not paired.query_ids:
        raise ValueError("no held-out query was scored under both configurations")
    interval = paired_bootstrap_interval(paired.differences, resamples, seed, confidence)
    return Gain(
        metric,
        len(paired.query_ids),
        float(np.mean(paired.base)),
        float(np.mean(paired.winner)),
        interval,
        resamples,
        seed,
    )
