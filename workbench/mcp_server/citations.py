"""Citations from a query trace, and the Markdown a client shows (or a model reads) for them.

The Markdown and the structured result carry the same numbers: passage ``[n]`` in the text is
``citations[n-1]`` with ``id == n``, so a client can link a mark in a model's answer back to its
source, heading path and page.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from workbench.mcp_server.schemas import Citation, ConfidenceResult, ConfidenceSignal, SearchResult
from workbench.retrieval.enhance import AS_TYPED
from workbench.retrieval.ranking import Hit
from workbench.retrieval.trace import ChunkView
from workbench.text import shown_name

HEADING_SEPARATOR = " › "
NO_ANSWER, AMBIGUOUS = "no_answer", "ambiguous"


def confidence_result(confidence) -> ConfidenceResult | None:
    """The trace's ``Confidence`` as the schema model (None when the trace has none)."""
    if confidence is None:
        return None
    return ConfidenceResult(
        verdict=confidence.verdict,
        reason=confidence.reason,
        evidence=[
            ConfidenceSignal(
                signal=e.signal, value=e.value, low=e.low, high=e.high, used=e.used, says=e.says, detail=e.detail
            )
            for e in confidence.evidence
        ],
    )


def citations_from_hits(
    hits: Iterable[Hit], chunk_views: Mapping[int, ChunkView], low_confidence: bool = False
) -> list[Citation]:
    """One citation per ranked hit that has a chunk view, numbered from 1 in rank order.

    ``hits`` are ``workbench.retrieval.ranking.Hit`` values (final stage), ``chunk_views`` the trace's
    ``ChunkView`` per chunk id. A hit without a view (cannot happen for a trace the pipeline
    made) is skipped rather than leaving a gap in the numbering.
    """
    citations: list[Citation] = []
    for hit in hits:
        view = chunk_views.get(hit.chunk_id)
        if view is None:
            continue
        citations.append(
            Citation(
                id=len(citations) + 1,
                source=view.source,
                doc_id=view.doc_id,
                chunk_id=view.chunk_id,
                heading_path=list(view.heading_path),
                page=view.page,
                score=float(hit.score),
                text=view.text,
                low_confidence=low_confidence,
            )
        )
    return citations


def location(citation: Citation) -> str:
    """``file › Heading › Sub, p. 3``: where a passage sits, for people."""
    where = shown_name(citation.source)
    if citation.heading_path:
        where += HEADING_SEPARATOR + HEADING_SEPARATOR.join(citation.heading_path)
    if citation.page is not None:
        where += f", p. {citation.page}"
    return where


def quote(text: str) -> list[str]:
    """The text as a Markdown block quote, so passage boundaries stay visible."""
    return [f"> {line}" if line.strip() else ">" for line in text.strip("\n").splitlines()] or [">"]


def render_search(result: SearchResult, notes: Iterable[str] = ()) -> str:
    """The search result as Markdown. When no passage looks relevant, the text says so first and
    marks every candidate that follows LOW CONFIDENCE, so a model reading it does not answer from them."""
    scope = f"collection `{result.collection}`, preset `{result.preset}`, {result.mode} retrieval"
    notes = [note for note in notes if note]
    confidence = result.confidence
    verdict = confidence.verdict if confidence else None
    reason = confidence.reason if confidence else ""
    lines: list[str] = []
    if verdict == NO_ANSWER:
        lines.append(f"No passage in collection `{result.collection}` looks relevant to “{result.query}” ({reason}).")
    if result.withheld:
        lines.append(
            f"{result.withheld} passage{'s' if result.withheld != 1 else ''} left out: confidence "
            f"{verdict} is below min_confidence."
        )
    if not result.citations:
        if not lines:
            lines.append(f"No passage matches “{result.query}” ({scope}).")
        lines += [f"_Note: {note}_" for note in notes]
        return "\n".join(lines) + "\n"
    count = len(result.citations)
    if verdict == NO_ANSWER:
        lines += [
            "The closest candidates follow, each marked LOW CONFIDENCE: they are not an answer, so do not "
            "answer from them as if they were.",
            "",
            f"{count} candidate{'s' if count != 1 else ''} ({scope}):",
        ]
    else:
        lines.append(
            f"{count} passage{'s' if count != 1 else ''} for “{result.query}” ({scope}). "
            "Cite a passage by its mark, e.g. [1]."
        )
        if verdict == AMBIGUOUS:
            lines.append(
                f"Confidence: ambiguous ({reason}); check that a passage really answers the question before using it."
            )
    lines.append("")
    for citation in result.citations:
        marker = " (LOW CONFIDENCE)" if citation.low_confidence else ""
        lines.append(f"[{citation.id}]{marker} **{location(citation)}**")
        lines.extend(quote(citation.text))
        lines.append("")
    lines.append("Sources:")
    for citation in result.citations:
        lines.append(
            f"[{citation.id}] {location(citation)} (doc {citation.doc_id}, chunk {citation.chunk_id}, "
            f"score {citation.score:.4f})"
        )
    if result.llm is not None:
        lines += ["", *render_llm_activity(result.llm)]
    if notes:
        lines.append("")
        lines += [f"_Note: {note}_" for note in notes]
    return "\n".join(lines) + "\n"


def render_llm_activity(activity) -> list[str]:
    """The query texts the routes searched with, and what the LLM calls cost."""
    lines = []
    generated = [v for v in activity.query_variants if v.origin != AS_TYPED]
    if generated:
        lines.append(f"Query enhancement ({activity.query_enhancement}) searched with:")
        lines += [f"- {v.origin} ({'+'.join(v.routes)}): {v.text}" for v in generated]
    if activity.calls:
        lines.append(
            f"LLM: {len(activity.calls)} calls ({activity.endpoint_calls} to the endpoint, "
            f"{activity.cached_calls} cached), {activity.prompt_tokens}+{activity.completion_tokens} tokens, "
            f"{activity.ms:.0f} ms."
        )
    return lines
