"""The rows the Retrieval lab shows: one table per stage, timings, the A/B diff, hit choices.

Plain dicts of plain values (strings, numbers), ready for a dataframe; the text cells hold the
raw document text, which dataframes display as text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from workbench.analysis.diff import FinalsDiff
from workbench.generation.context import AssembledContext
from workbench.retrieval.fold import folded_places
from workbench.retrieval.stages import FINAL, FUSION, MMR, RERANK
from workbench.retrieval.trace import ChunkView, Trace
from workbench.text import count, shown_name

RELEVANT_COLUMN = "✓"
HEADING_SEPARATOR = " › "
_WHITESPACE = re.compile(r"\s+")


def snippet(text: str, limit: int = 160) -> str:
    """The first ``limit`` characters of ``text`` on one line, with an ellipsis if cut."""
    flat = _WHITESPACE.sub(" ", text).strip()
    if len(flat) <= limit:
        return flat
    return flat[: max(limit - 1, 0)].rstrip() + "…"


def document_name(view: ChunkView | None, doc_id: int | None = None) -> str:
    if view is None:
        return f"document {doc_id}" if doc_id is not None else ""
    return shown_name(view.source or view.external_id or view.title or f"document {view.doc_id}")


def heading_text(view: ChunkView | None) -> str:
    return HEADING_SEPARATOR.join(view.heading_path) if view else ""


def chunk_label(view: ChunkView | None, chunk_id: int) -> str:
    """A short human name for a chunk: document › heading path (chunk id)."""
    if view is None:
        return f"chunk {chunk_id}"
    heading = heading_text(view)
    where = f"{document_name(view)}{HEADING_SEPARATOR}{heading}" if heading else document_name(view)
    return f"{where} (chunk {chunk_id})"


def _place_label(view: ChunkView | None, chunk_id: int) -> str:
    """A folded passage's other place: document › heading path, page (chunk id)."""
    label = chunk_label(view, chunk_id)
    if view is not None and view.page is not None:
        label = label.replace(f" (chunk {chunk_id})", f", p. {view.page} (chunk {chunk_id})")
    return label


def stage_rows(trace: Trace, stage_name: str, relevant: Mapping[int, int] = {}, snippet_chars: int = 160) -> list[dict]:
    """One row per hit of the stage: relevance mark, rank, snippet, document, score, then the
    stage's own numbers (fusion: each route's rank; MMR: relevance and penalty; rerank: the rank
    before it), heading and chunk id. The passage comes right after the rank: it is what a person
    reads first, and a side's half of a 1400 px window shows only the first few columns."""
    stage = trace.stage(stage_name)
    if stage is None:
        raise KeyError(f"stage {stage_name!r} is not in this trace; it has {', '.join(trace.stage_names())}")
    rows = []
    # the final list shows each folded passage's other places
    folded = folded_places(trace) if stage_name == FINAL else {}
    for hit in stage.ranked.hits:
        view = trace.chunks.get(hit.chunk_id)
        places = folded.get(hit.chunk_id, ())
        row = {
            RELEVANT_COLUMN: "✓" if any(relevant.get(c, 0) > 0 for c in (hit.chunk_id, *places)) else "",
            "rank": hit.rank,
            "snippet": snippet(view.text, snippet_chars) if view else "",
            "document": document_name(view, hit.doc_id),
            "score": hit.score,
        }
        row.update(_stage_columns(stage.stage, stage.details.get(hit.chunk_id, {})))
        row.update({"heading": heading_text(view), "chunk": hit.chunk_id})
        if folded:
            row["also in"] = "; ".join(_place_label(trace.chunks.get(c), c) for c in places)
        rows.append(row)
    return rows


def stage_overview(trace: Trace, relevant: Mapping[int, int] = {}) -> list[str]:
    """One line per stage, in order: its hits, its time and, when the query's relevant chunks are
    known, the ranks it gave them: "fusion · 50 hits · 0.3 ms · relevant at 1, 4". Every stage of
    a run at a glance, and where the relevant chunks rose or fell on the way."""
    lines = []
    for stage in trace.stages:
        line = f"{stage.stage} · {count(len(stage.ranked), 'hit')} · {stage.elapsed_ms:.1f} ms"
        ranks = [hit.rank for hit in stage.ranked.hits if relevant.get(hit.chunk_id, 0) > 0]
        if relevant:
            line += f" · relevant at {', '.join(map(str, ranks))}" if ranks else " · no relevant chunk"
        lines.append(line)
    return lines


