"""The level a golden set was judged at, read from its content or recorded in ``meta.judged``."""

from __future__ import annotations

import pytest

from workbench.evaluation.golden import GoldenQuery, GoldenSet, RelevantItem
from workbench.evaluation.judged import choose_level, judged_level, query_level

DOC = RelevantItem("a.md")
SPAN = RelevantItem("a.md", start=0, end=10)
QUOTE = RelevantItem("b.md", quote="the answer")


def golden(*relevant: tuple[RelevantItem, ...], meta: dict | None = None) -> GoldenSet:
    queries = tuple(GoldenQuery(f"q{i}", f"question {i}", items, meta=meta) for i, items in enumerate(relevant))
    return GoldenSet("g", queries)


def test_each_query_is_judged_by_passage_only_when_all_its_graded_items_are_spans():
    assert query_level(GoldenQuery("q", "x", (SPAN, QUOTE))) == "span"
    assert query_level(GoldenQuery("q", "x", (DOC,))) == "doc"
    # a BEIR import: the qrels' document and the evidence sentence inside it; the document was judged whole
    assert query_level(GoldenQuery("q", "x", (DOC, SPAN))) == "doc"
    # a grade-0 document item (judged not relevant) does not make a passage-judged query a document one
    assert query_level(GoldenQuery("q", "x", (SPAN, RelevantItem("c.md", grade=0)))) == "span"
    assert query_level(GoldenQuery("q", "x", ())) is None  # no answer: not scorable
    assert query_level(GoldenQuery("q", "x", (DOC,), meta={"judged": "span"})) == "span"  # recorded wins


def test_the_set_follows_most_of_its_scorable_queries_and_a_tie_stays_at_doc():
    assert judged_level(golden((SPAN,), (QUOTE,), (DOC,), ())) == ("span", 2, 1)
    assert judged_level(golden((SPAN,), (DOC,))) == ("doc", 1, 1)
    assert judged_level(golden((DOC, SPAN), (DOC, QUOTE))) == ("doc", 0, 2)


def test_choose_level_says_why_and_keeps_a_level_given():
    synthesised = golden((SPAN,), (QUOTE,), (SPAN,))
    choice = choose_level(synthesised)
    assert (choice.level, choice.given) == ("span", False)
    assert choice.reason == (
        "span level: golden set 'g' was judged by passage (3 of its 3 scorable queries judged by passage, 0 by "
        "whole document)"
    )
    asked = choose_level(synthesised, "doc")
    assert (asked.level, asked.given, asked.judged) == ("doc", True, "span")
    assert "judged at span level" in asked.reason
    beir = choose_level(golden((DOC, SPAN), (DOC,)))
    assert beir.level == "doc" and "--level span scores the 1 with passage judgements" in beir.reason
    mixed = choose_level(golden((DOC,), (DOC,), (SPAN,)))
    assert mixed.level == "doc" and "--level span scores the 1 with passage judgements" in mixed.reason
    with pytest.raises(ValueError, match="unknown evaluation level 'chunk'; use doc or span"):
        choose_level(synthesised, "chunk")


def test_chinese_questions_judged_by_passage_follow_span():
    chinese = golden((RelevantItem("设计.md", quote="缓存失效"),), (RelevantItem("设计.md", start=3, end=9),))
    assert choose_level(chinese).level == "span"
