"""Reading the short replies the LLM stages ask for, strictly: a grade, yes / no, a JSON object.

Each reader returns the value or raises ``ReplyRejected`` (a ``ValueError``) whose message is the
reason, with the start of the reply. Nothing is guessed: "Sure, I'll say 3" is not a grade, and
a JSON object with a key too many or too few is not the object asked for. Strictness is also the
second half of the injection defence (``workbench.llm.prompt_data``): a model that followed
instructions hidden in a document rarely still replies in the exact format, and its reply is
rejected with a reason instead of being read as a value.

The client (``LlmClient.complete(..., parse=...)``) uses the readers to refuse caching a reply a
stage could not use. Changing how a reply is read changes what the cached replies mean: bump
the prompt versions of the stages that use the reader.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

_GRADE = re.compile(r"[+-]?\d+")
_YES = {"yes", "y", "true", "supported", "是", "是的", "对"}
_NO = {"no", "n", "false", "unsupported", "not supported", "否", "不是", "不"}
_FENCE = re.compile(r"\A```(?:json)?[ \t]*\n(.*)\n```\Z", re.DOTALL | re.IGNORECASE)
PREVIEW_CHARS = 80


class ReplyRejected(ValueError):
    """The reply is not in the format the prompt asked for; the message says how and shows its start."""


def _reject(reason: str, reply: str) -> ReplyRejected:
    shown = reply.strip()
    preview = shown[:PREVIEW_CHARS] + ("…" if len(shown) > PREVIEW_CHARS else "")
    return ReplyRejected(f"{reason}; got {preview!r}")


def parse_grade(reply: str, low: int = 0, high: int = 10) -> int:
    """The reply as a whole number in [low, high]: the number alone (spaces and one final full stop allowed)."""
    text = reply.strip().removesuffix(".").removesuffix("。").strip()
    if not _GRADE.fullmatch(text):
        raise _reject(f"not a whole number from {low} to {high}", reply)
    grade = int(text)
    if not low <= grade <= high:
        raise _reject(f"grade {grade} is outside {low}-{high}", reply)
    return grade


def parse_score_0_10(reply: str) -> float:
    """A 0-10 grade as a float (the rerank and answer-relevance scale)."""
    return float(parse_grade(reply, 0, 10))


def parse_yes_no(reply: str) -> bool:
    """yes / no in English or Chinese, as the whole reply (case, spaces and final punctuation aside)."""
    word = " ".join(reply.strip().strip(".。!！\"'").split()).casefold()
    if word in _YES:
        return True
    if word in _NO:
        return False
    raise _reject("neither yes nor no", reply)


def parse_json_reply(reply: str, keys: Iterable[str], optional: Iterable[str] = ()) -> dict[str, Any]:
    """The reply as one JSON object with exactly ``keys`` (and any of ``optional``), nothing around it.

    A single Markdown code fence around the object is allowed (many models add one); any other
    text before or after it is not.
    """
    required, allowed = set(keys), set(keys) | set(optional)
    text = reply.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise _reject(f"not a JSON object ({error.msg} at character {error.pos})", reply) from None
    if not isinstance(data, dict):
        raise _reject(f"the JSON is a {type(data).__name__}, not an object", reply)
    missing, extra = sorted(required - data.keys()), sorted(data.keys() - allowed)
    if missing or extra:
        problems = ([f"missing {', '.join(missing)}"] if missing else []) + (
            [f"unexpected {', '.join(extra)}"] if extra else []
        )
        raise _reject(f"the JSON object's keys are wrong ({'; '.join(problems)})", reply)
    return data
