"""Chunks the encoder reads whole: each one cut to fit the embedding model's window.

An encoder reads at most its window of tokens of a text (``max_seq_length``: 256 for
all-MiniLM-L6-v2; the special tokens and a passage prefix take part of it) and drops the rest
without a word, so the tail of a longer chunk is never embedded. With ``chunking.fit_window``
(the default) a chunk whose indexed text (the heading path in front of its text) is longer is cut
again, with the recursive splitter's separators (paragraphs, lines, sentences, then words), into
evenly sized chunks that fit, counted in the model's own tokens. Chunks that already fit stay as
the strategy made them, so their texts stay in the embedding cache.

Only text the encoder reads is cut. Sizes in characters suit English (1000 characters are about
200 tokens), but the English model's WordPiece tokenizer makes a token of every Chinese character,
so 1000 Chinese characters are about 1000 tokens, and cutting them to 256 made four chunks of each.
all-MiniLM-L6-v2 does not read Chinese, and the language guard leaves its route out of the ranking
of Chinese queries, so the cut gained nothing and cost BM25 its context: on a Chinese handbook, span
nDCG@10 fell from 0.938 to 0.763 (issue 48). A document whose language (``text_language``) the
model does not cover keeps its chunks as the strategy made them (``preparation.fitted_to_window``);
a multilingual or Chinese model reads it, and then they are cut.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from workbench.chunking.chunk import Chunk
from workbench.chunking.headings import HeadingIndex
from workbench.chunking.recursive import RecursiveSplitter
from workbench.chunking.tokens import TokenMeasure

#: why a chunk stays over the window though ``chunking.fit_window`` is on (ingest, the Documents page, the lab)
LEFT_WHOLE = (
    "chunking.fit_window leaves these whole: they are in a language the model does not read (cutting "
    "them would only shrink what BM25 matches), or their heading paths (or enrichment) leave too little "
    "of the window to cut them"
)


@dataclass(frozen=True)
class Window:
    """What an embedding model reads of a text."""

    #: the most tokens it reads, special tokens and prefix included
    tokens: int
    #: each text's token count as the model reads it (special tokens and prefix included)
    count: Callable[[list[str]], list[int]]
    #: where each of a text's own tokens lies in it (character offsets, no special tokens)
    spans: Callable[[str], list[tuple[int, int]]]


@dataclass(frozen=True)
class Overflow:
    """Chunks longer than the window, and by how many tokens."""

    window: int
    excess: tuple[int, ...]  # tokens past the window, one entry per chunk over it
    chunks: int  # all chunks counted

    @classmethod
    def of(cls, token_counts: Sequence[int | None], window: int | None) -> Overflow | None:
        """None when the window or the counts are unknown."""
        if window is None or any(count is None for count in token_counts):
            return None
        return cls(window, tuple(c - window for c in token_counts if c is not None and c > window), len(token_counts))

    @property
    def over(self) -> int:
        return len(self.excess)

    def describe(self, model: str = "the embedding model") -> str:
        """ "3 of 40 chunks are longer than all-MiniLM-L6-v2's 256-token window, by 12 to 380 tokens
        (mean 140): the encoder reads only the first 256 tokens of each"."""
        if not self.excess:
            return f"every chunk fits {model}'s {self.window}-token window"
        low, high = min(self.excess), max(self.excess)
        by = f"by {low} token{'s' if low != 1 else ''}" if low == high else f"by {low} to {high} tokens"
        mean = f" (mean {sum(self.excess) / len(self.excess):.0f})" if len(self.excess) > 2 else ""
        return (
            f"{self.over} of {self.chunks} chunks {'is' if self.over == 1 else 'are'} longer than {model}'s "
            f"{self.window}-token window, {by}{mean}: the encoder reads only the first {self.window} tokens of "
            f"{'it' if self.over == 1 else 'each'}"
        )


def fit_to_window(
    markdown: str,
    chunks: list[Chunk],
    window: Window,
    indexed: Callable[[Chunk], str],
    overlap_share: float = 0.0,
) -> list[Chunk]:
    """``chunks`` with every one whose ``indexed`` text is longer than the window cut until it fits.

    The pieces of a chunk share ``overlap_share`` of their budget with their neighbours (the
    configured overlap's share of the size). A chunk that cannot be cut to fit (its heading path
    alone fills the window, or a single token does) stays over it, and is counted as over.
    """
    counts = window.count([indexed(chunk) for chunk in chunks])
    if all(count <= window.tokens for count in counts):
        return chunks
    cutter = _Cutter(markdown, window, indexed, overlap_share)
    fitted: list[Chunk] = []
    for chunk, count in zip(chunks, counts, strict=True):
        fitted.extend([chunk] if count <= window.tokens else cutter.fit(chunk, count))
    return fitted


class _Cutter:
    def __init__(self, markdown: str, window: Window, indexed: Callable[[Chunk], str], overlap_share: float):
        self.markdown, self.window, self.indexed, self.overlap_share = markdown, window, indexed, overlap_share
        self.headings = HeadingIndex(markdown)

    def fit(self, chunk: Chunk, count: int) -> list[Chunk]:
        """Pieces of ``chunk`` (which reads as ``count`` tokens) that each fit the window, where it can be cut."""
        own = [(chunk.start + start, chunk.start + end) for start, end in self.window.spans(chunk.text)]
        # what the model reads besides the chunk's own tokens: special tokens, a prefix, the heading path
        budget = self.window.tokens - (count - len(own))
        if budget < 1 or len(own) <= 1:
            return [chunk]
        overlap = min(int(budget * self.overlap_share), budget - 1)
        splitter = RecursiveSplitter(self.markdown, budget, overlap, TokenMeasure(own), self.headings)
        spans = splitter.split_span(chunk.start, chunk.end)
        if len(spans) <= 1:
            return [chunk]
        pieces = [
            replace(
                chunk,
                text=self.markdown[start:end],
                start=start,
                end=end,
                heading_path=self.headings.path_at(start),
                metadata=dict(chunk.metadata),
            )
            for start, end in spans
        ]
        counts = self.window.count([self.indexed(piece) for piece in pieces])
        fitted: list[Chunk] = []
        for piece, piece_count in zip(pieces, counts, strict=True):
            # a piece can still be over when it starts under a longer heading path than the chunk did
            fitted.extend([piece] if piece_count <= self.window.tokens else self.fit(piece, piece_count))
        return fitted


def overlap_share(size: int, overlap: int) -> float:
    """The configured overlap as a share of the configured size (0.1 for 100 of 1000)."""
    return overlap / size if size > 0 else 0.0
