"""Run a golden set through the pipeline and score the rankings, per query, per stage, averaged.

Two levels:

- ``doc``: a document ranks where its best chunk ranks; judgements are the documents' grades.
- ``span``: the unit is the chunk; a chunk is relevant by the rules of
  ``workbench.evaluation.relevance``, and recall and the ideal DCG count every relevant chunk of
  the evaluated layout, so re-chunking changes the unit but not the judgement. Queries without
  span judgements are skipped at this level (and counted).

Metrics read the first k results, so evaluation raises ``retrieval.top_k`` to the deepest cutoff
(three chunks per document at document level). It never touches ``retrieval.candidates`` or
any other key: the first ``top_k`` results are exactly what the configuration serves, so the
numbers hold for it (a pool smaller than the cutoff caps recall, as it would in use).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, cast

from store.index_set import Snapshot
from workbench.config import ConfigError, WorkbenchConfig, key_limits
from workbench.evaluation import metrics as m
from workbench.evaluation.abstention import AbstentionReport, abstention
from workbench.evaluation.answer_totals import answer_notes, average_answer_metrics
from workbench.evaluation.answers import judge_answer
from workbench.evaluation.golden import GoldenQuery, GoldenSet, content_hash, unreviewed_note
from workbench.evaluation.inputs import CONFIG_HASH, config_hash, run_inputs
from workbench.evaluation.relevance import ChunkJudge
from workbench.evaluation.stages import (
    LEVELS,
    average_stage_metrics,
    ranked_documents,
    ranked_units,
    stage_metrics,
    stage_rankings,
)
from workbench.facade import WorkbenchFacade
from workbench.generation.citing import matched_places
from workbench.llm.client import LlmClient
from workbench.retrieval.fold import folded_places
from workbench.retrieval.pipeline import needs_query_vectors
from workbench.retrieval.stages import FINAL
from workbench.retrieval.trace import ChunkView, Trace, chunk_view, stored_chunks

CHUNKS_PER_DOCUMENT_DEPTH = 3

QueryRunner = Callable[[str, WorkbenchConfig], Trace]
ProgressCallback = Callable[[int, int], None]
#: eval --answers: (golden query, its trace) -> metrics and the stored answer record
AnswerJudge = Callable[[GoldenQuery, Trace], tuple[dict[str, float], dict[str, Any]]]


@dataclass
class QueryResult:
    query_id: str
    query: str
    metrics: dict[str, float]
    ranked_doc_ids: list[str]
    ranked_chunk_ids: list[int] = field(default_factory=list)
    relevant: int = 0  # relevant units (documents or chunks) the query has in this layout
    stage_metrics: dict[str, dict[str, float]] = field(default_factory=dict)
    verdict: str | None = None  # the trace's confidence verdict (relevant | ambiguous | no_answer)
    answer: dict[str, Any] | None = None  # eval --answers: AnswerJudgement.to_dict() (answer, verdicts, cost)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QueryResult:
        return cls(
            query_id=str(data["query_id"]),
            query=data.get("query", ""),
            metrics=dict(data.get("metrics", {})),
            ranked_doc_ids=list(data.get("ranked_doc_ids", [])),
            ranked_chunk_ids=[int(c) for c in data.get("ranked_chunk_ids", [])],
            relevant=int(data.get("relevant", 0)),
            stage_metrics=dict(data.get("stage_metrics", {})),
            verdict=data.get("verdict"),
            answer=data.get("answer"),
        )


@dataclass
class SkippedQuery:
    query_id: str
    reason: str


@dataclass
class EvaluationResult:
    collection: str
    golden: str
    level: str
    config: dict[str, dict[str, Any]]  # WorkbenchConfig.to_dict()
    metrics: dict[str, float]
    per_query: list[QueryResult] = field(default_factory=list)
    elapsed_s: float = 0.0
    stage_metrics: dict[str, dict[str, float]] = field(default_factory=dict)
    skipped: list[SkippedQuery] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    evaluated_top_k: int = 0
    run_id: int | None = None
    label: str = ""
    created_at: str | None = None
    #: how the confidence verdict did, when the golden set has no-answer queries (empty ``relevant``)
    abstention: AbstentionReport | None = None
    #: ``golden.content_hash`` of the set scored ("" for runs stored before it was recorded)
    golden_hash: str = ""
    #: the corpus fingerprint and configuration hash (``workbench.evaluation.inputs``; {} before they were recorded)
    inputs: dict[str, object] = field(default_factory=dict)

    @property
    def metric_names(self) -> list[str]:
        return list(self.metrics)

    def per_query_values(self, metric: str) -> dict[str, float]:
        return {q.query_id: q.metrics[metric] for q in self.per_query if metric in q.metrics}

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "label": self.label,
            "collection": self.collection,
            "golden": self.golden,
            "golden_hash": self.golden_hash,
            "inputs": self.inputs,
            "level": self.level,
            "metrics": self.metrics,
            "config": self.config,
            "evaluated_top_k": self.evaluated_top_k,
            "stage_metrics": self.stage_metrics,
            "queries": len(self.per_query),
            "skipped": [asdict(s) for s in self.skipped],
            "notes": self.notes,
            "elapsed_s": self.elapsed_s,
            "created_at": self.created_at,
            "per_query": [q.to_dict() for q in self.per_query],
            "abstention": self.abstention.to_dict() if self.abstention else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvaluationResult:
        return cls(
            collection=data["collection"],
            golden=data["golden"],
            golden_hash=data.get("golden_hash") or "",
            inputs=dict(data.get("inputs") or {}),
            level=data["level"],
            config=data["config"],
            metrics=dict(data["metrics"]),
            per_query=[QueryResult.from_dict(q) for q in data.get("per_query", [])],
            elapsed_s=float(data.get("elapsed_s", 0.0)),
            stage_metrics=dict(data.get("stage_metrics", {})),
            skipped=[SkippedQuery(**s) for s in data.get("skipped", [])],
            notes=list(data.get("notes", [])),
            evaluated_top_k=int(data.get("evaluated_top_k", 0)),
            run_id=data.get("run_id"),
            label=data.get("label", ""),
            created_at=data.get("created_at"),
            abstention=AbstentionReport.from_dict(data["abstention"]) if data.get("abstention") else None,
        )


def check_level(level: str) -> str:
    if level not in LEVELS:
        raise ValueError(f"unknown evaluation level {level!r}; use doc or span")
    return level


def evaluated_top_k(config: WorkbenchConfig, metric_names: Sequence[str], level: str) -> int:
    depth = m.depth_needed(metric_names) * (CHUNKS_PER_DOCUMENT_DEPTH if level == "doc" else 1)
    return max(config.retrieval.top_k, depth)


def evaluation_config(config: WorkbenchConfig, metric_names: Sequence[str], level: str = "doc") -> WorkbenchConfig:
    """``config`` with ``retrieval.top_k`` deep enough for every metric; nothing else changes."""
    depth = evaluated_top_k(config, metric_names, check_level(level))
    deepest = cast(int, key_limits("retrieval.top_k").maximum)  # an integer key with a declared maximum
    if depth > deepest:
        per_document = f" ({CHUNKS_PER_DOCUMENT_DEPTH} chunks per document)" if level == "doc" else ""
        raise ConfigError(
            f"metrics {', '.join(metric_names)} at {level} level read the first {depth} results{per_document}, "
            f"more than retrieval.top_k allows ({deepest}); use smaller cutoffs"
            + (
                f" (at most {deepest // CHUNKS_PER_DOCUMENT_DEPTH} at doc level) or the span level"
                if level == "doc"
                else ""
            )
        )
    return config.with_value("retrieval.top_k", depth)


def document_judgements(query: GoldenQuery, names: Mapping[str, str]) -> dict[Hashable, int]:
    """Document key -> grade; a name the layout does not know stays as given (it is never retrieved)."""
    grades: dict[Hashable, int] = {}
    for doc, grade in query.doc_grades().items():
        key = names.get(doc, doc)
        grades[key] = max(grades.get(key, 0), grade)
    return grades


def span_judgements(query: GoldenQuery, judge: ChunkJudge) -> dict[Hashable, int]:
    """Chunk id -> grade over the layout, plus one never-retrievable unit per item matching no chunk."""
    relevant: dict[Hashable, int] = dict(judge.judge(query).items())
    for position, item in enumerate(judge.unmatched(query)):
        relevant[f"unmatched:{position}:{item.doc}"] = item.grade
    return relevant


def evaluate(
    run_query: QueryRunner,
    golden: GoldenSet,
    config: WorkbenchConfig,
    collection: str,
    judge: ChunkJudge,
    *,
    level: str = "doc",
    metric_names: Sequence[str] = m.DEFAULT_METRICS,
    progress: ProgressCallback | None = None,
    answer_judge: AnswerJudge | None = None,
    stages: bool = True,
) -> EvaluationResult:
    """Score every query of ``golden`` under ``config``; ``judge`` covers the config's layout.

    With ``answer_judge`` each query's answer metrics join its ranking metrics (and are averaged
    over the queries that have them: a judgement that failed leaves its metric out). ``stages``
    off scores the final ranking only (a study's trials need nothing else).
    """
    started = time.perf_counter()
    check_level(level)
    metric_names = m.validate(metric_names)
    run_config = evaluation_config(config, metric_names, level)
    depth = m.depth_needed(metric_names)
    per_query: list[QueryResult] = []
    skipped: list[SkippedQuery] = []
    unknown: set[str] = set()
    unmatched = 0
    no_answer_verdicts: list[str] = []
    # verdicts cost a little per query; only a golden set with no-answer queries asks about them
    judge_confidence = any(query.is_no_answer for query in golden.queries)
    for position, query in enumerate(golden.queries, start=1):
        reason = _skip_reason(query, level)
        if query.is_no_answer:
            # nothing to rank against; what counts is whether the verdict abstains
            verdict = _verdict(run_query(query.query, run_config))
            if verdict is not None:
                no_answer_verdicts.append(verdict)
        elif reason:
            skipped.append(SkippedQuery(query.id, reason))
        else:
            unknown.update(judge.unknown_documents(query))
            if level == "span":
                relevant = span_judgements(query, judge)
                unmatched += len(judge.unmatched(query))
            else:
                relevant = document_judgements(query, judge.names)
            trace = run_query(query.query, run_config)
            if stages:
                rankings = stage_rankings(trace, level, judge.document_keys)
            else:
                rankings = {FINAL: ranked_units(trace.final, judge.document_keys, level, folded_places(trace))}
            final = rankings.get(FINAL, [])
            metrics = m.compute_all(metric_names, final, relevant)
            answer = None
            if answer_judge is not None:
                answer_metrics, answer = answer_judge(query, trace)
                metrics.update(answer_metrics)
            per_query.append(
                QueryResult(
                    query_id=query.id,
                    query=query.query,
                    metrics=metrics,
                    ranked_doc_ids=ranked_documents(trace.final, judge.document_keys)[:depth],
                    ranked_chunk_ids=trace.final.chunk_ids()[:depth] if level == "span" else [],
                    relevant=len(relevant),
                    stage_metrics=stage_metrics(rankings, relevant, metric_names) if stages else {},
                    verdict=_verdict(trace) if judge_confidence else None,
                    answer=answer,
                )
            )
        if progress:
            progress(position, len(golden.queries))
    notes = _notes(level, skipped, unknown, unmatched, per_query, judge)
    if unreviewed_note(golden):
        notes.insert(0, unreviewed_note(golden))
    answerable_verdicts = [q.verdict for q in per_query if q.verdict is not None]
    report = abstention(answerable_verdicts, no_answer_verdicts) if no_answer_verdicts else None
    averaged = {name: m.mean([q.metrics[name] for q in per_query]) for name in metric_names}
    if answer_judge is not None:
        averaged.update(average_answer_metrics(per_query))
        notes.extend(answer_notes(per_query))
    return EvaluationResult(
        collection=collection,
        golden=golden.name,
        golden_hash=content_hash(golden),
        inputs={CONFIG_HASH: config_hash(config)},
        level=level,
        config=config.to_dict(),
        metrics=averaged,
        per_query=per_query,
        elapsed_s=time.perf_counter() - started,
        stage_metrics=average_stage_metrics([q.stage_metrics for q in per_query]),
        skipped=skipped,
        notes=notes,
        evaluated_top_k=run_config.retrieval.top_k,
        abstention=report,
    )


def _verdict(trace: Trace) -> str | None:
    return trace.confidence.verdict if trace.confidence is not None else None


def _skip_reason(query: GoldenQuery, level: str) -> str:
    if not query.doc_grades():
        return "no relevant items (every grade is 0)"
    if level == "span" and not query.has_spans:
        return "no span judgements (document-level only)"
    return ""


def _notes(
    level: str,
    skipped: Sequence[SkippedQuery],
    unknown: set[str],
    unmatched: int,
    per_query: Sequence[QueryResult],
    judge: ChunkJudge,
) -> list[str]:
    notes: list[str] = []
    if skipped:
        reasons: dict[str, int] = {}
        for item in skipped:
            reasons[item.reason] = reasons.get(item.reason, 0) + 1
        notes.append("skipped " + ", ".join(f"{count} queries: {reason}" for reason, count in reasons.items()))
    if unknown:
        shown = ", ".join(sorted(unknown)[:5]) + (" ..." if len(unknown) > 5 else "")
        notes.append(f"{len(unknown)} judged documents are not in the collection ({shown}); they count as missed")
    if unmatched:
        notes.append(
            f"{unmatched} judged items match no chunk (unknown document, or quote not found in it); "
            "each counts as one relevant chunk never retrieved"
        )
    if level == "span" and per_query:
        average = sum(q.relevant for q in per_query) / len(per_query)
        notes.append(f"span level over {judge.chunk_count} chunks: {average:.2f} relevant chunks per query on average")
    return notes


# -- collections ----------------------------------------------------------------------------------


def chunk_views(snapshot: Snapshot) -> list[ChunkView]:
    """Every chunk of a loaded snapshot as a full view, texts read (a small collection's tests and tools)."""
    return [chunk_view(snapshot, chunk_id) for chunk_id in snapshot.chunks]


def judge_for(bench: WorkbenchFacade, collection: str, config: WorkbenchConfig) -> ChunkJudge:
    """The relevance judge over the layout ``config`` selects (building that layout if needed).

    It holds every chunk's document and span; a chunk's text is read only when a quote is
    looked for in it."""
    snapshot = bench.snapshot(collection, config)
    return ChunkJudge(stored_chunks(snapshot), markdown=lambda doc_id: bench.markdown(doc_id)[0])


def evaluate_collection(
    bench: WorkbenchFacade,
    collection: str,
    golden: GoldenSet,
    config: WorkbenchConfig,
    *,
    level: str = "doc",
    metric_names: Sequence[str] = m.DEFAULT_METRICS,
    progress: ProgressCallback | None = None,
    judge: ChunkJudge | None = None,
    answers: bool = False,
) -> EvaluationResult:
    """Evaluate on the workbench: loads the layout and embeds all queries in one batch.

    ``answers``: also generate and judge an answer per query (``eval --answers``; needs the LLM).
    """
    started = time.perf_counter()
    check_level(level)
    metric_names = m.validate(metric_names)
    answer_judge = answer_judge_for(bench.llm(), config, bench, collection) if answers else None
    judge = judge or judge_for(bench, collection, config)
    if needs_query_vectors(config):
        bench.embed_queries(config.embedding.key, [q.query for q in golden.queries])
    result = evaluate(
        lambda text, cfg: bench.query(text, collection, cfg),
        golden,
        config,
        collection,
        judge,
        level=level,
        metric_names=metric_names,
        progress=progress,
        answer_judge=answer_judge,
    )
    result.inputs = run_inputs(bench.catalog, collection, config)
    # the run took what the user waited for: loading the indexes and embedding the queries too
    result.elapsed_s = time.perf_counter() - started
    return result


def answer_judge_for(
    llm: LlmClient, config: WorkbenchConfig, bench: WorkbenchFacade | None = None, collection: str | None = None
) -> AnswerJudge:
    """Answers from the first ``retrieval.top_k`` final hits (what the configuration serves), judged by ``llm``.

    Given the workbench and the collection, each source is cited at the section and page where the
    query matched it (``citing.matched_places``), as the lab and MCP cite it."""
    if not llm.available:
        raise ValueError(llm.unavailable_reason("answer evaluation (--answers)"))
    top_k = config.retrieval.top_k

    def judge(query: GoldenQuery, trace: Trace) -> tuple[dict[str, float], dict[str, Any]]:
        chunks = trace.final_chunks()[:top_k]
        places = (
            matched_places(query.query, chunks, bench.snapshot(collection, config), bench.markdown)
            if bench is not None and collection is not None
            else None
        )
        judgement = judge_answer(query.query, chunks, llm, reference=query.answer, places=places)
        return judgement.metrics, judgement.to_dict()

    return judge