def _stage_columns(stage: str, detail: dict) -> dict:
    if stage == FUSION or _is_breakdown(detail):
        # fusion, or a route fused over several query texts (query.enhance multi / decompose)
        return {f"{route} rank": entry.get("rank") for route, entry in detail.items()}
    if stage == MMR:
        return {"relevance": detail.get("relevance"), "penalty": detail.get("penalty")}
    if stage == RERANK:
        return {"rank before": detail.get("previous_rank")}
    return {}


def _is_breakdown(detail: dict) -> bool:
    return bool(detail) and all(isinstance(entry, dict) and "contribution" in entry for entry in detail.values())


def timing_rows(trace: Trace) -> list[dict]:
    """One row per stage (the query stage first when query enhancement ran); stages that called
    the LLM also show their calls and tokens."""
    rows = []
    enhanced = trace.enhancement
    if enhanced is not None:
        rows.append(
            {
                "stage": f"query ({enhanced.method})",
                "hits": len(enhanced.variants),
                "ms": enhanced.elapsed_ms,
                "notes": "; ".join(enhanced.notes),
                **_llm_columns(enhanced.calls),
            }
        )
    for stage in trace.stages:
        row = {"stage": stage.stage, "hits": len(stage.ranked), "ms": stage.elapsed_ms, "notes": "; ".join(stage.notes)}
        if stage.llm_calls:
            row.update(_llm_columns(stage.llm_calls))
        rows.append(row)
    return rows


def _llm_columns(calls) -> dict:
    return {
        "llm calls": len(calls),
        "cached": sum(1 for c in calls if c.cached),
        "tokens": sum(c.total_tokens or 0 for c in calls),
    }


def variant_rows(trace: Trace) -> list[dict]:
    """The query stage: each text the routes searched with, where it came from, which routes used it."""
    enhanced = trace.enhancement
    if enhanced is None:
        return []
    return [
        {"text": variant.text, "from": variant.origin, "routes": " + ".join(variant.routes)}
        for variant in enhanced.variants
    ]


def diff_rows(diff: FinalsDiff, views: Mapping[int, ChunkView], relevant: Mapping[int, int] = {}) -> list[dict]:
    """The A/B diff as rows; ``change`` reads "▲ 3" (B ranks it 3 places higher), "▼ 2", "=",
    "entered" or "left"."""
    rows = []
    for change in diff.changes:
        gained = change.places_gained
        if gained is None:
            label = change.status
        elif gained == 0:
            label = "="
        else:
            label = f"▲ {gained}" if gained > 0 else f"▼ {-gained}"
        view = views.get(change.chunk_id)
        rows.append(
            {
                RELEVANT_COLUMN: "✓" if relevant.get(change.chunk_id, 0) > 0 else "",
                "status": change.status,
                "change": label,
                "rank A": change.rank_a,
                "rank B": change.rank_b,
                "document": document_name(view, change.doc_id),
                "heading": heading_text(view),
                "snippet": snippet(view.text, 120) if view else "",
                "chunk": change.chunk_id,
            }
        )
    return rows


def context_rows(
    context: AssembledContext, views: Mapping[int, ChunkView], relevant: Mapping[int, int] = {}
) -> list[dict]:
    """One row per source of an assembled context: label, document, heading, page, size, cut."""
    rows = []
    for source in context.sources:
        view = views.get(source.chunk_id)
        rows.append(
            {
                "source": source.label,
                RELEVANT_COLUMN: "✓" if relevant.get(source.chunk_id, 0) > 0 else "",
                "document": document_name(view, source.doc_id),
                "heading": HEADING_SEPARATOR.join(source.heading_path),  # where the match lies, as cited
                "page": source.page,
                "characters": len(source.text),
                "cut": "yes" if source.truncated else "",
                "chunk": source.chunk_id,
            }
        )
    return rows


def hit_choices(trace: Trace) -> list[tuple[int, str]]:
    """Every chunk of the trace as (chunk id, label): the final list first, then the others by
    their best rank in any stage."""
    best: dict[int, tuple[int, str]] = {}
    for stage in trace.stages:
        for hit in stage.ranked.hits:
            current = best.get(hit.chunk_id)
            if current is None or hit.rank < current[0]:
                best[hit.chunk_id] = (hit.rank, stage.stage)
    final_ids = trace.final.chunk_ids()
    others = sorted((cid for cid in best if cid not in set(final_ids)), key=lambda cid: (best[cid][0], cid))
    choices = []
    for cid in final_ids:
        choices.append((cid, f"#{trace.final.rank_of(cid)} · {chunk_label(trace.chunks.get(cid), cid)}"))
    for cid in others:
        rank, stage_name = best[cid]
        choices.append((cid, f"not final ({stage_name} #{rank}) · {chunk_label(trace.chunks.get(cid), cid)}"))
    return choices
