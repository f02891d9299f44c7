"""Fitting the confidence thresholds to a collection, from a golden set.

Each signal (``terms``, ``dense``, ``rerank``) gets two thresholds, fitted on the values it
took for the golden set's answerable queries (P) and its no-answer queries (N, an empty
``relevant`` list):

- ``low`` (below it the signal says no_answer): the cut that best separates N below from P
  above, by balanced accuracy ``(share of N below + share of P at or above) / 2``, tried at
  every midpoint between neighbouring observed values; among equally good cuts the middle one,
  which leaves the widest margin. Without no-answer queries, ``low`` is the 5th percentile of P
  (95 % of answerable queries stay above it).
- ``high`` (from it the signal says relevant): the median of P, raised to the 95th percentile
  of N when no-answer queries reach that far, and never below ``low``.

A signal with fewer than ``MIN_VALUES`` answerable values keeps its thresholds. The verdicts
before and after are recomputed from the same evidence, so the report shows what the new
thresholds change on this golden set.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.config import ConfidenceConfig, WorkbenchConfig
from workbench.evaluation.abstention import AbstentionReport, abstention
from workbench.evaluation.golden import GoldenSet
from workbench.facade import WorkbenchFacade
from workbench.retrieval.confidence import SIGNALS, Confidence, rejudge

MIN_VALUES = 3
KEEP_ANSWERABLE = 0.95


@dataclass(frozen=True)
class CalibrationSample:
    query_id: str
    answerable: bool
    confidence: Confidence


@dataclass(frozen=True)
class SignalFit:
    signal: str
    low: float
    high: float
    answerable_values: int
    no_answer_values: int
    method: str  # how the thresholds were chosen, in words
    changed: bool


@dataclass(frozen=True)
class Calibration:
    fits: tuple[SignalFit, ...]
    before: AbstentionReport
    after: AbstentionReport

    def overrides(self) -> dict[str, float]:
        """The ``confidence.*`` keys to store (only signals that were fitted)."""
        values: dict[str, float] = {}
        for fit in self.fits:
            if fit.changed:
                values[f"confidence.{fit.signal}_low"] = round(fit.low, 6)
                values[f"confidence.{fit.signal}_high"] = round(fit.high, 6)
        return values

    def to_dict(self) -> dict[str, Any]:
        return {
            "fits": [fit.__dict__ for fit in self.fits],
            "overrides": self.overrides(),
            "before": self.before.to_dict(),
            "after": self.after.to_dict(),
        }


def balanced_cut(answerable: Sequence[float], no_answer: Sequence[float]) -> float:
    """The threshold that best puts ``no_answer`` below and ``answerable`` at or above it."""
    positives, negatives = np.asarray(answerable, dtype=float), np.asarray(no_answer, dtype=float)
    values = np.unique(np.concatenate([positives, negatives]))
    candidates = np.concatenate([[values[0] - 1e-9], (values[:-1] + values[1:]) / 2.0, [values[-1] + 1e-9]])
    scores = [((negatives < cut).mean() + (positives >= cut).mean()) / 2.0 for cut in candidates]
    best = max(scores)
    tied = [cut for cut, score in zip(candidates, scores, strict=False) if score >= best - 1e-12]
    return float(tied[len(tied) // 2])


def fit_signal(
    signal: str, answerable: Sequence[float], no_answer: Sequence[float], current: tuple[float, float]
) -> SignalFit:
    if len(answerable) < MIN_VALUES:
        return SignalFit(
            signal,
            *current,
            len(answerable),
            len(no_answer),
            f"kept: only {len(answerable)} answerable queries measured it (need {MIN_VALUES})",
            False,
        )
    median = float(np.median(answerable))
    if no_answer:
        low = balanced_cut(answerable, no_answer)
        high = max(low, median, float(np.quantile(no_answer, KEEP_ANSWERABLE)))
        method = (
            f"low separates {len(no_answer)} no-answer from {len(answerable)} answerable values; "
            "high is the answerable median (or the no-answer 95th percentile, if higher)"
        )
    else:
        low = float(np.quantile(answerable, 1.0 - KEEP_ANSWERABLE))
        high = max(low, median)
        method = (
            f"no no-answer queries: low keeps {KEEP_ANSWERABLE:.0%} of {len(answerable)} answerable values "
            "above it, high is their median; add queries with an empty relevant list to fit low properly"
        )
    return SignalFit(signal, low, high, len(answerable), len(no_answer), method, True)


def collect_samples(
    bench: WorkbenchFacade, collection: str, golden: GoldenSet, config: WorkbenchConfig
) -> list[CalibrationSample]:
    """Run every golden query (answerable or not) through ``config`` and keep its confidence."""
    queries = [q for q in golden.queries if q.is_no_answer or q.doc_grades()]
    if config.retrieval.mode != "bm25":
        bench.embed_queries(config.embedding.key, [q.query for q in queries])
    samples = []
    for query in queries:
        trace = bench.query(query.query, collection, config)
        if trace.confidence is not None:
            samples.append(CalibrationSample(query.id, not query.is_no_answer, trace.confidence))
    return samples


def calibrate(samples: Sequence[CalibrationSample], current: ConfidenceConfig) -> Calibration:
    if not any(sample.answerable for sample in samples):
        raise ValueError("calibration needs answerable queries (with relevant items) in the golden set; it has none")
    fits = []
    for signal in SIGNALS:
        values: dict[bool, list[float]] = {True: [], False: []}
        for sample in samples:
            evidence = sample.confidence.signal(signal)
            if evidence is not None and evidence.used and evidence.value is not None:
                values[sample.answerable].append(float(evidence.value))
        if not values[True] and not values[False]:
            continue
        existing = (getattr(current, f"{signal}_low"), getattr(current, f"{signal}_high"))
        fits.append(fit_signal(signal, values[True], values[False], existing))
    new_thresholds = {fit.signal: (fit.low, fit.high) for fit in fits}
    old_thresholds = {
        signal: (getattr(current, f"{signal}_low"), getattr(current, f"{signal}_high")) for signal in SIGNALS
    }
    return Calibration(tuple(fits), _report(samples, old_thresholds), _report(samples, new_thresholds))


def _report(samples: Sequence[CalibrationSample], thresholds: Mapping[str, tuple[float, float]]) -> AbstentionReport:
    verdicts: dict[bool, list[str]] = {True: [], False: []}
    for sample in samples:
        verdicts[sample.answerable].append(rejudge(sample.confidence, thresholds).verdict)
    return abstention(verdicts[True], verdicts[False])
