"""A second opinion on a tuned preset: its gain on questions written after the study, against the gain it claimed.

``tune --save-preset`` records in the preset's provenance what the study reported: the held-out
gain, its 95% interval, the number of queries, the level and metric, and the starting
configuration (``base_overrides``; a preset saved before that was recorded names it in
``based_on``). ``check --preset P --golden FRESH`` without ``--baseline`` evaluates the preset and
that starting configuration on a fresh golden set, and says whether the fresh gain lies inside the
interval the study reported: inside, the study's estimate holds on questions it never saw.

Outside is not yet evidence against the study: the fresh gain is itself an estimate on a sample of
questions. The two gains come from disjoint sets of queries, so their difference has the standard
error √(se_study² + se_fresh²), each se read off its 95% interval (half its width over 1.96, the
normal approximation). When the difference's 95% interval covers zero, the fresh gain is outside
but consistent with the study (more fresh questions would tell); when it does not, the study
overstated the gain (fresh below) or understated it (fresh above).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from workbench.evaluation.intervals import Interval

#: the normal quantile of a two-sided 95% interval
Z_95 = 1.959964


class NoClaim(ValueError):
    """The preset records no study to check against; the message names the fix."""


@dataclass(frozen=True)
class StudyClaim:
    """What a tune study reported for the preset it saved."""

    study: str
    golden: str
    level: str
    metric: str
    gain: float
    low: float
    high: float
    queries: int
    base_overrides: dict[str, Any] | None  # the starting configuration's keys (None: before they were recorded)
    based_on: str  # "preset default", "preset x with --set a=b"

    def describe(self) -> str:
        return (
            f"study {self.study} reported {self.metric} gain {self.gain:+.4f} [{self.low:+.4f}, {self.high:+.4f}] "
            f"over {self.queries} held-out queries of {self.golden!r} at {self.level} level"
        )


def study_claim(preset: str, provenance: Mapping[str, Any] | None) -> StudyClaim:
    """The claim ``preset``'s provenance records; ``NoClaim`` when it was not saved by tune with a verdict."""
    if not provenance or provenance.get("tool") != "tune":
        raise NoClaim(
            f"preset {preset!r} was not saved by tune, so it has no reported gain to check; "
            "pass --baseline RUN_OR_PRESET to compare it with a baseline"
        )
    held_out = provenance.get("held_out")
    if not isinstance(held_out, Mapping) or not isinstance(held_out.get("interval"), Mapping):
        raise NoClaim(f"preset {preset!r}'s study recorded no held-out gain; pass --baseline RUN_OR_PRESET")
    interval = held_out["interval"]
    overrides = provenance.get("base_overrides")
    return StudyClaim(
        study=str(provenance.get("study", "?")),
        golden=str(provenance.get("golden", "?")),
        level=str(provenance.get("level", "doc")),
        metric=str(held_out.get("metric") or provenance.get("metric", "ndcg@10")),
        gain=float(held_out["gain"]),
        low=float(interval["low"]),
        high=float(interval["high"]),
        queries=int(held_out.get("queries", 0)),
        base_overrides=dict(overrides) if isinstance(overrides, Mapping) else None,
        based_on=str(provenance.get("based_on", "")),
    )


def starting_preset(claim: StudyClaim) -> str:
    """The preset a study without recorded ``base_overrides`` started from (its ``based_on``)."""
    name = claim.based_on.removeprefix("preset ").strip()
    if not claim.based_on.startswith("preset ") or " with " in name or not name:
        raise NoClaim(
            f"study {claim.study} started from {claim.based_on or 'an unrecorded configuration'}, which cannot be "
            "rebuilt; pass --baseline RUN_OR_PRESET"
        )
    return name


@dataclass(frozen=True)
class SecondOpinion:
    claim: StudyClaim
    golden: str  # the fresh set
    level: str
    queries: int
    gain: float  # preset minus its starting configuration on the fresh queries
    interval: Interval

    @property
    def inside(self) -> bool:
        return self.claim.low <= self.gain <= self.claim.high

    @property
    def difference(self) -> tuple[float, Interval]:
        """The fresh gain minus the study's, with its 95% interval (normal approximation)."""
        spread = math.hypot(
            (self.claim.high - self.claim.low) / 2 / Z_95, (self.interval.high - self.interval.low) / 2 / Z_95
        )
        difference = self.gain - self.claim.gain
        return difference, Interval(difference - Z_95 * spread, difference + Z_95 * spread)

    @property
    def consistent(self) -> bool:
        """Whether the fresh gain could differ from the study's by chance (the difference's interval covers 0)."""
        return self.difference[1].covers(0.0)

    def verdict(self) -> str:
        if self.inside:
            return "inside the interval the study reported: its estimate holds on questions it never saw"
        side = "below" if self.gain < self.claim.low else "above"
        difference, interval = self.difference
        between = f"the two gains differ by {difference:+.4f} {interval.describe()}"
        if self.consistent:
            overstated = "overstated" if side == "below" else "understated"
            return (
                f"{side} the interval the study reported, but not significantly ({between}, which covers zero): "
                f"consistent with the study; more fresh questions would tell whether it {overstated} the gain"
            )
        meaning = "the study overstated the gain" if side == "below" else "the study understated the gain"
        return f"{side} the interval the study reported: {meaning} ({between})"

    def describe(self) -> str:
        text = (
            f"second opinion on {self.queries} queries of {self.golden!r} at {self.level} level: {self.claim.metric} "
            f"gain {self.gain:+.4f} {self.interval.describe()}; {self.claim.describe()}: the fresh gain lies "
            f"{self.verdict()}"
        )
        if self.golden == self.claim.golden:
            text += f" (caution: {self.golden!r} is the set the study tuned on, not a fresh one)"
        if self.level != self.claim.level:
            text += f" (caution: the study measured at {self.claim.level} level)"
        return text

    def to_dict(self) -> dict[str, object]:
        return {
            "golden": self.golden,
            "level": self.level,
            "queries": self.queries,
            "gain": self.gain,
            "interval": self.interval.to_dict(),
            "study": self.claim.study,
            "study_golden": self.claim.golden,
            "study_gain": self.claim.gain,
            "study_interval": {"low": self.claim.low, "high": self.claim.high},
            "study_queries": self.claim.queries,
            "inside": self.inside,
            "difference": self.difference[0],
            "difference_interval": self.difference[1].to_dict(),
            "consistent": self.consistent,
            "message": self.describe(),
        }
