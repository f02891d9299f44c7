"""bench/pdf_metrics.py: NID, TEDS and MHS on inputs small enough to score by hand."""

from __future__ import annotations

import random

import pytest

from bench.pdf_metrics import (
    DocumentScores,
    Node,
    indel_distance,
    lcs_length,
    levenshtein,
    mhs,
    nid,
    normalised,
    score,
    tables_of,
    teds,
    tree_edit_distance,
)


def _lcs_table(a: str, b: str) -> int:
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b, 1):
            current.append(previous[j - 1] + 1 if x == y else max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


def test_bit_parallel_lcs_agrees_with_the_quadratic_table() -> None:
    generator = random.Random(7)
    for _ in range(200):
        a = "".join(generator.choice("abc中") for _ in range(generator.randint(0, 30)))
        b = "".join(generator.choice("abc中") for _ in range(generator.randint(0, 30)))
        assert lcs_length(a, b) == _lcs_table(a, b)


def test_nid_by_hand() -> None:
    # abc / abd: LCS 2, indel 3 + 3 - 4 = 2, NID 1 - 2/6
    assert indel_distance("abc", "abd") == 2
    assert nid("abc", "abd") == pytest.approx(1 - 2 / 6)
    # the markup is not text: a heading, a bold word and a list item read as the same words
    assert nid("# Title\n\n- **bold** item", "Title bold item") == 1.0
    assert nid("", "") == 1.0
    assert nid("xyz", "") == 0.0
    # two words swapped: "ab cd" / "cd ab" keep one word in order (LCS 2), indel 5 + 5 - 4 = 6
    assert nid("ab cd", "cd ab") == pytest.approx(1 - 6 / 10)


def test_normalised_rule() -> None:
    markdown = (
        "## Head ##\n\n| a | b |\n| --- | --- |\n| c \\| d | e |\n\n"
        "1. one\n   - [link](http://x) `code`\n\n```\nx = 1\n```"
    )
    assert normalised(markdown) == "Head a b c | d e one link code x = 1"
    assert normalised("<table><tr><td>a</td><td>b&amp;c</td></tr></table>") == "a b&c"
    assert normalised("中文\n\n  文本") == "中文 文本"


def test_levenshtein_by_hand() -> None:
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == 3


def _table(*rows: list[str]) -> str:
    lines = ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join([lines[0], "|" + " --- |" * len(rows[0]), *lines[1:]])


def test_teds_by_hand() -> None:
    reference = _table(["a", "b"], ["c", "d"])  # table, 2 tr, 4 td: 7 nodes
    assert teds(reference, reference) == 1.0
    assert teds(_table(["a", "b"], ["c", "x"]), reference) == pytest.approx(1 - 1 / 7)  # one cell renamed
    assert teds(_table(["a", "b"], ["c", "dx"]), reference) == pytest.approx(1 - 0.5 / 7)  # half its text
    assert teds(_table(["a", "b"]), reference) == pytest.approx(1 - 3 / 7)  # a row and its 2 cells deleted
    # a spanned cell read as a cell and an empty one: a rename (spans differ) and a deletion, over 7
    spanned = "<table><tr><th colspan='2'>a</th></tr><tr><td>b</td><td>c</td></tr></table>"
    assert teds(_table(["a", ""], ["b", "c"]), spanned) == pytest.approx(1 - 2 / 7)
    # a table invented beside the right one halves the score; no table at all is 0
    assert teds(reference + "\n\nprose\n\n" + _table(["p", "q"]), reference) == pytest.approx(0.5)
    assert teds("just prose", reference) == 0.0
    assert teds(reference, "no table here") is None


def test_tables_are_found_in_order_whatever_their_syntax() -> None:
    markdown = _table(["x"]) + "\n\n<table><tr><td>y</td></tr></table>\n\n" + _table(["z"])
    assert [table.children[0].children[0].text for table in tables_of(markdown)] == ["x", "y", "z"]


def test_tree_edit_distance_by_hand() -> None:
    def rename(a: Node, b: Node) -> float:
        return 0.0 if a.tag == b.tag else 1.0

    # f(d(a, c(b)), e) -> f(c(d(a, b)), e): Zhang and Shasha's own example, distance 2
    one = Node("f", children=[Node("d", children=[Node("a"), Node("c", children=[Node("b")])]), Node("e")])
    two = Node("f", children=[Node("c", children=[Node("d", children=[Node("a"), Node("b")])]), Node("e")])
    assert tree_edit_distance(one, two, rename) == 2


def test_mhs_by_hand() -> None:
    reference = "# A\n\ntext\n\n## B\n\n## C"
    assert mhs(reference, reference) == 1.0
    assert mhs("# A\n\n## B", reference) == pytest.approx(1 - 1 / 3)  # C missing
    assert mhs("## A\n\n### B\n\n### C", reference) == 1.0  # one level deeper throughout
    # all at one level: delete A above B and C, insert it beside them: 2 of 3
    assert mhs("# A\n\n# B\n\n# C", reference) == pytest.approx(1 - 2 / 3)
    assert mhs("# A\n\n## Bx\n\n## C", "# A\n\n## By\n\n## C") == pytest.approx(1 - 0.5 / 3)
    assert mhs("no headings", reference) == 0.0
    assert mhs(reference, "no headings") is None


def test_overall_is_the_mean_of_what_a_document_has() -> None:
    assert DocumentScores(0.9, None, 0.6).overall == pytest.approx(0.75)
    assert DocumentScores(0.9, 0.3, 0.6).overall == pytest.approx(0.6)
    scores = score("# T\n\nabc", "# T\n\nabd")
    assert (scores.nid, scores.teds, scores.mhs) == (pytest.approx(1 - 2 / 10), None, 1.0)
