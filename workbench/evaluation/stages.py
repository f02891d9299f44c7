"""Metrics for every stage of a trace, so a loss can be traced to the stage that caused it.

Each stage's ranked list (dense, bm25, fusion, filter, mmr, rerank, final) is scored with the
same metrics at the same level. Two extra columns show the candidate pool itself:
``recall@pool`` is the recall of the stage's whole list, the ceiling no later stage can beat
(rerank and MMR only reorder what they are given), and ``pool`` is the list's length.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

from workbench.evaluation import metrics as m
from workbench.retrieval.fold import FoldedPlaces, folded_places
from workbench.retrieval.ranking import RankedList
from workbench.retrieval.stages import FINAL
from workbench.retrieval.trace import ChunkView, Trace

POOL_RECALL = "recall@pool"
POOL_SIZE = "pool"
LEVELS = ("doc", "span")


def document_key(view: ChunkView) -> str:
    """How a retrieved document is named in results: its external id, else its file name."""
    return view.external_id or view.source


def document_keys(chunks: Mapping[int, ChunkView]) -> dict[int, str]:
    """Chunk id -> the key of its document, for every chunk of ``chunks``."""
    return {chunk_id: document_key(view) for chunk_id, view in chunks.items()}


def ranked_documents(ranked: RankedList, document_of: Mapping[int, str]) -> list[str]:
    """Distinct documents in order of their best chunk (a document ranks where its best chunk ranks).

    ``document_of`` maps chunk ids to document keys; chunks it lacks are skipped.
    """
    seen: dict[str, None] = {}
    for chunk_id in ranked.ids:
        key = document_of.get(chunk_id)
        if key is not None:
            seen.setdefault(key, None)
    return list(seen)


def ranked_units(
    ranked: RankedList, document_of: Mapping[int, str], level: str, places: FoldedPlaces | None = None
) -> Sequence[Hashable]:
    """The ranking at an evaluation level: document keys (doc) or chunk ids (span).

    With ``places`` (a folded list's), a hit standing for other places is one ``Places`` position:
    of its chunks at span level; at doc level of its documents not ranked before it (one left is
    just that document's key, none drops the position, as a document repeated lower down is).
    """
    if level not in LEVELS:
        raise ValueError(f"unknown evaluation level {level!r}; use one of {', '.join(LEVELS)}")
    if not places:
        return ranked_documents(ranked, document_of) if level == "doc" else ranked.chunk_ids()
    if level == "span":
        return [m.Places((chunk_id, *places[chunk_id])) if chunk_id in places else chunk_id for chunk_id in ranked.ids]
    units: list[Hashable] = []
    seen: set[str] = set()
    for chunk_id in ranked.ids:
        keys = [document_of.get(c) for c in (chunk_id, *places.get(chunk_id, ()))]
        new = [key for key in dict.fromkeys(keys) if key is not None and key not in seen]
        seen.update(new)
        if len(new) == 1:
            units.append(new[0])
        elif new:
            units.append(m.Places(new))
    return units


def stage_rankings(
    trace: Trace, level: str, document_of: Mapping[int, str] | None = None
) -> dict[str, Sequence[Hashable]]:
    """Stage name -> its ranking at ``level``, in pipeline order.

    ``document_of`` (chunk id -> document key) defaults to the trace's own chunk views; evaluation
    passes the judge's, built once per layout, so no query builds views. The final list is read
    with its folded hits' places (``ranked_units``).
    """
    if document_of is None:
        document_of = document_keys(trace.chunks) if level == "doc" else {}
    places = folded_places(trace)
    return {
        stage.stage: ranked_units(stage.ranked, document_of, level, places if stage.stage == FINAL else None)
        for stage in trace.stages
    }


def stage_metrics(
    rankings: Mapping[str, Sequence[Hashable]],
    relevant: Mapping[Hashable, int],
    metric_names: Sequence[str],
) -> dict[str, dict[str, float]]:
    """Stage -> metric -> value for one query, plus ``recall@pool`` and ``pool`` per stage."""
    table = {}
    for stage, ranking in rankings.items():
        row = m.compute_all(metric_names, ranking, relevant)
        row[POOL_RECALL] = m.recall_at(ranking, relevant, max(len(ranking), 1))
        row[POOL_SIZE] = float(len(ranking))
        table[stage] = row
    return table


def average_stage_metrics(per_query: Sequence[Mapping[str, Mapping[str, float]]]) -> dict[str, dict[str, float]]:
    """Mean of each stage's metrics over the queries (stages missing from a query are not counted)."""
    sums: dict[str, dict[str, list[float]]] = {}
    for table in per_query:
        for stage, row in table.items():
            for name, value in row.items():
                sums.setdefault(stage, {}).setdefault(name, []).append(value)
    return {stage: {name: m.mean(values) for name, values in row.items()} for stage, row in sums.items()}
