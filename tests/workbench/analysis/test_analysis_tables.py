from __future__ import annotations

import pytest

from workbench.analysis.tables import (
    chunk_label,
    context_rows,
    hit_choices,
    snippet,
    stage_overview,
    stage_rows,
    timing_rows,
)
from workbench.generation.context import assemble_context
from workbench.retrieval.ranking import RankedList
from workbench.retrieval.trace import ChunkView, StageTrace, Trace


def _view(chunk_id: int, source: str, heading: tuple[str, ...], text: str) -> ChunkView:
    return ChunkView(chunk_id, chunk_id * 10, source, None, "md", "", heading, None, 0, len(text), text)


VIEWS = {
    1: _view(1, "guide.md", ("Install", "Linux"), "apt-get install foo\n\non Linux"),
    2: _view(2, "faq.md", (), "Why is foo slow?"),
    3: _view(3, "usage.md", ("Usage",), "foo --help"),
}


def _trace() -> Trace:
    def ranked(name, ids, scores):
        return RankedList.from_ordered(name, [(c, c * 10, s) for c, s in zip(ids, scores, strict=False)])

    stages = (
        StageTrace("dense", {}, ranked("dense", [1, 2], [0.9, 0.5]), 1.25),
        StageTrace("bm25", {}, ranked("bm25", [3, 1], [2.0, 1.0]), 0.5, ("a note",)),
        StageTrace(
            "fusion",
            {"method": "rrf", "k": 60},
            ranked("fusion", [1, 3, 2], [0.0325, 0.0164, 0.0161]),
            0.1,
            details={
                1: {
                    "dense": {"rank": 1, "score": 0.9, "contribution": 1 / 61},
                    "bm25": {"rank": 2, "score": 1.0, "contribution": 1 / 62},
                },
                3: {
                    "dense": {"rank": None, "score": None, "contribution": 0.0},
                    "bm25": {"rank": 1, "score": 2.0, "contribution": 1 / 61},
                },
                2: {
                    "dense": {"rank": 2, "score": 0.5, "contribution": 1 / 62},
                    "bm25": {"rank": None, "score": None, "contribution": 0.0},
                },
            },
        ),
        StageTrace("final", {"top_k": 2}, ranked("final", [1, 3], [0.0325, 0.0164]), 0.0),
    )
    return Trace("q", "c", {"retrieval": {"top_k": 2}}, stages, VIEWS, 2.0)


def test_stage_overview_gives_each_stage_its_hits_time_and_relevant_ranks():
    assert stage_overview(_trace(), relevant={3: 2}) == [
        "dense · 2 hits · 1.2 ms · no relevant chunk",
        "bm25 · 2 hits · 0.5 ms · relevant at 1",
        "fusion · 3 hits · 0.1 ms · relevant at 2",
        "final · 2 hits · 0.0 ms · relevant at 2",
    ]
    # without a golden query, nothing is said of relevance
    assert stage_overview(_trace())[0] == "dense · 2 hits · 1.2 ms"


def test_stage_rows_carry_relevance_rank_score_text_and_stage_columns():
    rows = stage_rows(_trace(), "fusion", relevant={3: 2})
    assert [row["chunk"] for row in rows] == [1, 3, 2]
    assert [row["✓"] for row in rows] == ["", "✓", ""]
    assert rows[0]["rank"] == 1 and rows[0]["score"] == 0.0325
    assert (rows[0]["dense rank"], rows[0]["bm25 rank"]) == (1, 2)
    assert (rows[1]["dense rank"], rows[1]["bm25 rank"]) == (None, 1)
    assert rows[0]["document"] == "guide.md"
    assert rows[0]["heading"] == "Install › Linux"
    assert rows[0]["snippet"] == "apt-get install foo on Linux"


def test_plain_stage_rows_have_no_stage_columns():
    assert list(stage_rows(_trace(), "dense")[0]) == ["✓", "rank", "snippet", "document", "score", "heading", "chunk"]


def test_unknown_stage_is_named():
    with pytest.raises(KeyError, match="mmr.*dense, bm25, fusion, final"):
        stage_rows(_trace(), "mmr")


def test_timing_rows():
    rows = timing_rows(_trace())
    assert rows[1] == {"stage": "bm25", "hits": 2, "ms": 0.5, "notes": "a note"}
    assert [row["stage"] for row in rows] == ["dense", "bm25", "fusion", "final"]


def test_hit_choices_list_the_final_list_then_the_rest_by_best_rank():
    choices = hit_choices(_trace())
    assert [cid for cid, _ in choices] == [1, 3, 2]
    assert choices[0][1] == "#1 · guide.md › Install › Linux (chunk 1)"
    assert choices[2][1] == "not final (dense #2) · faq.md (chunk 2)"


def test_chunk_label_without_a_view():
    assert chunk_label(None, 42) == "chunk 42"


def test_snippet_flattens_whitespace_and_cuts_with_an_ellipsis():
    assert snippet("a\n\n  b\tc") == "a b c"
    assert snippet("abcdefghij", limit=5) == "abcd…"
    assert snippet("abcde", limit=5) == "abcde"


def test_context_rows_describe_each_source():
    context = assemble_context([VIEWS[3], VIEWS[1]], budget_chars=10_000)
    rows = context_rows(context, VIEWS, relevant={1: 1})
    assert rows == [
        {
            "source": "S1",
            "✓": "",
            "document": "usage.md",
            "heading": "Usage",
            "page": None,
            "characters": len("foo --help"),
            "cut": "",
            "chunk": 3,
        },
        {
            "source": "S2",
            "✓": "✓",
            "document": "guide.md",
            "heading": "Install › Linux",
            "page": None,
            "characters": len(VIEWS[1].text),
            "cut": "",
            "chunk": 1,
        },
    ]
