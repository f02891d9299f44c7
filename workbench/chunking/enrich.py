"""Chunk enrichment at index time: an LLM writes a title, a summary and tags for each chunk.

``chunking.enrich = none | title | summary | tags | all`` chooses what is stored with each chunk
(in its metadata, shown by the chunk browser and MCP ``get_chunk``); ``chunking.enrich_index``
also appends it to the indexed text, so BM25 and the vectors see it. Both are layout keys: a
configuration with enrichment has its own chunk set and indexes, and A/B or a sweep compares
with and without.

One request per chunk asks for all three fields (so ``title`` and ``all`` share the cache); the
setting decides which are kept. A chunk whose request fails is stored without enrichment and
with the reason (``metadata.enrichment_error``), so one bad reply never stops an ingest.

The chunk goes to the model as a data block (``workbench.llm.prompt_data``), and the reply must
be exactly the JSON object asked for (``parse_json_reply``): a chunk that talks the model into
anything else is stored unenriched, with the reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from workbench.llm.client import LlmCall, LlmClient, LlmRequest, summarize_calls
from workbench.llm.prompt_data import data_block, with_data_rule
from workbench.llm.replies import ReplyRejected, parse_json_reply

PROMPT_VERSION = "enrich.chunk@2"
ENRICH_MODES = ("none", "title", "summary", "tags", "all")
FIELDS_OF = {"title": ("title",), "summary": ("summary",), "tags": ("tags",), "all": ("title", "summary", "tags")}
MAX_CHUNK_CHARS = 4000
MAX_TAGS = 8
ENRICH_KEYS = ("title", "summary", "tags")
#: seconds one enrichment request may take (index time has no user waiting on a single chunk)
ENRICH_TIMEOUT_S = 60.0
ENRICH_SYSTEM = with_data_rule(
    "You describe a passage from a document for a search index. Reply with a JSON object with the keys "
    '"title" (at most ten words), "summary" (one or two sentences) and "tags" (three to six short keywords, '
    "as a list). Write them in the language of the passage. Reply with the JSON object only."
)


@dataclass(frozen=True)
class Enrichment:
    title: str = ""
    summary: str = ""
    tags: tuple[str, ...] = ()

    def keep(self, mode: str) -> Enrichment:
        """Only the fields ``mode`` asks for."""
        fields = FIELDS_OF.get(mode, ())
        return Enrichment(
            self.title if "title" in fields else "",
            self.summary if "summary" in fields else "",
            self.tags if "tags" in fields else (),
        )

    def index_text(self) -> str:
        """What ``chunking.enrich_index`` appends to the indexed text."""
        lines = []
        if self.title:
            lines.append(f"Title: {self.title}")
        if self.summary:
            lines.append(f"Summary: {self.summary}")
        if self.tags:
            lines.append(f"Tags: {', '.join(self.tags)}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"title": self.title, "summary": self.summary, "tags": list(self.tags)}

    @classmethod
    def from_dict(cls, data: dict) -> Enrichment:
        return cls(str(data.get("title", "")), str(data.get("summary", "")), tuple(data.get("tags", ())))


def enrich_request(text: str) -> LlmRequest:
    return LlmRequest.of(
        "enrich", PROMPT_VERSION, ENRICH_SYSTEM, data_block(text[:MAX_CHUNK_CHARS], "passage"), max_tokens=300
    )


def parse_enrichment(reply: str) -> Enrichment:
    """The reply as exactly ``{"title", "summary", "tags"}`` (a code fence around it is allowed)."""
    data = parse_json_reply(reply, ENRICH_KEYS)
    tags = data["tags"]
    if isinstance(tags, str):
        tags = [part for part in re.split(r"[,，、;；]", tags)]
    if not isinstance(tags, list):
        raise ReplyRejected(f"tags is a {type(tags).__name__}, not a list")
    enrichment = Enrichment(
        title=" ".join(str(data["title"]).split()),
        summary=" ".join(str(data["summary"]).split()),
        tags=tuple(dict.fromkeys(" ".join(str(tag).split()) for tag in tags if str(tag).strip()))[:MAX_TAGS],
    )
    if not (enrichment.title or enrichment.summary or enrichment.tags):
        raise ReplyRejected("the JSON has an empty title, summary and tags")
    return enrichment


@dataclass(frozen=True)
class EnrichmentOutcome:
    """Per text: the enrichment (None where it failed) and its call; plus the calls' totals."""

    enrichments: tuple[Enrichment | None, ...]
    calls: tuple[LlmCall, ...]

    @property
    def failures(self) -> int:
        return sum(1 for item in self.enrichments if item is None)

    def summary(self) -> dict:
        return summarize_calls(self.calls)


def enrich_texts(
    texts: Sequence[str], mode: str, llm: LlmClient, timeout_s: float = ENRICH_TIMEOUT_S
) -> EnrichmentOutcome:
    if mode not in ENRICH_MODES or mode == "none":
        raise ValueError(f"chunking.enrich must be one of {', '.join(ENRICH_MODES[1:])} to enrich; got {mode!r}")
    calls = llm.complete_many([enrich_request(text) for text in texts], timeout_s=timeout_s, parse=parse_enrichment)
    enrichments = tuple(parse_enrichment(call.text).keep(mode) if call.ok else None for call in calls)
    return EnrichmentOutcome(enrichments, tuple(calls))


def enrichment_metadata(enrichment: Enrichment | None, call: LlmCall) -> dict:
    """What a chunk's metadata keeps: the fields, or the reason there are none; and the call's cost."""
    cost = {
        "model": call.model,
        "prompt_version": call.prompt_version,
        "prompt_tokens": call.prompt_tokens,
        "completion_tokens": call.completion_tokens,
        "ms": call.generated_ms,
    }
    if enrichment is None:
        return {"enrichment_error": call.error, "enrichment_call": cost}
    return {"enrichment": enrichment.to_dict(), "enrichment_call": cost}


def stored_enrichment(metadata: dict | str | None) -> tuple[Enrichment | None, str]:
    """A stored chunk's enrichment and, when its request failed, the reason (from its metadata)."""
    if isinstance(metadata, str):
        metadata = json.loads(metadata) if metadata.strip() else {}
    metadata = metadata or {}
    found = metadata.get("enrichment")
    return (Enrichment.from_dict(found) if isinstance(found, dict) else None), str(metadata.get("enrichment_error", ""))


def enriched_indexed_text(indexed_text: str, enrichment: Enrichment | None) -> str:
    if enrichment is None:
        return indexed_text
    extra = enrichment.index_text()
    return f"{indexed_text}\n\n{extra}" if extra else indexed_text
