"""Reading the LLM's short replies: a 0-10 score and yes / no (English and Chinese)."""

from __future__ import annotations

import pytest

from workbench.llm.replies import parse_score_0_10, parse_yes_no


@pytest.mark.parametrize(("reply", "score"), [("7", 7.0), ("Score: 8/10", 8.0), (" 10 ", 10.0), ("0", 0.0),
                                              ("6.5", 6.5)])
def test_the_first_number_is_the_score(reply, score):
    assert parse_score_0_10(reply) == score


@pytest.mark.parametrize("reply", ["very relevant", "11", "-1", ""])
def test_replies_without_a_score_in_range_are_unusable(reply):
    with pytest.raises(ValueError):
        parse_score_0_10(reply)


@pytest.mark.parametrize(("reply", "verdict"), [("yes", True), ("No.", False), ("Yes, it is.", True), ("是", True),
                                                ("否", False)])
def test_yes_no_replies(reply, verdict):
    assert parse_yes_no(reply) is verdict
