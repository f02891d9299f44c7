"""Which chunks the questions are written from: a reproducible plan spread over documents and languages.

The unit is a *cell*: one document's chunks in one language (a Chinese handbook with an English
appendix has two). Questions go to cells in a seeded sequence of two phases:

1. every document gets ``min_per_document`` questions first (``synth.min_per_document``), the
   documents taking turns with the languages interleaved, so the English specification among
   eleven Chinese notes is asked about as soon as the first Chinese note is; a language with no
   document of its own (English chunks inside Chinese documents) gets a turn each round too;
2. then every question goes to the cell furthest behind its share of the collection's text
   (D'Hondt: the largest ``words / (questions so far + 1)``), so a document holding half the
   text ends up with about half the questions, and each language with its share of the text.
   Text is counted in words (a CJK character is one, a word of another script is one): counted in
   characters, English's longer spelling of the same content would outweigh Chinese threefold.

Inside a cell the chunks take turns in a seeded order; the kinds rotate with the cell's round, so
a chunk serves each kind once before any (chunk, kind) repeats. The plan is a sequence: the plan
for ``n`` is a prefix of the plan for more, so a larger rerun (or growing a set) keeps what a
smaller one finished. The same chunks, seed and count always give the same plan.

A multi-hop question needs a second chunk related to the first: the one of the same language
sharing the most BM25 tokens with it (Jaccard), not overlapping it.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from workbench.golden.prompts import MULTI_HOP
from workbench.language.scripts import LanguageMix

#: questions every document gets before the rest is shared by text (``synth.min_per_document``)
MIN_PER_DOCUMENT = 3


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


def text_size(text: str) -> float:
    """How much a text says, in words: its CJK characters (a Chinese character is about a word) and
    its words in other scripts, the units ``workbench.language.scripts`` counts a language in."""
    return float(LanguageMix.of(text).units)


@dataclass(frozen=True)
class Cell:
    """One document's chunks in one language, in the seeded order the plan takes them."""

    doc: str
    language: str
    chunks: tuple[SourceChunk, ...]

    @property
    def characters(self) -> float:
        """The cell's text in words (``text_size``), so Chinese is not outweighed by English's
        longer spelling of the same content."""
        return sum(text_size(c.text) for c in self.chunks)


def cells_of(chunks: Sequence[SourceChunk], seed: int) -> list[Cell]:
    """The cells in a seeded order; each cell's chunks shuffled by the same seed."""
    rng = random.Random(seed)
    grouped: dict[tuple[str, str], list[SourceChunk]] = defaultdict(list)
    for chunk in sorted(chunks, key=lambda c: (c.doc, c.start, c.chunk_id)):
        grouped[(chunk.doc, chunk.language)].append(chunk)
    cells = []
    for (doc, language), members in sorted(grouped.items()):
        rng.shuffle(members)
        cells.append(Cell(doc, language, tuple(members)))
    rng.shuffle(cells)
    return cells


def _first_rounds(cells: Sequence[Cell]) -> list[int]:
    """One round of phase 1: each document's main cell (its most text), the languages interleaved,
    then one cell for each language that is no document's main language."""
    main: dict[str, int] = {}
    for index, cell in enumerate(cells):
        if cell.doc not in main or cell.characters > cells[main[cell.doc]].characters:
            main[cell.doc] = index
    by_language: dict[str, list[int]] = defaultdict(list)
    for index in sorted(main.values()):
        by_language[cells[index].language].append(index)
    languages = sorted(by_language, key=lambda lang: min(by_language[lang]))
    rounds = [
        by_language[language][turn]
        for turn in range(max((len(v) for v in by_language.values()), default=0))
        for language in languages
        if turn < len(by_language[language])
    ]
    for language in sorted({cell.language for cell in cells} - set(by_language)):
        rounds.append(
            max((i for i, c in enumerate(cells) if c.language == language), key=lambda i: cells[i].characters)
        )
    return rounds


def cell_sequence(cells: Sequence[Cell], min_per_document: int = MIN_PER_DOCUMENT, kinds: int = 1) -> Iterator[int]:
    """Cell indexes in the order questions go to them (see the module doc); endless. A cell that
    has served each of its chunks with each of the ``kinds`` is passed over (asking again would
    repeat a prompt) until every cell has; then the sequence starts over the same way."""
    if not cells:
        return
    taken = [0] * len(cells)
    capacity = [len(cell.chunks) * max(1, kinds) for cell in cells]

    def open_(index: int) -> bool:
        return taken[index] < capacity[index] or all(t >= c for t, c in zip(taken, capacity, strict=True))

    for _ in range(min_per_document):
        for index in _first_rounds(cells):
            if open_(index):
                taken[index] += 1
                yield index
    while True:
        full = all(t >= c for t, c in zip(taken, capacity, strict=True))
        if full:
            capacity = [c + len(cell.chunks) * max(1, kinds) for c, cell in zip(capacity, cells, strict=True)]
        # the cell furthest behind its share of the text; ties to the earlier cell of the seeded order
        index = max(
            (i for i in range(len(cells)) if taken[i] < capacity[i]),
            key=lambda i: (cells[i].characters / (taken[i] + 1), -i),
        )
        taken[index] += 1
        yield index


def plan_tasks(
    chunks: Sequence[SourceChunk],
    n: int,
    kinds: Sequence[str],
    seed: int,
    tokens: Callable[[str], list[str]],
    min_per_document: int = MIN_PER_DOCUMENT,
) -> list[SynthTask]:
    """``n`` tasks spread over documents and languages (see the module doc). The plan for ``n``
    is a prefix of the plan for more, so a larger rerun keeps what a smaller one finished."""
    cells = cells_of(chunks, seed)
    if not cells or n <= 0:
        return []
    token_sets: dict[int, frozenset[str]] = {}
    taken = [0] * len(cells)
    tasks = []
    for position, index in zip(range(n), cell_sequence(cells, min_per_document, len(kinds)), strict=False):
        cell, turn = cells[index], taken[index]
        taken[index] += 1
        size = len(cell.chunks)
        # the kind moves on with the cell's round, so a chunk serves each kind before any repeats
        kind = kinds[(index + turn % size + turn // size) % len(kinds)]
        first = cell.chunks[turn % size]
        sources: tuple[SourceChunk, ...] = (first,)
        if kind == MULTI_HOP:
            partner = related_chunk(first, chunks, tokens, token_sets)
            if partner is None:
                kind = kinds[0] if kinds[0] != MULTI_HOP else "specific"
            else:
                sources = (first, partner)
        tasks.append(SynthTask(position, kind, sources))
    return tasks


def plan_counts(tasks: Sequence[SynthTask]) -> tuple[dict[str, int], dict[str, int]]:
    """Planned questions per document and per language (of their first chunk)."""
    documents = Counter(task.chunks[0].doc for task in tasks)
    languages = Counter(task.language or "none" for task in tasks)
    return dict(sorted(documents.items())), dict(sorted(languages.items()))


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
