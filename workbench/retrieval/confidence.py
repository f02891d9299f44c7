"""Is the retrieved context relevant, ambiguous, or useless? (seed 003, corrective RAG)

Every query gets a verdict, ``relevant``, ``ambiguous`` or ``no_answer``, from up to three
signals, each a pure function of numbers the pipeline already has:

- ``terms``: the idf-weighted share of the query's terms that the best of the top hits
  contains. Rare terms weigh most; a term the collection has never seen weighs as much as the
  rarest possible, because a question about something the collection never mentions has no
  answer in it. Function words ("does", "怎么") are left out (``assessment.FUNCTION_WORDS``).
- ``dense``: how far the best cosine similarity stands above chance. Against the collection's
  own background (cosines between random pairs of its chunks: mean, sd) the best cosine is a
  z-score; the best of n unrelated chunks would reach about ``sqrt(2 ln n)`` by chance alone, so
  the signal is ``z - sqrt(2 ln n)``. Models differ in their cosine scales (e5 rarely goes below
  0.7, MiniLM sits near 0.1 for unrelated text) and collections in their size; this reads the
  same for all of them (on the demo and on SciFact alike, answerable queries sit above -2 and
  off-topic ones below it).
- ``rerank``: the cross-encoder's score of the best top hit, as a probability (logits go
  through the logistic function), when a rerank stage ran.

Each signal alone gives a level through its two thresholds: below ``low`` is 0 (no answer),
from ``high`` up is 2 (relevant), in between 1 (ambiguous). The verdict is the mean level of
the signals in use: 1.5 or more is ``relevant``, under 0.5 is ``no_answer``, anything else
``ambiguous``. A signal is left out when it cannot speak: the route did not run, or its model
does not cover the query's language.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

RELEVANT, AMBIGUOUS, NO_ANSWER = "relevant", "ambiguous", "no_answer"
#: weakest first: a verdict "reaches" another when it is at or after it here
VERDICTS: tuple[str, ...] = (NO_ANSWER, AMBIGUOUS, RELEVANT)
TERMS, DENSE, RERANK = "terms", "dense", "rerank"
SIGNALS: tuple[str, ...] = (TERMS, DENSE, RERANK)
_LEVEL_VERDICT = {0: NO_ANSWER, 1: AMBIGUOUS, 2: RELEVANT}


def verdict_rank(verdict: str) -> int:
    if verdict not in VERDICTS:
        raise ValueError(f"unknown confidence {verdict!r}; use one of {', '.join(VERDICTS)}")
    return VERDICTS.index(verdict)


def reaches(verdict: str, minimum: str) -> bool:
    """Whether ``verdict`` is at least ``minimum`` (``relevant`` reaches ``ambiguous``)."""
    return verdict_rank(verdict) >= verdict_rank(minimum)


def level(value: float, low: float, high: float) -> int:
    """0 below ``low``, 2 from ``high`` up, 1 in between."""
    if value < low:
        return 0
    if value >= high:
        return 2
    return 1


def combine(levels: Sequence[int]) -> str:
    """The verdict of the signals in use: their mean level, read as 0 / 1 / 2 with halves
    rounding towards the middle (ambiguous). No signal at all is ambiguous: nothing was judged."""
    if not levels:
        return AMBIGUOUS
    mean = sum(levels) / len(levels)
    if mean >= 1.5:
        return RELEVANT
    if mean < 0.5:
        return NO_ANSWER
    return AMBIGUOUS


# -- the signals -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TermMatch:
    """The query's terms against one hit: each distinct term's idf and whether the hit has it."""

    coverage: float  # sum of matched idf / sum of all idf, in [0, 1]
    matched: tuple[str, ...]
    missing: tuple[str, ...]


def term_coverage(idf: Mapping[str, float], hit_terms: Iterable[str]) -> TermMatch:
    """``sum(idf[t] for matched t) / sum(idf[t] for all t)`` over the query's distinct terms.

    ``idf`` maps each distinct query term to its weight; ``hit_terms`` are the terms the hit
    contains. A query with no terms (all stopwords, or no letters) covers nothing: 0.
    """
    present = set(hit_terms)
    total = sum(idf.values())
    matched = tuple(term for term in idf if term in present)
    missing = tuple(term for term in idf if term not in present)
    if total <= 0.0:
        return TermMatch(0.0, matched, missing)
    return TermMatch(sum(idf[term] for term in matched) / total, matched, missing)


@dataclass(frozen=True)
class SimilarityBaseline:
    """Cosine similarity between random pairs of a collection's chunks: what "unrelated" looks like."""

    mean: float
    sd: float
    pairs: int


