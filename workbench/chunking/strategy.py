"""A chunking strategy as a plugin: what it does, and how a chunking section configures it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from workbench.chunking.chunk import Chunk
from workbench.chunking.tokens import TokenSpans
from workbench.config import ChunkingConfig
from workbench.plugins import Registry

#: a list of texts to an ``(n, d)`` array of L2-normalised rows (the semantic strategy's sentences)
SentenceEmbedder = Callable[[list[str]], np.ndarray]
#: Markdown to its chunks, with the strategy's parameters already bound
Split = Callable[[str], list[Chunk]]


@dataclass(frozen=True)
class Chunker:
    #: one line for people: what the strategy cuts at
    doc: str
    #: the split function for a chunking section (and the token spans and sentence embedder it may need)
    configure: Callable[[ChunkingConfig, TokenSpans | None, SentenceEmbedder | None], Split]


#: every chunking strategy by name: ``chunking.strategy``'s choices
CHUNKERS: Registry[Chunker] = Registry("chunking strategy")
