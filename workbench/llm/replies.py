"""Reading the short replies the LLM stages ask for: a 0-10 score, or yes / no.

Each reader returns the value or raises ``ValueError`` saying why the reply is unusable; the
client (``LlmClient.complete(..., parse=...)``) uses that to refuse caching a reply a stage
could not use. Changing how a reply is read changes what the cached replies mean: bump the
prompt versions of the stages that use the reader.
"""

from __future__ import annotations

import re

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_YES = {"yes", "y", "true", "supported", "是", "是的", "对"}
_NO = {"no", "n", "false", "unsupported", "not supported", "否", "不是", "不"}


def parse_score_0_10(reply: str) -> float:
    """The first number of the reply, which must lie in [0, 10]."""
    match = _NUMBER.search(reply)
    if match is None:
        raise ValueError("no score in the reply")
    score = float(match.group())
    if not 0.0 <= score <= 10.0:
        raise ValueError(f"score {score:g} is outside 0-10")
    return score


def parse_yes_no(reply: str) -> bool:
    """yes / no in English or Chinese, alone or as the reply's first word."""
    word = reply.strip().strip(".。!！\"'").strip().casefold()
    first = re.split(r"[\s,.，。:：;；]+", word, maxsplit=1)[0] if word else ""
    for candidate in (word, first):
        if candidate in _YES:
            return True
        if candidate in _NO:
            return False
    raise ValueError("the reply is neither yes nor no")
