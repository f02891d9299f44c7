"""A Chinese PDF end to end: parsed, chunked and searched with the default configuration.

The default hybrid pipeline with the bundled (English) embedding model must not lose to BM25 on
Chinese questions: the language guard leaves the dense route out of fusion for them. The test
prints the quote-level nDCG@10 of the default configuration, of BM25, and of hybrid without the
guard (what the default was before), so the difference is visible in the test log.
"""

from __future__ import annotations

import json

import pytest

from tests.workbench.ingestion.chinese_handbook import CHAPTERS, FILE_NAME, QUESTIONS, build_pdf, golden_lines
from workbench.evaluation import golden as golden_sets
from workbench.evaluation.runner import evaluate_collection
from workbench.ingestion.ingest import Source


@pytest.fixture(scope="module")
def handbook(tmp_path_factory):
    from workbench.service import Workbench

    root = tmp_path_factory.mktemp("chinese-pdf")
    pdf = build_pdf(root / FILE_NAME)
    bench = Workbench(root / "home")
    report = bench.ingest("handbook", [Source.from_path(pdf)])
    assert not report.failures, report.summary()
    path = root / "handbook.jsonl"
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in golden_lines()), encoding="utf-8")
    return bench, golden_sets.load(path)


def test_the_pdf_has_sixteen_pages_of_chinese_with_every_quote_on_a_line(handbook):
    bench, golden = handbook
    (document,) = bench.documents("handbook")
    markdown, page_starts = bench.markdown(document.id)
    assert document.doc_type == "pdf" and len(page_starts) == len(CHAPTERS) == 16
    for heading, sentences in CHAPTERS:
        assert heading in markdown and sentences[0] in markdown
    for _qid, _question, quote in QUESTIONS:
        assert quote in markdown
    assert len(golden) == len(QUESTIONS) >= 12


def test_default_configuration_scores_at_least_bm25(handbook):
    bench, golden = handbook
    scores = {}
    for label, overrides in (
        ("default", []),
        ("bm25", ["retrieval.mode=bm25"]),
        ("hybrid, guard off", ["retrieval.language_guard=off"]),
    ):
        config = bench.config_for("handbook", None, overrides)
        result = evaluate_collection(bench, "handbook", golden, config, level="span", metric_names=["ndcg@10"])
        assert len(result.per_query) == len(QUESTIONS) and not result.skipped
        scores[label] = result.metrics["ndcg@10"]
    print("\nChinese PDF, quote level, nDCG@10: " + ", ".join(f"{k} {v:.4f}" for k, v in scores.items()))
    assert scores["default"] >= scores["bm25"]


def test_the_collection_is_recognised_as_chinese(handbook):
    bench, _golden = handbook
    language = bench.collection_language("handbook")
    assert language.mix.language == "zh"
    assert language.warning is not None and "all-MiniLM-L6-v2 does not cover" in language.warning
    assert "BAAI/bge-small-zh-v1.5" in language.warning
