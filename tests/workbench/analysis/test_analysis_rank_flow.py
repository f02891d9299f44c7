from __future__ import annotations

import pytest

from workbench.analysis.charts import rank_flow_figure
from workbench.analysis.rank_flow import rank_flow
from workbench.retrieval.ranking import RankedList
from workbench.retrieval.trace import StageTrace, Trace


def _stage(name: str, chunk_ids: list[int]) -> StageTrace:
    # doc id = chunk id * 10 so a mix-up of the two would show
    hits = [(c, c * 10, 1.0 / (i + 1)) for i, c in enumerate(chunk_ids)]
    return StageTrace(name, {}, RankedList.from_ordered(name, hits), 1.0)


def _trace(top_k: int = 2) -> Trace:
    stages = (
        _stage("dense", [1, 2, 3, 4]),
        _stage("bm25", [3, 5, 1]),
        _stage("fusion", [3, 1, 2, 5, 4]),
        _stage("final", [3, 1]),
    )
    return Trace("q", "c", {"retrieval": {"top_k": top_k}}, stages, {}, 4.0)


def test_paths_follow_chunks_in_the_top_depth_of_any_stage():
    flow = rank_flow(_trace())
    assert flow.stages == ("dense", "bm25", "fusion", "final")
    assert flow.depth == 2
    # top 2 of dense {1, 2}, bm25 {3, 5}, fusion {3, 1}, final {3, 1}; chunk 4 never reaches the top 2
    assert [p.chunk_id for p in flow.paths] == [3, 1, 2, 5]
    assert flow.path(3).ranks == (3, 1, 1, 1)
    assert flow.path(1).ranks == (1, 3, 2, 2)
    assert flow.path(2).ranks == (2, None, 3, None)
    assert flow.path(5).ranks == (None, 2, 4, None)
    assert flow.path(5).doc_id == 50
    assert flow.path(4) is None


def test_final_rank_and_best_rank():
    flow = rank_flow(_trace())
    assert flow.path(1).final_rank == 2
    assert flow.path(2).final_rank is None
    assert flow.path(5).best_rank == 2


def test_explicit_depth_widens_the_set():
    flow = rank_flow(_trace(), depth=4)
    assert {p.chunk_id for p in flow.paths} == {1, 2, 3, 4, 5}
    # ties on "not final" are broken by best rank, then chunk id: 2 (best 2), 5 (best 2), 4 (best 4)
    assert [p.chunk_id for p in flow.paths] == [3, 1, 2, 5, 4]


def test_depth_must_be_positive():
    with pytest.raises(ValueError, match="depth"):
        rank_flow(_trace(), depth=0)


def test_figure_clips_deep_ranks_and_marks_relevant_chunks():
    flow = rank_flow(_trace())
    figure = rank_flow_figure(flow, relevant={1}, labels={1: "<b>guide.md</b> › Install", 3: "faq.md"})
    assert len(figure.data) == 4
    by_name = {trace.name: trace for trace in figure.data}
    relevant_line = by_name["#2 ✓ &lt;b&gt;guide.md&lt;/b&gt; › Install"]
    assert relevant_line.line.width == 4
    assert relevant_line.marker.symbol == "star"
    # bm25 rank 3 is deeper than depth 2, so it sits on the "below" row 3 (labelled "> 2")
    assert list(relevant_line.y) == [1, 3, 2, 2]
    left_line = by_name["out · chunk 5"]
    assert list(left_line.y) == [None, 2, 3, None]  # fusion rank 4 clipped to the "below" row 3
    assert left_line.line.dash == "dot"
    assert "rank 4" in left_line.customdata[2]  # the hover keeps the true rank
    assert list(relevant_line.text)[-1].startswith("#2") and not any(left_line.text)  # finalists labelled
    assert figure.layout.showlegend is False
    assert list(figure.layout.yaxis.ticktext) == ["1", "2", "> 2"]
    assert figure.layout.yaxis.autorange == "reversed"


def test_figure_built_without_validation_is_a_valid_plotly_figure():
    """The figure is built from plain dicts without plotly's validators (for speed): rebuilding it
    with validation on must accept every property and keep the same content."""
    import plotly.graph_objects as go

    flow = rank_flow(_trace())
    built = rank_flow_figure(flow, relevant={1}, labels={1: "guide.md", 3: "faq.md"}, title="A").to_dict()
    validated = go.Figure(built).to_dict()  # raises on an unknown or malformed property
    assert validated["data"] == built["data"]
    assert {k: v for k, v in validated["layout"].items() if k != "template"} == {
        k: v for k, v in built["layout"].items() if k != "template"
    }
