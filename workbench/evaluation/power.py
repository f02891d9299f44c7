"""How many queries a gain needs before an interval can show it: power, said in words.

Method (the normal approximation for a paired comparison): to show a mean gain g with a two-sided
5% test and 80% power, with sd the standard deviation of the per-query differences (b - a),

    n ≈ ((1.96 + 0.84) · sd / g)²

queries are needed (1.96: the 97.5% normal quantile; 0.84: the 80% one). The spread comes from the
comparison itself when its differences vary; when they do not (a handful of queries that all
tie, say) it cannot, and the typical spread below stands in, said so.

The typical spread, 0.12, is what this workbench measured: ``tune`` on SciFact gained +0.0142
with the 95% interval [+0.0006, +0.0278] over 300 queries, so sd ≈ 0.0136 · √300 / 1.96 ≈ 0.12;
on the demo, 7 held-out queries gave an interval about 0.09 wide each side, sd ≈ 0.09 · √7 / 1.96
≈ 0.12 (docs/tuning.md). With it, a gain of 0.05 needs about 46 queries and 0.02 about 283.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Z_CONFIDENCE = 1.96  # two-sided 5%
Z_POWER = 0.84  # 80% power
#: the per-query sd of a difference between two configurations, as measured (see the module doc)
TYPICAL_SPREAD = 0.12
#: the gain every note prices, beside the gain observed
REFERENCE_GAIN = 0.02
#: fewer queries than this and a note says the interval is rough
FEW_QUERIES = 10


def queries_needed(spread: float, gain: float) -> int | None:
    """n ≈ ((1.96 + 0.84) · spread / gain)², rounded up; None for a gain of 0 (no number shows it)."""
    if gain == 0 or not math.isfinite(gain):
        return None
    return max(2, math.ceil(((Z_CONFIDENCE + Z_POWER) * spread / abs(gain)) ** 2))


@dataclass(frozen=True)
class Power:
    queries: int  # the queries compared
    gain: float  # the mean difference observed
    spread: float  # the sd used: the differences' own, or TYPICAL_SPREAD
    measured: bool  # the spread is the differences' own

    @property
    def few(self) -> bool:
        return self.queries < FEW_QUERIES

    def needed(self, gain: float) -> int | None:
        return queries_needed(self.spread, gain)

    def describe(self) -> str:
        """One sentence: how many queries a gain of 0.02 and the observed gain would need to show."""
        source = (
            f"the per-query differences' spread (sd {self.spread:.3f})"
            if self.measured
            else f"a typical spread (sd {TYPICAL_SPREAD:.2f}; these differences do not vary)"
        )
        parts = [f"a gain of {REFERENCE_GAIN:.2f} would need about {self.needed(REFERENCE_GAIN):,} queries to show"]
        observed = self.needed(self.gain)
        if observed is not None and abs(self.gain) >= 0.00005:
            parts.append(f"the gain observed ({self.gain:+.4f}) about {observed:,}")
        return f"{', '.join(parts)} (from {source}, 95% confidence, 80% power)"

    def note(self) -> str:
        """The few-queries note and the estimate, for tune, check and the app."""
        few = f"only {self.queries} queries, so the interval is rough; " if self.few else ""
        return few + self.describe()

    def to_dict(self) -> dict[str, object]:
        return {
            "queries": self.queries,
            "spread": self.spread,
            "spread_measured": self.measured,
            "few": self.few,
            f"queries_needed_for_{REFERENCE_GAIN:g}": self.needed(REFERENCE_GAIN),
            "queries_needed_for_observed_gain": self.needed(self.gain),
        }


def power_of(differences: Sequence[float]) -> Power:
    """The power note of a comparison from its per-query differences (b - a)."""
    values = np.asarray(differences, dtype=np.float64)
    if values.size == 0:
        raise ValueError("power needs at least one paired difference")
    spread = float(values.std(ddof=1)) if values.size > 1 else 0.0
    measured = spread > 0
    return Power(int(values.size), float(values.mean()), spread if measured else TYPICAL_SPREAD, measured)


def synthesis_size(gain: float = 0.05, kept: float = 0.9) -> int:
    """Questions to ask the LLM for so that the set kept can show ``gain`` at the typical spread:
    the queries needed, over the share of questions kept (a question whose quote is not found is
    dropped; about 1 in 10 was in issue 36's walk)."""
    needed = queries_needed(TYPICAL_SPREAD, gain) or 0
    return math.ceil(needed / kept)
