"""Judging a pool: record a grade 0-3 for one pooled chunk, list, undo, measure progress, export.

This is the API every judge goes through: people on the Judging page, and an LLM
(``golden judge --llm``) with ``judge=model_judge(model, prompt)``. For example::

    from workbench.golden import judging

    row, items = judging.load_pool(bench.catalog, "my-pool")
    judging.record(bench.catalog, row, items[0], grade=2, judge="Ada")
    llm = judging.model_judge("gpt-x", PROMPT)                # "gpt-x@" + 12 hex digits of the prompt's hash
    judging.record(bench.catalog, row, items[1], grade=0, judge=llm, reason="about a different drug")
    judging.record_many(bench.catalog, row, [(item, 1, "one-line reason") for item in items[2:]], judge=llm)
    judging.judgements(bench.catalog, "my-pool")              # everyone's, oldest first
    judging.judgements(bench.catalog, "my-pool", judge=llm)   # one judge's

A judgement keeps the query text, the chunk id and the chunk's document and character span (so
it survives re-chunking), the grade, the judge, the time and an optional one-line reason.
Judging the same chunk again replaces that judge's earlier grade.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice

from store import judgements as stored
from store.catalog import Catalog
from store.judgements import Judgement, PoolItem, PoolRow
from workbench.evaluation.golden import GoldenQuery, GoldenSet, RelevantItem
from workbench.evaluation.judged import JUDGED_KEY

__all__ = [
    "GRADES",
    "GRADE_MEANINGS",
    "Judgement",
    "PoolItem",
    "PoolRow",
    "Progress",
    "judgements",
    "load_pool",
    "model_judge",
    "new_judgement",
    "person_judge",
    "record",
    "record_many",
    "to_golden_set",
    "undo_last",
    "withdraw",
    "progress",
]

GRADES = (0, 1, 2, 3)
GRADE_MEANINGS = {
    0: "not relevant",
    1: "related: on the topic, does not answer",
    2: "relevant: answers part of the question",
    3: "perfect: answers the question",
}
MAX_REASON_CHARS = 500


class JudgingError(ValueError):
    """A judgement that cannot be recorded; the message says what to change."""


def person_judge(name: str) -> str:
    """The judge name a person records under (trimmed; must not look like a model judge)."""
    cleaned = " ".join((name or "").split())
    if not cleaned:
        raise JudgingError("a judge needs a name; type your name once before judging")
    if "@" in cleaned:
        raise JudgingError(
            f"judge name {cleaned!r} contains '@', which marks model judges (model@prompt-hash); leave it out"
        )
    return cleaned


def model_judge(model: str, prompt: str) -> str:
    """The judge name of an LLM: ``model@`` and the first 12 hex digits of the prompt's SHA-256,
    so grades from a changed prompt never mix with the old prompt's."""
    if not model.strip():
        raise JudgingError("a model judge needs the model's name")
    return f"{model.strip()}@{hashlib.sha256(prompt.encode('utf-8')).hexdigest()[:12]}"


def load_pool(catalog: Catalog, name: str) -> tuple[PoolRow, list[PoolItem]]:
    """A stored pool and its items (``NotFoundError`` naming the known pools)."""
    return stored.load_pool(catalog, name)


def new_judgement(pool: str, item: PoolItem, grade: int, judge: str, reason: str | None = None) -> Judgement:
    """A judgement checked (grade, judge, reason cut to one line) but not stored yet."""
    if isinstance(grade, bool) or not isinstance(grade, int) or grade not in GRADES:
        raise JudgingError(f"grade must be one of 0, 1, 2, 3, got {grade!r}")
    if not judge or not judge.strip():
        raise JudgingError("a judgement needs a judge: a person's name or model_judge(model, prompt)")
    if reason is not None:
        reason = " ".join(reason.split())[:MAX_REASON_CHARS] or None
    return Judgement(
        pool,
        item.query_id,
        item.query,
        item.chunk_id,
        item.document,
        item.start,
        item.end,
        grade,
        judge.strip(),
        reason,
    )


def record(
    catalog: Catalog, pool: str | PoolRow, item: PoolItem, grade: int, judge: str, reason: str | None = None
) -> Judgement:
    """Record ``judge``'s grade of one pooled chunk; returns the stored judgement (with its time)."""
    name = pool.name if isinstance(pool, PoolRow) else pool
    return stored.record_judgement(catalog, new_judgement(name, item, grade, judge, reason))


