"""Run a golden set through the pipeline and score the rankings.

Document level: a document ranks where its best chunk ranks. Evaluation ranks as deep as the
deepest metric cutoff asks (``recall@100`` needs 100 documents), so it raises
``retrieval.top_k`` and ``retrieval.candidates`` to that depth (three chunks per document at
document level) and reports the configuration it actually ran.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from workbench.config import WorkbenchConfig
from workbench.evaluation import metrics as m
from workbench.evaluation.golden import GoldenQuery, GoldenSet
from workbench.trace import Trace

CHUNKS_PER_DOCUMENT_DEPTH = 3


@dataclass
class QueryResult:
    query_id: str
    query: str
    metrics: dict[str, float]
    ranked_doc_ids: list[str]


@dataclass
class EvaluationResult:
    collection: str
    golden: str
    level: str
    config: dict
    metrics: dict[str, float]
    per_query: list[QueryResult] = field(default_factory=list)
    elapsed_s: float = 0.0

    def to_dict(self) -> dict:
        return {
            "collection": self.collection,
            "golden": self.golden,
            "level": self.level,
            "metrics": self.metrics,
            "config": self.config,
            "per_query": [
                {"query_id": q.query_id, "metrics": q.metrics, "ranked_doc_ids": q.ranked_doc_ids}
                for q in self.per_query
            ],
            "elapsed_s": self.elapsed_s,
        }


def evaluation_config(config: WorkbenchConfig, metric_names: Sequence[str]) -> WorkbenchConfig:
    depth = m.depth_needed(metric_names) * CHUNKS_PER_DOCUMENT_DEPTH
    return config.with_overrides(
        [f"retrieval.top_k={max(config.retrieval.top_k, depth)}",
         f"retrieval.candidates={max(config.retrieval.candidates, depth)}"]
    )


def ranked_documents(trace: Trace) -> list[str]:
    """Distinct documents in order of their best chunk, named by external id (else file name)."""
    seen: dict[str, None] = {}
    for hit in trace.final.hits:
        view = trace.chunks.get(hit.chunk_id)
        if view is not None:
            seen.setdefault(view.external_id or view.source, None)
    return list(seen)


def document_judgements(query: GoldenQuery) -> dict[str, int]:
    grades = query.doc_grades()
    return {doc.removesuffix(".md") if doc.endswith(".md") else doc: grade for doc, grade in grades.items()}


def evaluate_documents(
    run_query: Callable[[str, WorkbenchConfig], Trace],
    golden: GoldenSet,
    config: WorkbenchConfig,
    collection: str,
    metric_names: Sequence[str] = m.DEFAULT_METRICS,
    progress: Callable[[int, int], None] | None = None,
) -> EvaluationResult:
    started = time.perf_counter()
    run_config = evaluation_config(config, metric_names)
    per_query = []
    for position, query in enumerate(golden.queries, start=1):
        trace = run_query(query.query, run_config)
        ranked = ranked_documents(trace)
        relevant = query.doc_grades()
        # golden sets may name a document by external id or by file name
        named = [doc if doc in relevant else _source_alias(trace, doc, relevant) for doc in ranked]
        scores = {name: m.compute(name, named, relevant) for name in metric_names}
        per_query.append(QueryResult(query.id, query.query, scores, ranked[: m.depth_needed(metric_names)]))
        if progress:
            progress(position, len(golden.queries))
    averages = {
        name: sum(q.metrics[name] for q in per_query) / len(per_query) if per_query else 0.0 for name in metric_names
    }
    return EvaluationResult(collection, golden.name, "doc", run_config.to_dict(), averages, per_query,
                            time.perf_counter() - started)


def _source_alias(trace: Trace, doc: str, relevant: dict[str, int]) -> str:
    for view in trace.chunks.values():
        if (view.external_id or view.source) == doc:
            if view.source in relevant:
                return view.source
            break
    return doc