def similarity_baseline(vectors: np.ndarray, sample: int = 400, seed: int = 0) -> SimilarityBaseline | None:
    """Mean and standard deviation of the cosines between every pair of up to ``sample`` chunk
    vectors drawn without replacement (rows are unit length, so cosine is the dot product).
    None with fewer than three vectors: two chunks make no distribution."""
    count = len(vectors)
    if count < 3:
        return None
    rows = np.asarray(vectors, dtype=np.float64)
    if count > sample:
        rows = rows[np.sort(np.random.default_rng(seed).choice(count, size=sample, replace=False))]
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    rows = rows / np.where(norms == 0.0, 1.0, norms)
    cosines = (rows @ rows.T)[np.triu_indices(len(rows), k=1)]
    return SimilarityBaseline(float(cosines.mean()), float(cosines.std()), int(len(cosines)))


def dense_z(top_cosine: float, baseline: SimilarityBaseline) -> float:
    """How many background standard deviations the best cosine stands above the background mean."""
    return (top_cosine - baseline.mean) / max(baseline.sd, 1e-6)


def expected_best_z(searched: int) -> float:
    """The z-score the best of ``searched`` unrelated chunks reaches by chance: ``sqrt(2 ln n)``,
    the classic approximation of the largest of n standard normal draws (0 for n <= 1)."""
    return math.sqrt(2.0 * math.log(searched)) if searched > 1 else 0.0


def dense_excess(top_cosine: float, baseline: SimilarityBaseline, searched: int) -> float:
    """How far the best cosine stands above the best that chance alone would give, in background
    sd: ``dense_z - expected_best_z(searched)``. The maximum of many draws grows with their number,
    so a raw z-score says more in a small collection than in a large one; the excess does not."""
    return dense_z(top_cosine, baseline) - expected_best_z(searched)


def probability(score: float, kind: str) -> float:
    """A rerank score as a probability: logits go through the logistic function; an LLM's 0-10
    relevance score (``scale_0_10``) is read as score / 10."""
    if kind == "probability":
        return float(score)
    if kind == "scale_0_10":
        return float(score) / 10.0
    return 1.0 / (1.0 + math.exp(-float(score))) if score > -700 else 0.0


# -- evidence and verdict --------------------------------------------------------------------------


@dataclass(frozen=True)
class Evidence:
    """One signal: its value, the thresholds it was read against, and what it says, in words."""

    signal: str  # terms | dense | rerank
    value: float | None  # None when the signal could not be measured
    low: float
    high: float
    used: bool  # counted in the verdict
    detail: str
    numbers: Mapping[str, object] = field(default_factory=dict)

    @property
    def level(self) -> int | None:
        return level(self.value, self.low, self.high) if self.used and self.value is not None else None

    @property
    def says(self) -> str | None:
        """The verdict this signal alone gives; None when it is not in use."""
        found = self.level
        return None if found is None else _LEVEL_VERDICT[found]

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "says": self.says}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Evidence:
        return cls(
            data["signal"],
            data.get("value"),
            float(data["low"]),
            float(data["high"]),
            bool(data["used"]),
            data.get("detail", ""),
            dict(data.get("numbers", {})),
        )


@dataclass(frozen=True)
class Confidence:
    verdict: str
    evidence: tuple[Evidence, ...]
    reason: str
    hits: int = 0  # passages the verdict is about (the final list's length)

    def signal(self, name: str) -> Evidence | None:
        return next((e for e in self.evidence if e.signal == name), None)

    def values(self) -> dict[str, float | None]:
        """Each measured signal's value (calibration reads these)."""
        return {e.signal: e.value for e in self.evidence if e.used}

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "reason": self.reason,
            "hits": self.hits,
            "evidence": [e.to_dict() for e in self.evidence],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Confidence:
        return cls(
            data["verdict"],
            tuple(Evidence.from_dict(e) for e in data.get("evidence", ())),
            data.get("reason", ""),
            int(data.get("hits", 0)),
        )


def judge(evidence: Sequence[Evidence], hits: int) -> Confidence:
    """The verdict from the evidence in use; with no hit at all there is nothing to answer from."""
    if hits == 0:
        return Confidence(NO_ANSWER, tuple(evidence), "no passage was retrieved", hits)
    in_use = [e for e in evidence if e.level is not None]
    verdict = combine([e.level for e in in_use if e.level is not None])
    if not in_use:
        return Confidence(verdict, tuple(evidence), "no signal could be measured, so nothing says either way", hits)
    said = "; ".join(f"{e.signal} says {e.says}" for e in in_use)
    return Confidence(verdict, tuple(evidence), said, hits)


def rejudge(confidence: Confidence, thresholds: Mapping[str, tuple[float, float]]) -> Confidence:
    """The same evidence read against other thresholds (calibration tries candidates this way)."""
    evidence = [
        Evidence(e.signal, e.value, *thresholds.get(e.signal, (e.low, e.high)), e.used, e.detail, e.numbers)
        for e in confidence.evidence
    ]
    return judge(evidence, confidence.hits)
