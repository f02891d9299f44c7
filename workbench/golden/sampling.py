"""Which chunks the questions are written from: a reproducible sample, stratified by language
and by document.

Every language gets a share of the questions proportional to its chunks; inside a language the
documents take turns (in a seeded order), each giving its chunks in a seeded order. So a
collection of one long English manual and five short Chinese notes still gets Chinese questions,
and no document supplies two questions before every document of its language has supplied one.
The same chunks, seed and count always give the same sample.

A multi-hop question needs a second chunk related to the first: the one of the same language
sharing the most BM25 tokens with it (Jaccard), not overlapping it.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from workbench.golden.prompts import MULTI_HOP


@dataclass(frozen=True)
class SourceChunk:
    chunk_id: int
    doc_id: int
    doc: str  # the document's name in golden sets (external id, else file name)
    start: int  # offsets into the document's Markdown
    end: int
    text: str
    language: str  # zh, en, ... ("" without letters)

    def about(self) -> dict[str, str | int]:
        """Where the chunk is, in terms that survive re-chunking (and its id now)."""
        return {"doc": self.doc, "start": self.start, "end": self.end, "chunk_id": self.chunk_id}


@dataclass(frozen=True)
class SynthTask:
    """One question to ask for: its position in the plan, its kind and its source chunks."""

    position: int
    kind: str
    chunks: tuple[SourceChunk, ...]

    @property
    def language(self) -> str:
        return self.chunks[0].language

    @property
    def key(self) -> str:
        """Identifies the task across runs: its kind and where its chunks are."""
        where = ";".join(f"{c.doc}:{c.start}-{c.end}" for c in self.chunks)
        return hashlib.sha256(f"{self.position}|{self.kind}|{where}".encode()).hexdigest()[:16]


def stratified_order(chunks: Sequence[SourceChunk], seed: int) -> list[SourceChunk]:
    """Every chunk once, in the order the sample takes them (see the module doc)."""
    rng = random.Random(seed)
    by_language: dict[str, dict[str, list[SourceChunk]]] = defaultdict(lambda: defaultdict(list))
    for chunk in sorted(chunks, key=lambda c: (c.doc, c.start, c.chunk_id)):
        by_language[chunk.language][chunk.doc].append(chunk)
    queues: dict[str, list[SourceChunk]] = {}
    for language in sorted(by_language):
        documents = [by_language[language][doc] for doc in sorted(by_language[language])]
        rng.shuffle(documents)
        for document in documents:
            rng.shuffle(document)
        queues[language] = [
            document[i] for i in range(max(map(len, documents))) for document in documents if i < len(document)
        ]
    total = sum(map(len, queues.values()))
    taken = {language: 0 for language in queues}
    order: list[SourceChunk] = []
    while len(order) < total:
        # the language furthest behind its share of the chunks goes next
        language = min(
            (lang for lang in queues if taken[lang] < len(queues[lang])),
            key=lambda lang: (taken[lang] / len(queues[lang]), lang),
        )
        order.append(queues[language][taken[language]])
        taken[language] += 1
    return order


def plan_tasks(
    chunks: Sequence[SourceChunk], n: int, kinds: Sequence[str], seed: int, tokens: Callable[[str], list[str]]
) -> list[SynthTask]:
    """``n`` tasks, kinds taking turns, each from the next chunk of the stratified order. The
    order wraps around when ``n`` exceeds the chunks, shifting the kinds by one each round, so a
    chunk serves each kind once before any (chunk, kind) repeats. The plan for ``n`` is a prefix
    of the plan for more, so a larger rerun keeps what a smaller one finished."""
    order = stratified_order(chunks, seed)
    if not order or n <= 0:
        return []
    token_sets: dict[int, frozenset[str]] = {}
    tasks = []
    for position in range(n):
        kind = kinds[(position + position // len(order)) % len(kinds)]
        first = order[position % len(order)]
        sources: tuple[SourceChunk, ...] = (first,)
        if kind == MULTI_HOP:
            partner = related_chunk(first, order, tokens, token_sets)
            if partner is None:
                kind, partner = kinds[0] if kinds[0] != MULTI_HOP else "specific", None
            else:
                sources = (first, partner)
        tasks.append(SynthTask(position, kind, sources))
    return tasks


def related_chunk(
    chunk: SourceChunk,
    candidates: Sequence[SourceChunk],
    tokens: Callable[[str], list[str]],
    cache: dict[int, frozenset[str]],
) -> SourceChunk | None:
    """The candidate of the same language sharing the most tokens with ``chunk`` (Jaccard; ties to
    the lower chunk id), never overlapping it; None when no candidate shares a token."""

    def token_set(c: SourceChunk) -> frozenset[str]:
        if c.chunk_id not in cache:
            cache[c.chunk_id] = frozenset(tokens(c.text))
        return cache[c.chunk_id]

    own = token_set(chunk)
    best, best_score = None, 0.0
    for other in sorted(candidates, key=lambda c: c.chunk_id):
        if other.language != chunk.language or other.chunk_id == chunk.chunk_id:
            continue
        if other.doc == chunk.doc and other.start < chunk.end and chunk.start < other.end:
            continue
        theirs = token_set(other)
        union = len(own | theirs)
        score = len(own & theirs) / union if union else 0.0
        if score > best_score:
            best, best_score = other, score
    return best
