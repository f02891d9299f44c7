"""Export a run, a comparison or a sweep as Markdown, HTML or CSV.

Markdown and HTML render the same small report model (titled sections of text lines and
tables), so both always say the same thing. CSV holds the per-query (or per-point) rows, the
part people load into a spreadsheet or a notebook.
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.config import flatten
from workbench.evaluation.compare import Comparison
from workbench.evaluation.intervals import metric_intervals
from workbench.evaluation.runner import EvaluationResult
from workbench.evaluation.stages import POOL_RECALL, POOL_SIZE

FORMATS = ("md", "html", "csv")
SUFFIXES = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".csv": "csv"}
MOST_CHANGED_SHOWN = 20


@dataclass(frozen=True)
class Table:
    headers: tuple[str, ...]
    rows: tuple[tuple[object, ...], ...]  # cells: numbers, text, lists, None (see ``_cell``)


@dataclass(frozen=True)
class Section:
    title: str
    lines: tuple[str, ...] = ()
    table: Table | None = None


@dataclass(frozen=True)
class Report:
    title: str
    sections: tuple[Section, ...]


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return "" if value is None else str(value)


# -- report models ----------------------------------------------------------------------------


def run_report(result: EvaluationResult) -> Report:
    name = f"run #{result.run_id}" if result.run_id is not None else "evaluation"
    about = (
        f"collection **{result.collection}**, golden set **{result.golden}**, level **{result.level}**, "
        f"{len(result.per_query)} queries evaluated, {len(result.skipped)} skipped, ranked to depth "
        f"{result.evaluated_top_k}, {result.elapsed_s:.1f} s" + (f", {result.created_at}" if result.created_at else ""),
    )
    metric_names = list(result.metrics)
    intervals = metric_intervals([q.metrics for q in result.per_query], metric_names)
    sections = [
        Section("Summary", about + ((f"label: {result.label}",) if result.label else ())),
        Section(
            "Metrics",
            (f"95% intervals: percentile bootstrap over the {len(result.per_query)} queries.",),
            Table(
                ("metric", "value", "95% interval", "queries"),
                tuple(
                    (k, v, intervals[k].interval.describe_mean() if k in intervals else "", len(result.per_query))
                    for k, v in result.metrics.items()
                ),
            ),
        ),
    ]
    if result.stage_metrics:
        columns = metric_names + [POOL_RECALL, POOL_SIZE]
        sections.append(
            Section(
                "Per stage",
                (f"{POOL_RECALL} is the recall of the stage's whole list: the ceiling later stages cannot beat.",),
                Table(
                    ("stage", *columns),
                    tuple((stage, *(row.get(c) for c in columns)) for stage, row in result.stage_metrics.items()),
                ),
            )
        )
    if result.notes:
        sections.append(Section("Notes", tuple(result.notes)))
    sections.append(
        Section(
            "Configuration",
            table=Table(("key", "value"), tuple((k, _cell(v)) for k, v in sorted(flatten(result.config).items()))),
        )
    )
    sections.append(
        Section(
            "Per query",
            table=Table(
                ("query id", "query", *metric_names, "relevant", "top documents"),
                tuple(
                    (q.query_id, q.query, *(q.metrics.get(n) for n in metric_names), q.relevant, q.ranked_doc_ids[:5])
                    for q in result.per_query
                ),
            ),
        )
    )
    return Report(f"Evaluation {name}", tuple(sections))


def comparison_report(comparison: Comparison) -> Report:
    test = comparison.test
    verdict = (
        f"{comparison.metric}: mean difference (b - a) {test.mean_difference:+.4f}, "
        f"p = {test.p_value:.4f} ({test.method} test, {test.permutations} permutations, seed {test.seed})"
    )
    sections = [
        Section(
            "Summary",
            (
                f"run a = #{comparison.run_a}, run b = #{comparison.run_b}",
                verdict,
                f"b wins on {comparison.wins} queries, loses on {comparison.losses}, ties on {comparison.ties}",
                *comparison.warnings,
            ),
        ),
        Section(
            "Metrics",
            table=Table(
                ("metric", "run a", "run b", "delta", "95% interval of the delta", "queries"),
                tuple(
                    (d.metric, d.a, d.b, d.delta, d.interval.describe() if d.interval else "", len(comparison.changes))
                    for d in comparison.deltas
                ),
            ),
        ),
    ]
    if comparison.config_changes:
        sections.append(
            Section(
                "Configuration changes",
                table=Table(
                    ("key", "run a", "run b"), tuple((k, _cell(a), _cell(b)) for k, a, b in comparison.config_changes)
                ),
            )
        )
    changed = comparison.most_changed(MOST_CHANGED_SHOWN)
    sections.append(
        Section(
            f"Queries that changed most ({comparison.metric})",
            () if changed else ("no query changed",),
            Table(
                ("query id", "query", "run a", "run b", "delta"),
                tuple((c.query_id, c.query, c.a, c.b, c.delta) for c in changed),
            )
            if changed
            else None,
        )
    )
    return Report(f"Comparison of runs #{comparison.run_a} and #{comparison.run_b}", tuple(sections))


def sweep_report(rows: Sequence[Mapping[str, Any]], metric: str, summary_lines: tuple[str, ...] = ()) -> Report:
    ordered = sorted(rows, key=lambda row: -float(row.get(metric, 0.0)))
    headers = tuple(ordered[0]) if ordered else ()
    return Report(
        "Sweep",
        (
            Section("Summary", summary_lines),
            Section(f"Results (best {metric} first)", table=Table(headers, tuple(tuple(r.values()) for r in ordered))),
        ),
    )


# -- rendering --------------------------------------------------------------------------------


def _markdown_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(report: Report) -> str:
    out = [f"# {report.title}", ""]
    for section in report.sections:
        out += [f"## {section.title}", ""]
        for line in section.lines:
            out += [line, ""]
        if section.table is not None:
            out.append("| " + " | ".join(_markdown_escape(h) for h in section.table.headers) + " |")
            out.append("|" + "|".join("---" for _ in section.table.headers) + "|")
            for row in section.table.rows:
                out.append("| " + " | ".join(_markdown_escape(_cell(v)) for v in row) + " |")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


_STYLE = (
    "body{font-family:system-ui,sans-serif;margin:2em;max-width:80em}"
    "table{border-collapse:collapse;margin:.5em 0 1.5em}"
    "th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}"
    "th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}"
)


def _inline(text: str) -> str:
    """HTML-escape, then turn the Markdown ``**bold**`` the summaries use into <strong>."""
    parts = html.escape(text).split("**")
    return "".join(f"<strong>{part}</strong>" if i % 2 else part for i, part in enumerate(parts))


def to_html(report: Report) -> str:
    out = [
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8">',
        f"<title>{html.escape(report.title)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>{html.escape(report.title)}</h1>",
    ]
    for section in report.sections:
        out.append(f"<h2>{html.escape(section.title)}</h2>")
        out += [f"<p>{_inline(line)}</p>" for line in section.lines]
        if section.table is not None:
            out.append(
                "<table><thead><tr>"
                + "".join(f"<th>{html.escape(h)}</th>" for h in section.table.headers)
                + "</tr></thead><tbody>"
            )
            for row in section.table.rows:
                cells = "".join(
                    f'<td class="num">{_cell(v)}</td>'
                    if isinstance(v, (int, float)) and not isinstance(v, bool)
                    else f"<td>{html.escape(_cell(v))}</td>"
                    for v in row
                )
                out.append(f"<tr>{cells}</tr>")
            out.append("</tbody></table>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _csv(headers: list[str], rows: list[list[object]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(headers)
    for row in rows:
        writer.writerow([v if isinstance(v, (int, float)) else _cell(v) for v in row])
    return buffer.getvalue()


def run_csv(result: EvaluationResult) -> str:
    """One row per evaluated query: its metrics, relevant count and ranked documents."""
    names = list(result.metrics)
    return _csv(
        ["query_id", "query", *names, "relevant", "ranked_doc_ids"],
        [
            [q.query_id, q.query, *(q.metrics.get(n) for n in names), q.relevant, " ".join(q.ranked_doc_ids)]
            for q in result.per_query
        ],
    )


def comparison_csv(comparison: Comparison) -> str:
    """One row per paired query: the metric in each run and the difference."""
    return _csv(
        ["query_id", "query", f"{comparison.metric}_a", f"{comparison.metric}_b", "delta"],
        [[c.query_id, c.query, c.a, c.b, c.delta] for c in comparison.changes],
    )


def sweep_csv(rows: Sequence[Mapping[str, object]]) -> str:
    headers = list(rows[0]) if rows else []
    return _csv(headers, [[row.get(h) for h in headers] for row in rows])


def render(what: EvaluationResult | Comparison, fmt: str) -> str:
    """A run or a comparison in ``md``, ``html`` or ``csv``."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    if fmt == "csv":
        return comparison_csv(what) if isinstance(what, Comparison) else run_csv(what)
    report = comparison_report(what) if isinstance(what, Comparison) else run_report(what)
    return to_markdown(report) if fmt == "md" else to_html(report)


def write(what: EvaluationResult | Comparison, path: Path) -> Path:
    """Write by file suffix: ``.md``, ``.html`` or ``.csv``."""
    path = Path(path)
    fmt = SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(f"cannot tell the export format of {path.name}; end the name with .md, .html or .csv")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(what, fmt), encoding="utf-8")
    return path
