"""The context a generator would see: the final hits as numbered sources, and the prompt.

Sources are numbered [S1], [S2], ... in rank order, each headed by its document, heading path
and page so an answer's citations can be checked by hand. Given the chunks' matched places
(``workbench.generation.citing``, as MCP's citations use), the heading path and page are those
where the query's match lies: a chunk that starts in one section and goes on into the next is
cited where its answer is, not where it starts. The character budget keeps whole
chunks while they fit; the first one that does not is cut (if enough room is left to be useful)
and the rest are listed as omitted, so the reader sees exactly what the model would.

In the prompt each source is a data block named by its label (``<document name="S1">``, see
``workbench.llm.prompt_data``), header included: a file name is document text too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from workbench.generation.citing import MatchedPlace
from workbench.llm.prompt_data import data_block, with_data_rule
from workbench.retrieval.trace import ChunkView
from workbench.text import shown_name

DEFAULT_BUDGET_CHARS = 6000
#: a cut source shorter than this says too little to be worth its header
MIN_PARTIAL_CHARS = 200
SEPARATOR = "\n\n"
HEADING_SEPARATOR = " › "
TRUNCATION_MARK = " […]"

SYSTEM_INSTRUCTIONS = with_data_rule(
    "You answer questions using only the numbered sources provided. "
    "Cite the source of every statement with its label in square brackets, e.g. [S1] or [S2][S3]. "
    "If the sources do not contain the answer, say that they do not, instead of guessing. "
    "Do not use outside knowledge."
)


@dataclass(frozen=True)
class ContextSource:
    label: str  # "S1"
    chunk_id: int
    doc_id: int
    header: str  # "[S1] guide.md › Install › Linux (p. 3)"
    text: str  # the chunk text as placed in the context (possibly cut)
    truncated: bool
    heading_path: tuple[str, ...] = ()  # the section its header names: where the match lies
    page: int | None = None  # the page its header names

    @property
    def block(self) -> str:
        return f"{self.header}\n{self.text}"


@dataclass(frozen=True)
class AssembledContext:
    sources: tuple[ContextSource, ...]
    omitted: tuple[int, ...]  # chunk ids that did not fit the budget
    budget: int

    @property
    def text(self) -> str:
        return SEPARATOR.join(source.block for source in self.sources)

    def source(self, label: str) -> ContextSource | None:
        for source in self.sources:
            if source.label == label:
                return source
        return None


@dataclass(frozen=True)
class Prompt:
    system: str
    user: str

    def messages(self) -> list[dict[str, str]]:
        """OpenAI-style chat messages."""
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]

    def as_text(self) -> str:
        return f"[system]\n{self.system}\n\n[user]\n{self.user}"


def source_header(label: str, chunk: ChunkView, place: MatchedPlace | None = None) -> str:
    """``[S1] source › heading › path (p. N)``: the section and page of ``place`` when given, else
    of the chunk's start."""
    name = shown_name(chunk.source or chunk.external_id or chunk.title or f"document {chunk.doc_id}")
    heading_path, page_number = (place.heading_path, place.page) if place else (chunk.heading_path, chunk.page)
    parts = [name, *heading_path]
    page = f" (p. {page_number})" if page_number is not None else ""
    return f"[{label}] {HEADING_SEPARATOR.join(parts)}{page}"


def assemble_context(
    chunks: Sequence[ChunkView],
    budget_chars: int = DEFAULT_BUDGET_CHARS,
    places: Mapping[int, MatchedPlace] | None = None,
) -> AssembledContext:
    """Number ``chunks`` (best first) into sources whose joined text stays within ``budget_chars``.

    ``places``: chunk id -> where the query matched in it (``citing.matched_places``); a chunk
    without one is cited where it starts."""
    if budget_chars < 1:
        raise ValueError(f"the context budget must be at least 1 character, got {budget_chars}")
    places = places or {}
    sources: list[ContextSource] = []
    used = 0
    for index, chunk in enumerate(chunks):
        label = f"S{len(sources) + 1}"
        place = places.get(chunk.chunk_id)
        header = source_header(label, chunk, place)
        cited_at = (place.heading_path, place.page) if place else (chunk.heading_path, chunk.page)
        separator = len(SEPARATOR) if sources else 0
        whole = separator + len(header) + 1 + len(chunk.text)
        if used + whole <= budget_chars:
            sources.append(ContextSource(label, chunk.chunk_id, chunk.doc_id, header, chunk.text, False, *cited_at))
            used += whole
            continue
        room = budget_chars - used - separator - len(header) - 1 - len(TRUNCATION_MARK)
        # The best source is always kept, cut if need be: an empty context answers nothing.
        if room >= MIN_PARTIAL_CHARS or (not sources and room > 0):
            text = chunk.text[:room].rstrip() + TRUNCATION_MARK
            sources.append(ContextSource(label, chunk.chunk_id, chunk.doc_id, header, text, True, *cited_at))
            first_omitted = index + 1
        else:
            first_omitted = index
        omitted = tuple(c.chunk_id for c in chunks[first_omitted:])
        return AssembledContext(tuple(sources), omitted, budget_chars)
    return AssembledContext(tuple(sources), (), budget_chars)


def build_prompt(question: str, context: AssembledContext) -> Prompt:
    if not question.strip():
        raise ValueError("the question is empty; type a question to build a prompt for")
    if not context.sources:
        sources_text = "(no sources were retrieved)"
    else:
        sources_text = SEPARATOR.join(data_block(source.block, source.label) for source in context.sources)
    user = (
        f"Sources:\n\n{sources_text}\n\n"
        f"Question: {question.strip()}\n\n"
        "Answer using only the sources above, citing them as [S1], [S2], ..."
    )
    return Prompt(SYSTEM_INSTRUCTIONS, user)


_CITATION = re.compile(r"\[(S\d+)\]")


def cited_labels(answer: str) -> list[str]:
    """The distinct [S#] labels an answer cites, in order of first citation."""
    return list(dict.fromkeys(_CITATION.findall(answer)))


def check_citations(answer: str, context: AssembledContext) -> tuple[list[ContextSource], list[str]]:
    """The sources an answer cites, and the labels it cites that the context never had."""
    cited, unknown = [], []
    for label in cited_labels(answer):
        source = context.source(label)
        if source is None:
            unknown.append(label)
        else:
            cited.append(source)
    return cited, unknown
