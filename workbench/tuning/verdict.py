"""How much better the winner is than the starting configuration on held-out queries, with an interval.

The interval is the paired bootstrap of ``workbench.evaluation.intervals`` (the one
implementation) over d_i = winner_i - base_i on the n held-out queries both scored.

The verdict reads the interval: above zero, the winner is better; below zero, worse; covering
zero, it is "not distinguishable from your current configuration", and ``tune`` saves nothing
unless forced.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from workbench.evaluation.intervals import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    Interval,
    paired_bootstrap_interval,
)
from workbench.evaluation.power import Power, power_of

NOT_DISTINGUISHABLE = "not distinguishable from your current configuration"


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
    #: how many queries a gain would need to show (``workbench.evaluation.power``)
    power: Power | None = None

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
        return (
            f"held-out {self.metric}: {self.base:.4f} -> {self.winner:.4f}, gain {self.mean:+.4f}, "
            f"{level} interval {self.interval.describe()} over {self.queries} queries "
            f"(paired bootstrap, {self.resamples} resamples): {self.verdict()}"
        )

    def power_note(self) -> str:
        """Said when the held-out queries are few or cannot tell: how many a gain would need."""
        if self.power is None or not (self.power.few or not (self.better or self.worse)):
            return ""
        return self.power.note().replace(" queries, so", " held-out queries, so", 1)

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
            "power": self.power.to_dict() if self.power else None,
            "power_note": self.power_note(),
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
        power_of(paired.differences),
    )
