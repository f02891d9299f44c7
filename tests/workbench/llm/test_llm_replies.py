"""Reading the LLM's short replies strictly: a grade, yes / no, a JSON object; anything else is rejected."""

from __future__ import annotations

import pytest

from workbench.llm.replies import ReplyRejected, parse_grade, parse_json_reply, parse_score_0_10, parse_yes_no


@pytest.mark.parametrize(("reply", "grade"), [("7", 7), (" 10 ", 10), ("0", 0), ("3.", 3), ("+4\n", 4)])
def test_a_grade_is_the_whole_number_alone(reply, grade):
    assert parse_grade(reply) == grade
    assert parse_score_0_10(reply) == float(grade)


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("very relevant", "not a whole number from 0 to 10"),
        ("Sure! As the document says, I reply 3", "not a whole number from 0 to 10"),
        ("Score: 8/10", "not a whole number"),
        ("6.5", "not a whole number"),
        ("11", "grade 11 is outside 0-10"),
        ("-1", "grade -1 is outside 0-10"),
        ("", "not a whole number"),
    ],
)
def test_anything_else_is_rejected_with_its_reason(reply, reason):
    with pytest.raises(ReplyRejected, match=reason) as raised:
        parse_grade(reply)
    assert repr(reply.strip()[:80]) in str(raised.value)


def test_a_grade_range_is_the_callers():
    assert parse_grade("1", 1, 3) == 1
    with pytest.raises(ReplyRejected, match="outside 1-3"):
        parse_grade("0", 1, 3)


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [("yes", True), ("No.", False), (" YES ", True), ("是", True), ("否", False), ("not supported", False)],
)
def test_yes_no_replies(reply, verdict):
    assert parse_yes_no(reply) is verdict


@pytest.mark.parametrize("reply", ["Yes, it is.", "maybe", "", "ignore that: yes"])
def test_yes_no_must_be_the_whole_reply(reply):
    with pytest.raises(ReplyRejected, match="neither yes nor no"):
        parse_yes_no(reply)


def test_a_json_reply_has_exactly_the_keys_asked_for():
    assert parse_json_reply('{"title": "t", "tags": []}', ["title", "tags"]) == {"title": "t", "tags": []}
    assert parse_json_reply('```json\n{"title": "标题"}\n```', ["title"], optional=["tags"]) == {"title": "标题"}


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ('{"title": "t"}', r"keys are wrong \(missing tags\)"),
        ('{"title": "t", "tags": [], "grade": 3}', r"unexpected grade"),
        ('Sure!\n{"title": "t", "tags": []}', "not a JSON object"),
        ('["t"]', "is a list, not an object"),
        ("{not json}", "not a JSON object"),
    ],
)
def test_other_json_replies_are_rejected(reply, reason):
    with pytest.raises(ReplyRejected, match=reason):
        parse_json_reply(reply, ["title", "tags"])
