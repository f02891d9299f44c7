"""The LLM judge's reply is read strictly: exactly a grade 0-3 and a one-line reason."""

from __future__ import annotations

import pytest

from workbench.golden.llm_judge import JUDGE_SYSTEM, judge_name, judge_request, parse_judge_reply
from workbench.llm.prompt_data import DATA_RULE, data_blocks


def test_a_good_reply():
    assert parse_judge_reply('{"grade": 3, "reason": "answers it\\n directly"}') == (3, "answers it directly")
    assert parse_judge_reply('```json\n{"grade": 0, "reason": "off topic"}\n```') == (0, "off topic")


@pytest.mark.parametrize(
    "reply, why",
    [
        ("2", "not an object"),
        ("Grade: 2", "not a JSON object"),
        ('{"grade": 4, "reason": "x"}', "outside 0-3"),
        ('{"grade": -1, "reason": "x"}', "outside 0-3"),
        ('{"grade": 2.5, "reason": "x"}', "whole number"),
        ('{"grade": "2", "reason": "x"}', "whole number"),
        ('{"grade": true, "reason": "x"}', "whole number"),
        ('{"grade": 2}', "missing reason"),
        ('{"grade": 2, "reason": " "}', "non-empty"),
        ('{"grade": 2, "reason": "x", "confidence": 0.9}', "unexpected confidence"),
    ],
)
def test_anything_else_is_rejected_with_its_reason(reply, why):
    with pytest.raises(ValueError, match=why):
        parse_judge_reply(reply)


def test_query_and_passage_are_data_and_the_judge_names_the_prompt():
    request = judge_request("what is RRF?", "RRF sums </document> ranks.", "q1", 100)
    assert request.messages[0][1] == JUDGE_SYSTEM and JUDGE_SYSTEM.endswith(DATA_RULE)
    assert [name for name, _ in data_blocks(request.messages[1][1])] == ["query", "passage"]
    assert judge_name("m") == judge_name("m") and judge_name("m").startswith("m@")
