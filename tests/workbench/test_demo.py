"""The bundled demo: its files, its golden set and the spans inside it, and the loader's errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.demo import DEMO_DIR, DemoMissingError, demo_documents, load_demo
from workbench.evaluation import golden as golden_sets
from workbench.ingestion.parsers import parse_bytes


@pytest.fixture(scope="module")
def canonical() -> dict[str, str]:
    """Each demo document's canonical Markdown, parsed exactly as ingestion parses it."""
    return {path.name: parse_bytes(path.read_bytes(), path.name).markdown for path in demo_documents()}


def test_the_demo_holds_forty_abstracts_and_four_written_documents():
    names = [path.name for path in demo_documents()]
    assert len(names) == 44
    assert sum(name.startswith("scifact-") and name.endswith(".md") for name in names) == 40
    assert {name for name in names if not name.startswith("scifact-")} == {
        "rag-pipeline-overview.md",
        "evaluating-retrieval.md",
        "hybrid-search-and-fusion.pdf",
        "chunking-strategies.docx",
    }


def test_every_golden_judgement_points_at_a_demo_document(canonical):
    golden = golden_sets.load(DEMO_DIR / "golden.jsonl")
    assert len(golden) == 24
    assert sum(q.id.startswith("scifact-") for q in golden.queries) == 15
    for query in golden.queries:
        assert query.doc_grades(), query.id
        assert set(query.doc_grades()) <= set(canonical), query.id


def test_every_span_is_the_exact_quote_in_the_canonical_markdown(canonical):
    golden = golden_sets.load(DEMO_DIR / "golden.jsonl")
    spans = [(query.id, item) for query in golden.queries for item in query.relevant if item.is_span]
    assert len(spans) >= 24
    for query_id, item in spans:
        assert canonical[item.doc][item.start : item.end] == item.quote, (query_id, item.doc)
    assert all(any(item.is_span for item in query.relevant) for query in golden.queries)


def test_the_attribution_names_the_sources_and_licences():
    text = (DEMO_DIR / "ATTRIBUTION.md").read_text()
    for needle in ("SciFact", "Wadden", "CC BY 4.0", "ODC-By 1.0", "make_documents.py"):
        assert needle in text


def test_a_missing_demo_names_the_fix(tmp_path: Path):
    with pytest.raises(DemoMissingError, match="regenerate them with: python demo/make_documents.py"):
        demo_documents(tmp_path)
    (tmp_path / "documents").mkdir()
    (tmp_path / "documents" / "a.md").write_text("# A\n\ntext\n")
    with pytest.raises(DemoMissingError, match="golden.jsonl is missing"):
        load_demo(object(), demo_dir=tmp_path)  # fails before touching the workbench
