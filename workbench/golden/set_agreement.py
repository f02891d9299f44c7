"""Do two golden sets agree? On the grades of what both judged, and on how they rank configurations.

``golden agree A B``: A is usually the trusted set (people), B the cheap one (an LLM, or a
sample). Grades are compared on the (query, judged unit) pairs both sets judged: a unit is a
span (document + offsets, or a quote) or a whole document. Then every configuration is evaluated
under A and under B (each query is run once per configuration: B reuses A's traces), and the two
orders by the metric are compared with Kendall's tau.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from workbench.config import WorkbenchConfig, dumps
from workbench.evaluation.golden import GoldenQuery, GoldenSet, RelevantItem
from workbench.evaluation.relevance import ChunkJudge
from workbench.evaluation.runner import evaluate, judge_for
from workbench.facade import WorkbenchFacade
from workbench.golden.agreement_measures import confusion_table, describe_kappa, kendall_tau_b, weighted_kappa
from workbench.golden.pools import NamedConfig
from workbench.layout import Layout
from workbench.retrieval.pipeline import needs_query_vectors
from workbench.retrieval.trace import Trace

DEFAULT_METRIC = "ndcg@10"
GRADE_CATEGORIES = 4  # 0-3


#: what a judgement is about: a document, and its span (offsets, or a quote) when it has one
JudgedUnit = tuple[str, int | None, int | None, str | None]


def _unit(item: RelevantItem) -> JudgedUnit:
    return (item.doc, item.start, item.end, item.quote)


def graded_units(golden: GoldenSet) -> dict[tuple[str, JudgedUnit], int]:
    """(query text, unit) -> grade; a unit judged twice keeps its highest grade."""
    grades: dict[tuple[str, JudgedUnit], int] = {}
    for query in golden.queries:
        text = " ".join(query.query.split())
        for item in query.relevant:
            key = (text, _unit(item))
            grades[key] = max(grades.get(key, 0), item.grade)
    return grades


def shared_pairs(a: GoldenSet, b: GoldenSet) -> list[tuple[int, int]]:
    """(A's grade, B's grade) of every (query, unit) both sets judged, in A's order."""
    grades_a, grades_b = graded_units(a), graded_units(b)
    return [(grade, grades_b[key]) for key, grade in grades_a.items() if key in grades_b]


@dataclass(frozen=True)
class ConfigScore:
    name: str
    under_a: float
    under_b: float


@dataclass
class AgreementReport:
    a: str
    b: str
    pairs: int
    only_a: int
    only_b: int
    table: list[list[int]]
    kappa_linear: float | None
    kappa_quadratic: float | None
    metric: str = DEFAULT_METRIC
    level: str = "doc"
    scores: list[ConfigScore] = field(default_factory=list)
    tau: float | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def kappa_words(self) -> str:
        return describe_kappa(self.kappa_linear)


def grade_agreement(a: GoldenSet, b: GoldenSet) -> AgreementReport:
    """Kappa and the confusion table on the pairs both judged (no retrieval)."""
    grades_a, grades_b = graded_units(a), graded_units(b)
    pairs = [(grade, grades_b[key]) for key, grade in grades_a.items() if key in grades_b]
    categories = max([GRADE_CATEGORIES, *(max(p) + 1 for p in pairs)])
    table = confusion_table(pairs, categories)
    report = AgreementReport(
        a.name,
        b.name,
        len(pairs),
        len(grades_a) - len(pairs),
        len(grades_b) - len(pairs),
        table,
        weighted_kappa(table, "linear"),
        weighted_kappa(table, "quadratic"),
    )
    if not pairs:
        report.notes.append(
            "the two sets judged no (query, document or span) in common: no kappa; judge the same "
            "pool, or export both from one pool"
        )
    elif report.kappa_linear is None:
        used = sorted({grade for pair in pairs for grade in pair})
        report.notes.append(
            f"kappa is undefined: both sets gave all {len(pairs)} shared pairs grade "
            f"{', '.join(map(str, used))}, so chance explains every agreement"
        )
    return report


def evaluation_level(a: GoldenSet, b: GoldenSet) -> str:
    """span when both sets judge spans (pool exports do), else doc."""
    return "span" if any(q.has_spans for q in a.queries) and any(q.has_spans for q in b.queries) else "doc"


def ranking_agreement(
    bench: WorkbenchFacade,
    collection: str,
    a: GoldenSet,
    b: GoldenSet,
    configs: list[NamedConfig],
    metric: str = DEFAULT_METRIC,
    level: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> AgreementReport:
    """``grade_agreement`` plus each configuration's ``metric`` under A and under B and Kendall's tau."""
    report = grade_agreement(a, b)
    report.metric, report.level = metric, level or evaluation_level(a, b)
    traces: dict[tuple[str, str], Trace] = {}

    def run_once(text: str, config: WorkbenchConfig) -> Trace:
        key = (text, dumps(config))
        if key not in traces:
            traces[key] = bench.query(text, collection, config)
        return traces[key]

    judges: dict[Layout, ChunkJudge] = {}
    for position, named in enumerate(configs, start=1):
        config = named.config
        layout = Layout.of(config)
        if layout not in judges:
            judges[layout] = judge_for(bench, collection, config)
        if needs_query_vectors(config):
            bench.embed_queries(config.embedding.key, list({q.query for q in (*a.queries, *b.queries)}))
        traces.clear()
        results = [
            evaluate(run_once, golden, config, collection, judges[layout], level=report.level, metric_names=[metric])
            for golden in (a, b)
        ]
        report.scores.append(ConfigScore(named.name, results[0].metrics[metric], results[1].metrics[metric]))
        if progress:
            progress(position, len(configs))
    report.tau = kendall_tau_b([s.under_a for s in report.scores], [s.under_b for s in report.scores])
    if report.tau is None:
        report.notes.append(
            f"Kendall tau is undefined: fewer than two configurations, or one set scores them all the same {metric}"
        )
    return report


def drop_judgements(golden: GoldenSet, fraction: float, seed: int, name: str) -> GoldenSet:
    """A copy of ``golden`` with a seeded ``fraction`` of its judged items left out; a query that
    loses every item is left out too (it would otherwise read as a query with no answer)."""
    if not 0.0 <= fraction < 1.0:
        raise ValueError(f"--drop {fraction} must be at least 0 and below 1 (a share of the judgements)")
    items = [(qi, ii) for qi, query in enumerate(golden.queries) for ii in range(len(query.relevant))]
    dropped = set(random.Random(seed).sample(items, round(len(items) * fraction)))
    queries: list[GoldenQuery] = []
    for qi, query in enumerate(golden.queries):
        kept = tuple(item for ii, item in enumerate(query.relevant) if (qi, ii) not in dropped)
        if kept or query.is_no_answer:
            queries.append(replace(query, relevant=kept))
    return GoldenSet(name, tuple(queries))
