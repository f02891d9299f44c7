"""What a run's answers add up to: each answer metric's mean, and what answering cost."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from workbench.evaluation import metrics as m
from workbench.evaluation.answer_metrics import ANSWER_METRICS


class AnsweredQuery(Protocol):
    """A query's result as these totals read it (``runner.QueryResult`` is one)."""

    @property
    def metrics(self) -> Mapping[str, float]: ...

    @property
    def answer(self) -> Mapping[str, Any] | None: ...


def average_answer_metrics(per_query: Sequence[AnsweredQuery]) -> dict[str, float]:
    """Each answer metric's mean over the queries that have it."""
    averaged: dict[str, float] = {}
    for name in ANSWER_METRICS:
        values = [q.metrics[name] for q in per_query if name in q.metrics]
        if values:
            averaged[name] = m.mean(values)
    return averaged


def answer_notes(per_query: Sequence[AnsweredQuery]) -> list[str]:
    """What answering cost, and how many queries lack a metric and why (the first reason)."""
    answers = [q.answer for q in per_query if q.answer is not None]
    if not answers:
        return []
    cost = {
        key: sum(a.get("cost", {}).get(key, 0) for a in answers)
        for key in ("calls", "endpoint_calls", "cached", "failed", "prompt_tokens", "completion_tokens", "elapsed_ms")
    }
    notes = [
        f"answers: {cost['calls']} LLM calls ({cost['endpoint_calls']} to the endpoint, {cost['cached']} "
        f"cached, {cost['failed']} failed), {cost['prompt_tokens']}+{cost['completion_tokens']} tokens, "
        f"{cost['elapsed_ms'] / 1000:.1f} s"
    ]
    for name in ANSWER_METRICS[:3]:
        missing = [q for q in per_query if name not in q.metrics]
        if missing:
            said = (name.replace("_", " "), "no answer")
            reasons = [note for q in missing for note in (q.answer or {}).get("notes", []) if note.startswith(said)]
            notes.append(
                f"{name}: left out for {len(missing)} of {len(per_query)} queries"
                + (f" (first: {reasons[0]})" if reasons else "")
            )
    return notes
