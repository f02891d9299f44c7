"""The lab's view of a confidence verdict."""

from dataclasses import dataclass

import pytest

from store.sparse_index import lucene_idf
from workbench.analysis.verdict import evidence_rows, hit_term_coverage, verdict_view
from workbench.retrieval.confidence import DENSE, RERANK, TERMS, Evidence, judge


def test_verdict_view_and_rows():
    confidence = judge(
        [
            Evidence(TERMS, 0.1, 0.3, 0.7, True, "hit 1 holds 0 of the query's 2 terms"),
            Evidence(DENSE, -3.0, -2.0, 0.0, True, "best cosine ..."),
            Evidence(RERANK, None, 0.05, 0.5, False, "no rerank stage ran"),
        ],
        hits=4,
    )
    view = verdict_view(confidence)
    assert view.kind == "error" and view.headline.startswith("No answer")
    assert view.reason == "terms says no_answer; dense says no_answer"
    rows = evidence_rows(confidence)
    assert [row["signal"] for row in rows] == ["terms", "dense", "rerank"]
    assert rows[0] == {
        "signal": "terms",
        "value": 0.1,
        "no_answer below": 0.3,
        "relevant from": 0.7,
        "says": "no_answer",
        "counted": "yes",
        "evidence": "hit 1 holds 0 of the query's 2 terms",
    }
    assert (rows[2]["says"], rows[2]["counted"]) == ("—", "no")


@dataclass
class Row:
    term: str
    tf: int
    df: int
    idf: float


def test_hit_term_coverage_from_explain_rows():
    rows = [Row("dough", 2, 3, 1.5), Row("yeast", 0, 1, 2.5), Row("volcano", 0, 0, 0.0)]
    unseen = lucene_idf(0, 10)
    match = hit_term_coverage(rows, num_chunks=10)
    assert match.coverage == pytest.approx(1.5 / (1.5 + 2.5 + unseen))
    assert match.matched == ("dough",) and match.missing == ("yeast", "volcano")
    assert hit_term_coverage([], 10) is None


@dataclass
class WordRow(Row):
    word: str = ""


def test_hit_term_coverage_leaves_function_words_out_as_the_verdict_does():
    rows = [WordRow("doe", 0, 0, 0.0, "does"), WordRow("dough", 2, 3, 1.5, "dough"), WordRow("怎么", 0, 0, 0.0, "怎么")]
    match = hit_term_coverage(rows, num_chunks=10)
    assert match.coverage == pytest.approx(1.0) and match.missing == ()
    assert hit_term_coverage(rows[:1], 10) is None
