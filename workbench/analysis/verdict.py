"""The confidence verdict of a trace, as the lab shows it: a headline, the evidence as table rows,
and how much of the query one hit covers (for the explain view)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from store.retrieval_index import lucene_idf
from workbench.retrieval.assessment import FUNCTION_WORDS
from workbench.retrieval.confidence import AMBIGUOUS, NO_ANSWER, RELEVANT, Confidence, TermMatch, term_coverage

#: Streamlit message kind per verdict
KIND = {RELEVANT: "success", AMBIGUOUS: "warning", NO_ANSWER: "error"}
HEADLINE = {
    RELEVANT: "Relevant: the top hits look like they answer the query",
    AMBIGUOUS: "Ambiguous: the top hits may or may not answer the query",
    NO_ANSWER: "No answer: no passage in the collection looks relevant to the query",
}


@dataclass(frozen=True)
class VerdictView:
    kind: str  # success | warning | error
    headline: str
    reason: str


def verdict_view(confidence: Confidence) -> VerdictView:
    return VerdictView(KIND[confidence.verdict], HEADLINE[confidence.verdict], confidence.reason)


def evidence_rows(confidence: Confidence) -> list[dict]:
    """One row per signal: its value, thresholds, what it says and whether it counted."""
    return [
        {
            "signal": evidence.signal,
            "value": evidence.value,
            "no_answer below": evidence.low,
            "relevant from": evidence.high,
            "says": evidence.says or "—",
            "counted": "yes" if evidence.used and evidence.value is not None else "no",
            "evidence": evidence.detail,
        }
        for evidence in confidence.evidence
    ]


def hit_term_coverage(terms: Iterable, num_chunks: int) -> TermMatch | None:
    """The idf-weighted share of the query's terms one hit holds, from its BM25 explanation rows
    (each with ``term``, ``tf``, ``df``, ``idf``); an unseen term weighs as the rarest possible,
    as in the verdict's ``terms`` signal. None when the query has no indexed term."""
    # as the verdict does: function words ("does") name no topic (``assessment.FUNCTION_WORDS``)
    rows = [row for row in terms if (getattr(row, "word", "") or row.term).lower() not in FUNCTION_WORDS]
    if not rows:
        return None
    unseen = lucene_idf(0, max(num_chunks, 1))
    idf = {row.term: (row.idf if row.df else unseen) for row in rows}
    return term_coverage(idf, [row.term for row in rows if row.tf])
