from __future__ import annotations

from workbench.analysis.diff import diff_finals
from workbench.analysis.tables import diff_rows
from workbench.retrieval.ranking import RankedList
from workbench.retrieval.trace import ChunkView


def _final(chunk_ids: list[int]) -> RankedList:
    return RankedList.from_ordered("final", [(c, c + 100, 1.0) for c in chunk_ids])


A = _final([1, 2, 3, 4])
B = _final([3, 1, 5, 2])


def test_entered_left_and_moved_with_signed_deltas():
    diff = diff_finals(A, B)
    assert [c.chunk_id for c in diff.entered] == [5]
    assert diff.entered[0].rank_b == 3 and diff.entered[0].rank_a is None
    assert [c.chunk_id for c in diff.left] == [4]
    assert diff.left[0].rank_a == 4
    # chunk 3: 3rd in A, 1st in B -> gained 2; chunk 1: 1 -> 2 lost 1; chunk 2: 2 -> 4 lost 2
    assert {c.chunk_id: c.places_gained for c in diff.moved} == {3: 2, 1: -1, 2: -2}
    assert diff.overlap == 3
    assert not diff.identical
    assert diff.entered[0].doc_id == 105


def test_changes_come_in_b_order_then_what_left():
    assert [c.chunk_id for c in diff_finals(A, B).changes] == [3, 1, 5, 2, 4]


def test_same_lists_are_identical():
    diff = diff_finals(A, A)
    assert diff.identical
    assert diff.moved == () and diff.entered == () and diff.left == ()
    assert len(diff.unchanged) == 4
    assert all(c.places_gained == 0 for c in diff.unchanged)


def test_empty_lists():
    diff = diff_finals(RankedList("final"), B)
    assert [c.chunk_id for c in diff.entered] == [3, 1, 5, 2]
    assert diff.overlap == 0


def test_diff_rows_label_the_change():
    view = ChunkView(3, 103, "guide.md", None, "md", "Guide", ("Install", "Linux"), None, 0, 5, "hello")
    rows = diff_rows(diff_finals(A, B), {3: view}, relevant={3: 1})
    assert [row["change"] for row in rows] == ["▲ 2", "▼ 1", "entered", "▼ 2", "left"]
    assert rows[0]["✓"] == "✓" and rows[1]["✓"] == ""
    assert rows[0]["document"] == "guide.md"
    assert rows[0]["heading"] == "Install › Linux"
    assert rows[2]["document"] == "document 105"  # no view: named by its id
    assert (rows[4]["rank A"], rows[4]["rank B"]) == (4, None)
