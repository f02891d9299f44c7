"""Structured results of the evaluation loop's tools (their output schemas)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class IntervalOut(BaseModel):
    low: float
    high: float
    confidence: float = Field(description="e.g. 0.95 for a 95% interval")


class GoldenSetEntry(BaseModel):
    name: str
    queries: int = Field(description="queries in the set")
    answerable: int = Field(description="queries with at least one relevant item (the rest test abstention)")
    path: str


class GoldenSetList(BaseModel):
    golden_sets: list[GoldenSetEntry]


class MetricOut(BaseModel):
    name: str
    mean: float
    interval: IntervalOut = Field(description="95% percentile bootstrap interval of the mean over the queries")
    queries: int = Field(description="queries the mean is over")


class EvaluationOut(BaseModel):
    run_id: int | None = Field(description="stored run id (compare_runs and check take it); null when not stored")
    collection: str
    golden: str
    level: str
    mode: str
    queries: int
    skipped: int
    metrics: list[MetricOut]
    notes: list[str]
    per_query_resource: str | None = Field(description="resource URI of the run's per-query table")


class MetricDeltaOut(BaseModel):
    metric: str
    a: float
    b: float
    delta: float


class QueryChangeOut(BaseModel):
    query_id: str
    query: str
    a: float
    b: float
    delta: float


class ComparisonOut(BaseModel):
    run_a: int
    run_b: int
    metric: str
    queries: int = Field(description="paired queries")
    metrics: list[MetricDeltaOut]
    wins: int
    losses: int
    ties: int
    mean_difference: float = Field(description="mean of b - a over the paired queries")
    p_value: float = Field(description="two-sided paired randomization test; below 0.05: a real difference")
    test: str
    permutations: int
    most_changed: list[QueryChangeOut]
    config_changes: list[dict[str, Any]]
    warnings: list[str]


class CheckOut(BaseModel):
    exit_code: int = Field(description="what `workbench check` exits with: 0 pass, 1 significant drop, 2 input problem")
    passed: bool
    status: str = Field(description="pass, fail or error")
    reason: str
    metric: str
    queries: int = Field(default=0, description="paired queries (0 on an input problem)")
    baseline: float | None = None
    candidate: float | None = None
    difference: float | None = None
    interval: IntervalOut | None = Field(default=None, description="95% interval of candidate - baseline")
    p_value: float | None = None
    baseline_run: int | None = None
    candidate_run: int | None = None
    study_queries: str | None = Field(
        default=None, description="for a preset saved by tune: how many compared queries its study tuned on"
    )
    power_note: str | None = Field(
        default=None, description="when the queries are too few to show a gain, and roughly how many would"
    )


class PresetOut(BaseModel):
    name: str
    saved: bool
    message: str
    settings: dict[str, Any]


class RunEntry(BaseModel):
    run_id: int
    created_at: str
    collection: str
    golden: str
    level: str
    label: str
    queries: int
    metrics: dict[str, float]
    overrides: dict[str, Any]
    per_query_resource: str


class RunList(BaseModel):
    runs: list[RunEntry]


class TuneOut(BaseModel):
    study: str
    stopped: bool = Field(description="true when cancelled: run tune again with resume=true to continue")
    verdict: str | None = Field(
        description="better / worse than your current configuration, or not distinguishable from it (held-out)"
    )
    gain: float | None = Field(description="winner minus starting configuration on the held-out queries")
    interval: IntervalOut | None = Field(description="95% paired bootstrap interval of the gain")
    queries: int | None = Field(description="held-out queries the gain is over")
    winner: dict[str, Any] = Field(description="the winner's settings that differ from the starting configuration")
    trials: int
    trials_resource: str = Field(description="resource URI of the study's trials")
    report: dict[str, Any] = Field(description="the full report, as `workbench tune --json` prints it")
    plan: dict[str, Any] | None = Field(
        default=None,
        description="the experiment planned before the study: level and split with why, queries, the gain they "
        "can show, queries a gain of 0.02 needs, saturation and its fix, questions to grow the set by",
    )


class IngestOut(BaseModel):
    collection: str
    summary: str
    files: int = Field(description="files given to the ingest")
    failed: list[str] = Field(description="files that failed, each with its reason")
    cancelled: bool


class SynthOut(BaseModel):
    golden: str = Field(description="the golden set written (evaluate takes it, with level span)")
    path: str
    planned: int = Field(description="questions asked for")
    kept: int = Field(description="questions kept: their quote was found in the chunk they came from")
    rejected: dict[str, int] = Field(description="questions dropped, per reason")
    endpoint_calls: int
    cached_calls: int
    complete: bool = Field(description="false when the endpoint failed midway: call again to finish (kept ones stay)")
    stopped: str
    documents: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="planned and kept questions per document (its first source chunk's)"
    )
    languages: dict[str, dict[str, int]] = Field(default_factory=dict, description="planned and kept per language")
    repeated_quotes: int = Field(
        0, description="kept questions whose quote occurs in several places: each judged relevant at every place"
    )
