"""Weighted kappa, Kendall tau and the pairs two golden sets share, against values worked out by hand."""

import pytest

from workbench.evaluation.golden import GoldenQuery, GoldenSet, RelevantItem
from workbench.golden.agreement_measures import confusion_table, describe_kappa, kendall_tau_b, weighted_kappa
from workbench.golden.set_agreement import drop_judgements, grade_agreement, shared_pairs

A_GRADES, B_GRADES = [0, 1, 2, 3, 3], [0, 2, 2, 3, 1]


def test_confusion_table_counts_grade_pairs():
    table = confusion_table(list(zip(A_GRADES, B_GRADES, strict=False)), 4)
    assert table == [[1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 1, 0], [0, 1, 0, 1]]
    with pytest.raises(ValueError, match="outside 0..3"):
        confusion_table([(0, 4)], 4)


def test_weighted_kappa_by_hand():
    table = confusion_table(list(zip(A_GRADES, B_GRADES, strict=False)), 4)
    # rows (A) 1,1,1,2; columns (B) 1,1,2,1; n = 5.
    # linear: observed disagreement 1/3 + 2/3 = 1; expected sum r_i c_j |i-j| / 3 / 5 = 31/15
    assert weighted_kappa(table) == pytest.approx(16 / 31)
    # quadratic: observed (1 + 4)/9 = 5/9; expected 61/45
    assert weighted_kappa(table, "quadratic") == pytest.approx(36 / 61)
    assert weighted_kappa(confusion_table([(0, 0), (3, 3), (1, 1)], 4)) == pytest.approx(1.0)
    # complete disagreement at the extremes: observed 2, expected (1*1*1 + 1*1*1)/2 = 1 -> kappa -1
    assert weighted_kappa(confusion_table([(0, 3), (3, 0)], 4)) == pytest.approx(-1.0)
    assert weighted_kappa(confusion_table([(2, 2), (2, 2)], 4)) is None  # one grade throughout
    assert weighted_kappa(confusion_table([], 4)) is None
    with pytest.raises(ValueError, match="weights 'cubic'"):
        weighted_kappa(table, "cubic")


def test_kendall_tau_b_b_by_hand():
    assert kendall_tau_b([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(4 / 6)  # 5 concordant, 1 discordant
    assert kendall_tau_b([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    # ties: pairs (1,2) tie in x, (2,3) tie in y; C = 4, D = 0; tau-b = 4 / sqrt(5 * 5)
    assert kendall_tau_b([1, 2, 2, 3], [1, 2, 3, 3]) == pytest.approx(0.8)
    assert kendall_tau_b([1, 1, 1], [1, 2, 3]) is None
    assert kendall_tau_b([1], [2]) is None
    with pytest.raises(ValueError, match="2 and 3 values"):
        kendall_tau_b([1, 2], [1, 2, 3])


def test_describe_kappa():
    # Landis and Koch: <= 0 poor, to 0.2 slight, 0.4 fair, 0.6 moderate, 0.8 substantial, above almost perfect
    assert [describe_kappa(k) for k in (None, -0.1, 0.1, 0.3, 0.5, 0.7, 0.9)] == [
        "undefined",
        "poor",
        "slight",
        "fair",
        "moderate",
        "substantial",
        "almost perfect",
    ]


def _set(name: str, grades: dict[tuple, int]) -> GoldenSet:
    by_query: dict[str, list[RelevantItem]] = {}
    for (query, doc, start), grade in grades.items():
        end = None if start is None else start + 10
        by_query.setdefault(query, []).append(RelevantItem(doc, grade, start, end))
    return GoldenSet(
        name, tuple(GoldenQuery(f"q{i}", q, tuple(items)) for i, (q, items) in enumerate(by_query.items()))
    )


def test_pairs_are_matched_by_query_text_and_unit_and_kappa_says_when_it_is_undefined():
    a = _set("a", {("what  is x", "a.md", 0): 3, ("what is x", "b.md", None): 1, ("茶", "茶.md", 5): 0})
    b = _set("b", {("what is x", "a.md", 0): 2, ("茶", "茶.md", 5): 0, ("茶", "茶.md", 6): 1})
    assert shared_pairs(a, b) == [(3, 2), (0, 0)]
    report = grade_agreement(a, b)
    assert (report.pairs, report.only_a, report.only_b) == (2, 1, 1)
    same = grade_agreement(a, a)
    assert same.kappa_linear == pytest.approx(1.0)
    ones = _set("ones", {("q", "a.md", None): 1, ("q", "b.md", None): 1})
    undefined = grade_agreement(ones, ones)
    assert undefined.kappa_linear is None and "gave all 2 shared pairs grade 1" in undefined.notes[0]
    assert "no (query, document or span) in common" in grade_agreement(a, ones).notes[0]


def test_drop_judgements_is_seeded_and_drops_emptied_queries():
    golden = _set("g", {(f"query {i}", f"d{j}.md", None): 1 for i in range(10) for j in range(3)})
    first, again = drop_judgements(golden, 0.3, 7, "s"), drop_judgements(golden, 0.3, 7, "s")
    assert first == again and first != drop_judgements(golden, 0.3, 8, "s")
    assert sum(len(q.relevant) for q in first.queries) == 21
    assert all(q.relevant for q in first.queries)
    with pytest.raises(ValueError, match="must be at least 0 and below 1"):
        drop_judgements(golden, 1.0, 1, "s")
