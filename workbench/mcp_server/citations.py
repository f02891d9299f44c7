"""Citations from a query trace, and the Markdown a client shows (or a model reads) for them.

The Markdown and the structured result carry the same numbers: passage ``[n]`` in the text is
``citations[n-1]`` with ``id == n``, so a client can link a mark in a model's answer back to its
source, heading path and page.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from workbench.generation.citing import MatchedPlace
from workbench.mcp_server.schemas import Citation, ConfidenceResult, ConfidenceSignal, Place, SearchResult
from workbench.retrieval.enhance import AS_TYPED
from workbench.retrieval.fold import FoldedPlaces
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
    hits: Iterable[Hit],
    chunk_views: Mapping[int, ChunkView],
    low_confidence: bool = False,
    matched: Mapping[int, MatchedPlace] | None = None,
    folded: FoldedPlaces | None = None,
) -> list[Citation]:
    """One citation per ranked hit that has a chunk view, numbered from 1 in rank order.

    ``hits`` are ``workbench.retrieval.ranking.Hit`` values (final stage), ``chunk_views`` the trace's
    ``ChunkView`` per chunk id. A hit without a view (cannot happen for a trace the pipeline
    made) is skipped rather than leaving a gap in the numbering. ``matched`` (chunk id -> where
    its best-matching sentence lies, ``workbench.generation.citing``) names the section and page
    cited; without it, those of the chunk's start. ``folded`` (``workbench.retrieval.fold.folded_places``)
    lists a folded passage's other places.
    """
    citations: list[Citation] = []
    for hit in hits:
        view = chunk_views.get(hit.chunk_id)
        if view is None:
            continue
        place = (matched or {}).get(hit.chunk_id)
        others = [chunk_views[c] for c in (folded or {}).get(hit.chunk_id, ()) if c in chunk_views]
        citations.append(
            Citation(
                id=len(citations) + 1,
                source=view.source,
                doc_id=view.doc_id,
                chunk_id=view.chunk_id,
                heading_path=list(place.heading_path if place else view.heading_path),
                page=place.page if place else view.page,
                score=float(hit.score),
                text=view.text,
                low_confidence=low_confidence,
                also_at=[
                    Place(
                        source=o.source,
                        doc_id=o.doc_id,
                        chunk_id=o.chunk_id,
                        heading_path=list(o.heading_path),
                        page=o.page,
                    )
                    for o in others
                ],
            )
        )
    return citations


def _where(source: str, heading_path: Iterable[str], page: int | None) -> str:
    where = shown_name(source)
    if heading_path:
        where += HEADING_SEPARATOR + HEADING_SEPARATOR.join(heading_path)
    if page is not None:
        where += f", p. {page}"
    return where


def location(citation: Citation) -> str:
    """``file › Heading › Sub, p. 3``: where a passage sits, for people."""
    return _where(citation.source, citation.heading_path, citation.page)


def also_at(citation: Citation) -> str:
    """``also in: file › Heading, p. 4; ...``: a folded passage's other places ("" when it has none)."""
    if not citation.also_at:
        return ""
    return "also in: " + "; ".join(_where(p.source, p.heading_path, p.page) for p in citation.also_at)


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
        if citation.also_at:
            lines.append(f"_The same passage appears {len(citation.also_at)} more times; {also_at(citation)}_")
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
