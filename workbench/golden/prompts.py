"""The prompts that write golden questions, and the strict reader of their replies.

Document text in a prompt is data, never instructions: each passage goes into a data block
(``workbench.llm.prompt_data``) that the system prompt's data rule names as data. The reply
must be exactly one JSON object ``{"question": ..., "quote": ...}`` (``quote`` a list of two
for multi_hop, "" for unanswerable), read strictly (``workbench.llm.replies``); anything else is
malformed (``parse_item_reply`` says why).

Each kind has its own system prompt and a version; the prompt hash (of system prompt and
version) goes into every item's provenance, so a set records exactly what wrote it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from workbench.llm.client import LlmRequest
from workbench.llm.prompt_data import data_block, with_data_rule
from workbench.llm.replies import parse_json_reply

SPECIFIC, ABSTRACT, MULTI_HOP, UNANSWERABLE = "specific", "abstract", "multi_hop", "unanswerable"
KINDS = (SPECIFIC, ABSTRACT, MULTI_HOP, UNANSWERABLE)
PROMPT_VERSION = "golden.synth@2"
LANGUAGE_NAMES = {"zh": "Chinese", "en": "English", "ja": "Japanese", "ko": "Korean"}

_RULES = (
    " Write the question in {language}, the passages' language. Reply with exactly one JSON object and nothing else: "
)
SYSTEMS = {
    SPECIFIC: "You write a specific question for a search test set. Ask about one concrete fact the passage states, "
    "in your own words (do not copy its phrasing), so that a person could search for it."
    + _RULES
    + '{{"question": "...", "quote": "the one sentence of the passage that answers it, copied '
    'verbatim"}}',
    ABSTRACT: "You write an abstract question for a search test set. Ask about the main idea or purpose of the "
    "passage, in general terms and your own words, as someone who has not read it would."
    + _RULES
    + '{{"question": "...", "quote": "the one sentence of the passage that best answers it, '
    'copied verbatim"}}',
    MULTI_HOP: "You write a multi-hop question for a search test set: one question that needs both passages to "
    "answer, each supplying a part, in your own words."
    + _RULES
    + '{{"question": "...", "quote": ["the sentence of passage 1 it needs, verbatim", '
    '"the sentence of passage 2 it needs, verbatim"]}}',
    UNANSWERABLE: "You write an unanswerable question for a search test set: a question on the same subject as the "
    "passage, that someone might plausibly ask, but that the passage does not answer at all."
    + _RULES
    + '{{"question": "...", "quote": ""}}',
}


def prompt_hash(kind: str) -> str:
    """A short hash of the kind's system prompt and the prompt version: the item's provenance."""
    return hashlib.sha256(f"{PROMPT_VERSION}\n{with_data_rule(SYSTEMS[kind])}".encode()).hexdigest()[:12]


def synth_request(kind: str, passages: list[str], language: str, label: str, max_tokens: int) -> LlmRequest:
    """The request for one item: the kind's system prompt and the passages as data blocks."""
    system = with_data_rule(
        SYSTEMS[kind].format(language=LANGUAGE_NAMES.get(language, language or "the passages' language"))
    )
    blocks = "\n\n".join(
        data_block(text, f"passage-{i}" if len(passages) > 1 else "passage") for i, text in enumerate(passages, 1)
    )
    user = f"{blocks}\n\nReply with the JSON object only."
    return LlmRequest.of(
        f"golden.synth.{kind}", f"{PROMPT_VERSION}.{kind}", system, user, max_tokens=max_tokens, label=label
    )


@dataclass(frozen=True)
class ItemReply:
    question: str
    quotes: tuple[str, ...]  # one (specific, abstract), two (multi_hop), none (unanswerable)


def parse_item_reply(reply: str, kind: str) -> ItemReply:
    """Read a reply strictly; ``ValueError`` says why it is malformed. Empty strings pass here
    (they are rejected as "empty", a reason of their own)."""
    data = parse_json_reply(reply, ("question", "quote"))
    question, quote = data["question"], data["quote"]
    if not isinstance(question, str):
        raise ValueError('"question" is not a string')
    if kind == MULTI_HOP:
        if not (isinstance(quote, list) and len(quote) == 2 and all(isinstance(q, str) for q in quote)):
            raise ValueError('"quote" must be a list of two strings for a multi-hop question')
        return ItemReply(question.strip(), tuple(q.strip() for q in quote))
    if not isinstance(quote, str):
        raise ValueError('"quote" is not a string')
    if kind == UNANSWERABLE:
        if quote.strip():
            raise ValueError('an unanswerable question must come with an empty "quote"')
        return ItemReply(question.strip(), ())
    return ItemReply(question.strip(), (quote.strip(),))


def estimate_tokens(text: str) -> int:
    """A rough token count for estimates: about 4 characters per Latin-script token, one per CJK
    character (what common BPE tokenizers give)."""
    cjk = sum(1 for c in text if "\u3400" <= c <= "\u9fff")
    return cjk + (len(text) - cjk) // 4 + 1