def record_many(
    catalog: Catalog, pool: str | PoolRow, graded: Sequence[tuple[PoolItem, int, str | None]], judge: str
) -> int:
    """Record ``(item, grade, reason)`` triples by one judge in one transaction; returns how many."""
    name = pool.name if isinstance(pool, PoolRow) else pool
    rows = [new_judgement(name, item, grade, judge, reason) for item, grade, reason in graded]
    stored.record_judgements(catalog, rows)
    return len(rows)


def judgements(catalog: Catalog, pool: str, judge: str | None = None) -> list[Judgement]:
    """The pool's judgements, oldest first: one judge's, or everyone's."""
    return stored.judgements_of(catalog, pool, judge)


def undo_last(catalog: Catalog, pool: str, judge: str, query_id: str | None = None) -> Judgement | None:
    """Remove ``judge``'s most recent judgement (within one query, when given); returns it, or None."""
    mine = [j for j in judgements(catalog, pool, judge) if query_id is None or j.query_id == query_id]
    if not mine:
        return None
    last = mine[-1]
    stored.delete_judgement(catalog, pool, last.query_id, last.chunk_id, judge)
    return last


def withdraw(catalog: Catalog, judgement: Judgement) -> bool:
    """Remove this judge's grade of this chunk; False when there was none."""
    return stored.delete_judgement(catalog, judgement.pool, judgement.query_id, judgement.chunk_id, judgement.judge)


@dataclass(frozen=True)
class Progress:
    judged: int
    total: int
    queries_done: int
    queries: int

    @property
    def fraction(self) -> float:
        return self.judged / self.total if self.total else 1.0


def progress(items: list[PoolItem], given: list[Judgement]) -> Progress:
    """How much of a pool ``given`` judgements cover (per item and per fully judged query)."""
    judged = {(j.query_id, j.chunk_id) for j in given}
    by_query: dict[str, list[bool]] = {}
    for item in items:
        by_query.setdefault(item.query_id, []).append((item.query_id, item.chunk_id) in judged)
    return Progress(
        sum(sum(flags) for flags in by_query.values()),
        len(items),
        sum(all(flags) for flags in by_query.values()),
        len(by_query),
    )


def next_unjudged(items: list[PoolItem], given: list[Judgement]) -> PoolItem | None:
    """The first pooled chunk (queries in order, chunks in shuffled order) not judged yet."""
    upcoming = upcoming_unjudged(items, given, 1)
    return upcoming[0] if upcoming else None


def upcoming_unjudged(items: list[PoolItem], given: list[Judgement], count: int) -> list[PoolItem]:
    """The next ``count`` pooled chunks not judged yet, in the order they are shown."""
    judged = {(j.query_id, j.chunk_id) for j in given}
    return list(islice((item for item in items if (item.query_id, item.chunk_id) not in judged), count))


def to_golden_set(name: str, items: list[PoolItem], given: list[Judgement]) -> GoldenSet:
    """The judgements as a golden set: per query, a span item per judged chunk, grade 0 included,
    so the set records what was judged not relevant (evaluation ignores grade 0; agreement reads it).

    ``given`` must come from one judge: two judges' grades of the same chunk cannot both stand.
    """
    judges = sorted({j.judge for j in given})
    if len(judges) > 1:
        raise JudgingError(
            f"{len(judges)} judges graded this pool ({', '.join(judges)}); export one judge's judgements at a time"
        )
    by_query: dict[str, dict[int, Judgement]] = {}
    for judgement in given:
        by_query.setdefault(judgement.query_id, {})[judgement.chunk_id] = judgement
    queries, seen = [], set()
    for item in items:
        if item.query_id in seen or item.query_id not in by_query:
            continue
        seen.add(item.query_id)
        graded = sorted(by_query[item.query_id].values(), key=lambda j: (j.document, j.start, j.end))
        relevant = tuple(RelevantItem(doc=j.document, grade=j.grade, start=j.start, end=j.end) for j in graded)
        meta = {"judge": judges[0], "pool": given[0].pool, JUDGED_KEY: "span"}  # chunks judged, as spans
        queries.append(GoldenQuery(item.query_id, item.query, relevant, meta=meta))
    if not queries:
        raise JudgingError(
            f"no judgements to export{' by ' + judges[0] if judges else ''}; judge some pooled chunks "
            "first (Judging page, or golden judge --llm)"
        )
    return GoldenSet(name, tuple(queries))
