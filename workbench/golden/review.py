"""Reviewing a generated golden set: accept, edit or reject each item, and see its quote in place.

A synthesized item starts as ``meta.review = "pending"``. ``apply_review`` writes the decisions
back to the set's file: an accepted item is marked ``accepted``, an edited question replaces the
old one (``edited``, the model's text kept as ``meta.generated``), and a rejected item leaves the
set (it is listed in the set's summary, so the review can be read later).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from store.atomic import atomic_write_text
from workbench.evaluation import golden as golden_sets
from workbench.golden.build import SYNTH_FOLDER

PENDING, ACCEPT, REJECT = "pending", "accept", "reject"
DECISIONS = (PENDING, ACCEPT, REJECT)
CONTEXT_CHARS = 240


@dataclass(frozen=True)
class ReviewRow:
    id: str
    kind: str
    question: str
    quote: str  # the first quote (multi_hop items have two)
    documents: str
    overlap: float | None
    decision: str


def rows(golden: golden_sets.GoldenSet) -> list[ReviewRow]:
    found = []
    for query in golden.queries:
        meta = query.meta or {}
        review = meta.get("review", PENDING)
        found.append(
            ReviewRow(
                query.id,
                meta.get("kind", ""),
                query.query,
                next((i.quote or "" for i in query.relevant if i.is_span), ""),
                ", ".join(dict.fromkeys(i.doc for i in query.relevant)) or "(unanswerable)",
                meta.get("overlap"),
                ACCEPT if review in ("accepted", "edited") else PENDING,
            )
        )
    return found


def unreviewed(golden: golden_sets.GoldenSet) -> int:
    """Items still waiting for a decision (written by the LLM, neither accepted nor edited)."""
    return golden_sets.unreviewed_count(golden)


def apply_review(path: Path, decisions: dict[str, tuple[str, str]], home: Path) -> dict[str, int]:
    """``decisions``: query id -> (decision, question text). Returns counts of what changed."""
    golden = golden_sets.load(path)
    kept, counts, dropped = [], {"accepted": 0, "edited": 0, "rejected": 0}, []
    for query in golden.queries:
        decision, question = decisions.get(query.id, (PENDING, query.query))
        if decision not in DECISIONS:
            raise ValueError(f"review decision {decision!r} for {query.id} is not one of {', '.join(DECISIONS)}")
        meta = dict(query.meta or {})
        question = " ".join((question or "").split())
        if decision == REJECT:
            counts["rejected"] += 1
            dropped.append(query.to_dict())
            continue
        if question and question != query.query:
            meta.setdefault("generated", query.query)
            meta["review"] = "edited"
            counts["edited"] += 1
            query = replace(query, query=question, meta=meta)
        elif decision == ACCEPT:
            meta["review"] = "accepted"
            counts["accepted"] += 1
            query = replace(query, meta=meta)
        kept.append(query)
    if not kept:
        raise ValueError(f"rejecting every item would leave {path.name} empty; delete the file instead")
    golden_sets.save(golden_sets.GoldenSet(golden.name, tuple(kept)), path)
    if dropped:
        log = Path(home) / "golden_sets" / SYNTH_FOLDER / f"{golden.name}.rejected-in-review.jsonl"
        log.parent.mkdir(parents=True, exist_ok=True)
        previous = log.read_text(encoding="utf-8") if log.exists() else ""
        atomic_write_text(log, previous + "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in dropped))
    return counts


def quote_in_context(markdown: str, start: int, end: int, margin: int = CONTEXT_CHARS) -> tuple[str, str, str]:
    """(text before, the quoted span, text after): the span with up to ``margin`` characters each side."""
    start, end = max(0, start), min(len(markdown), end)
    before = markdown[max(0, start - margin) : start]
    after = markdown[end : end + margin]
    return (
        ("…" if start > margin else "") + before,
        markdown[start:end],
        after + ("…" if end + margin < len(markdown) else ""),
    )
