"""The level a golden set was judged at, and so the level it is evaluated at by default.

A set whose questions were judged by passage (``golden synth`` quotes the sentence that answers,
judging pools grade chunks) can only show a gain at span level: at document level a small
collection is saturated (every relevant document is found anyway). A set judged by whole
documents (BEIR qrels) is evaluated at document level. ``eval``, ``tune``, ``check``, ``sweep``,
the app's tabs and the MCP tools take this level when none is given.

How a query was judged is recorded in its ``meta.judged`` (``"span"`` or ``"doc"``; ``golden
synth`` and the judging export write it). A query without it is read from its items:

- only span items (``start``/``end`` or ``quote``) with a grade above 0: judged by passage (span);
- any whole-document item: judged by document (doc). A query with both (a BEIR import: the qrels'
  documents and the evidence sentences inside them) counts as doc: its documents were judged
  whole, and the spans only mark where in them the evidence is.

The set's level is the one most of its scorable queries were judged at (doc on a tie: every
query can be scored at doc level, only span-judged ones at span level).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from workbench.evaluation.golden import GoldenQuery, GoldenSet

Level = Literal["doc", "span"]
LEVELS: tuple[Level, ...] = ("doc", "span")
#: the ``meta`` key recording how a query was judged
JUDGED_KEY = "judged"


def query_level(query: GoldenQuery) -> Level | None:
    """How ``query`` was judged: its recorded ``meta.judged``, else read from its items; None
    for a query no ranking metric scores (no item with a grade above 0)."""
    graded = [item for item in query.relevant if item.grade > 0]
    if not graded:
        return None
    recorded = (query.meta or {}).get(JUDGED_KEY)
    if recorded in LEVELS:
        return "span" if recorded == "span" else "doc"
    return "span" if all(item.is_span for item in graded) else "doc"


@dataclass(frozen=True)
class LevelChoice:
    """The level an evaluation runs at, and why (what the CLI, MCP and app print beside it)."""

    level: Level
    reason: str
    given: bool  # the user named it (--level); False when it follows the set's judging
    judged: Level  # the level the set was judged at (what a default follows)
    span_queries: int  # scorable queries judged by passage
    doc_queries: int  # scorable queries judged by whole document
    with_spans: int = 0  # scorable queries with any passage judgement (what span level scores)

    def to_dict(self) -> dict[str, object]:
        return {
            "level": self.level,
            "reason": self.reason,
            "given": self.given,
            "judged": self.judged,
            "span_queries": self.span_queries,
            "doc_queries": self.doc_queries,
            "with_spans": self.with_spans,
        }


def judged_level(golden: GoldenSet) -> tuple[Level, int, int]:
    """The level ``golden`` was judged at, with its span-judged and doc-judged scorable query counts."""
    levels = [query_level(query) for query in golden.queries]
    spans, docs = levels.count("span"), levels.count("doc")
    return ("span" if spans > docs else "doc"), spans, docs


def choose_level(golden: GoldenSet, given: str | None = None) -> LevelChoice:
    """``given`` when named, else the level ``golden`` was judged at; the reason says which."""
    judged, spans, docs = judged_level(golden)
    with_spans = sum(1 for q in golden.queries if query_level(q) is not None and q.has_spans)
    if given is not None:
        if given not in LEVELS:
            raise ValueError(f"unknown evaluation level {given!r}; use doc or span (or leave it out: {judged})")
        level: Level = "span" if given == "span" else "doc"
        reason = f"{level} level as asked"
        if level != judged:
            reason += f" (golden set {golden.name!r} was judged at {judged} level: {_counts(spans, docs)})"
        return LevelChoice(level, reason, True, judged, spans, docs, with_spans)
    if judged == "span":
        reason = f"span level: golden set {golden.name!r} was judged by passage ({_counts(spans, docs)})"
    elif with_spans:
        reason = (
            f"doc level: golden set {golden.name!r} was judged by whole document ({_counts(spans, docs)}); "
            f"--level span scores the {with_spans} with passage judgements"
        )
    else:
        reason = f"doc level: golden set {golden.name!r} was judged by whole document ({_counts(spans, docs)})"
    return LevelChoice(judged, reason, False, judged, spans, docs, with_spans)


def _counts(spans: int, docs: int) -> str:
    return f"{spans} of its {spans + docs} scorable queries judged by passage, {docs} by whole document"
