"""Import a BEIR-layout folder: corpus lines become documents, qrels become a golden set.

Each corpus line ``{"_id", "title", "text"}`` becomes the Markdown ``# title\\n\\ntext\\n`` with
``_id`` kept as the external id. Span judgements (``qrels/test_spans.jsonl``, offsets into the
``text`` field) are shifted by the heading's length so they point into that Markdown.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from workbench.evaluation.golden import GoldenQuery, GoldenSet, RelevantItem, save
from workbench.ingestion.ingest import Source


class BeirFormatError(ValueError):
    pass


def document_markdown(title: str, text: str) -> tuple[str, int]:
    """The document's Markdown and the offset at which ``text`` starts inside it."""
    title = " ".join((title or "").split())
    header = f"# {title}\n\n" if title else ""
    return f"{header}{text}\n", len(header)


def read_jsonl(path: Path) -> Iterator[dict]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as error:
                    raise BeirFormatError(f"{path.name}:{number}: not valid JSON ({error.msg})") from None


def corpus_sources(folder: Path) -> tuple[list[Source], dict[str, int]]:
    corpus = folder / "corpus.jsonl"
    if not corpus.exists():
        raise BeirFormatError(f"{folder} has no corpus.jsonl; a BEIR folder holds corpus.jsonl, queries.jsonl, qrels/")
    sources, body_offsets = [], {}
    for record in read_jsonl(corpus):
        doc_id = str(record["_id"])
        markdown, offset = document_markdown(record.get("title", ""), record.get("text", ""))
        sources.append(Source.from_markdown(f"{doc_id}.md", markdown, external_id=doc_id))
        body_offsets[doc_id] = offset
    return sources, body_offsets


def golden_set(folder: Path, name: str, body_offsets: dict[str, int]) -> GoldenSet | None:
    qrels_path = folder / "qrels" / "test.tsv"
    queries_path = folder / "queries.jsonl"
    if not qrels_path.exists() or not queries_path.exists():
        return None
    texts = {str(q["_id"]): q["text"] for q in read_jsonl(queries_path)}
    judged: dict[str, list[RelevantItem]] = defaultdict(list)
    with qrels_path.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            grade = int(row["score"])
            if grade > 0:
                judged[row["query-id"]].append(RelevantItem(doc=row["corpus-id"], grade=grade))
    spans_path = folder / "qrels" / "test_spans.jsonl"
    if spans_path.exists():
        for span in read_jsonl(spans_path):
            doc = str(span["corpus-id"])
            shift = body_offsets.get(doc, 0)
            judged[str(span["query-id"])].append(
                RelevantItem(
                    doc=doc, start=int(span["start"]) + shift, end=int(span["end"]) + shift, quote=span.get("text")
                )
            )
    queries = tuple(
        GoldenQuery(query_id, texts[query_id], tuple(items)) for query_id, items in judged.items() if query_id in texts
    )
    return GoldenSet(name, queries)


def import_golden(folder: Path, name: str, home: Path) -> Path | None:
    _, offsets = corpus_sources(folder)
    golden = golden_set(folder, name, offsets)
    return save(golden, home / "golden_sets" / f"{name}.jsonl") if golden else None
