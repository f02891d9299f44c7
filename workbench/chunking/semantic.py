"""Semantic chunking: consecutive sentences stay together until the topic shifts.

Each sentence is embedded; wherever the cosine similarity of two adjacent sentences falls below
the ``threshold`` quantile of all adjacent similarities in the document, a new group begins. The
quantile makes the rule relative to the document: threshold 0.25 breaks at roughly the quarter of
transitions that are least alike, whatever the embedding model's similarity scale. Threshold 0
never breaks; 1 breaks everywhere except at the most similar pair.

Groups longer than ``size`` are cut by the recursive splitter. Metadata records the group, the
similarity at the breakpoint a chunk starts at (None when it does not start at one) and the
similarity value the threshold quantile came to.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from workbench.chunking.chunk import Chunk
from workbench.chunking.headings import HeadingIndex
from workbench.chunking.recursive import RecursiveSplitter
from workbench.chunking.sentences import sentence_spans
from workbench.chunking.tokens import TokenSpans, measure_for, validate_length_settings
from workbench.config import ChunkingConfig

SentenceEmbedder = Callable[[list[str]], np.ndarray]


@dataclass(frozen=True)
class SemanticConfig:
    threshold: float = 0.25  # quantile of adjacent similarities below which a group ends
    size: int = 1000  # groups longer than this are split recursively
    overlap: int = 100  # overlap between the parts of a split group
    unit: str = "chars"

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"chunking.threshold is a quantile and must lie in [0, 1], got {self.threshold}")
        validate_length_settings(self.size, self.overlap, self.unit)

    @classmethod
    def from_chunking(cls, config: ChunkingConfig) -> SemanticConfig:
        return cls(threshold=config.threshold, size=config.size, overlap=config.overlap, unit=config.unit)


def adjacent_similarities(embeddings: np.ndarray) -> np.ndarray:
    """Cosine similarity of each row with the next: ``n`` rows give ``n - 1`` values.

    Rows are normalised again here so a slightly off embedder cannot skew the quantile; a zero row
    counts as dissimilar to everything.
    """
    vectors = np.asarray(embeddings, dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit_rows = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
    return np.einsum("ij,ij->i", unit_rows[:-1], unit_rows[1:])


def breakpoints(similarities: np.ndarray, threshold: float) -> tuple[list[int], float | None]:
    """Indices ``i`` with a break between sentence ``i`` and ``i + 1``, and the cut-off similarity."""
    if len(similarities) == 0:
        return [], None
    cutoff = float(np.quantile(similarities, threshold))
    return [int(i) for i in np.flatnonzero(similarities < cutoff)], cutoff


def split(
    markdown: str,
    config: SemanticConfig,
    *,
    embed_sentences: SentenceEmbedder,
    tokens: TokenSpans | None = None,
) -> list[Chunk]:
    measure = measure_for(markdown, config.unit, tokens)
    sentences = sentence_spans(markdown)
    if not sentences:
        return []
    embeddings = np.asarray(embed_sentences([markdown[start:end] for start, end in sentences]))
    if embeddings.ndim != 2 or embeddings.shape[0] != len(sentences):
        raise ValueError(
            f"embed_sentences must return one row per sentence: got shape {embeddings.shape} "
            f"for {len(sentences)} sentences"
        )
    similarities = adjacent_similarities(embeddings)
    breaks, cutoff = breakpoints(similarities, config.threshold)

    headings = HeadingIndex(markdown)
    splitter = RecursiveSplitter(markdown, config.size, config.overlap, measure, headings)
    group_firsts = [0, *(i + 1 for i in breaks)]
    group_lasts = [*breaks, len(sentences) - 1]
    chunks = []
    for group, (first, last) in enumerate(zip(group_firsts, group_lasts, strict=False)):
        group_start = sentences[first][0]
        similarity_at_break = float(similarities[first - 1]) if first > 0 else None
        for start, end in splitter.split_span(group_start, sentences[last][1]):
            chunks.append(
                Chunk(
                    text=markdown[start:end],
                    start=start,
                    end=end,
                    heading_path=headings.path_at(start),
                    metadata={
                        "semantic_group": group,
                        "breakpoint_similarity": similarity_at_break if start == group_start else None,
                        "threshold_similarity": cutoff,
                    },
                )
            )
    return chunks
