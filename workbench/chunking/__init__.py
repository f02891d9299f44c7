"""Chunking strategies: cut a document's canonical Markdown into ``Chunk`` spans.

Every strategy returns chunks whose offsets point back into the Markdown
(``markdown[c.start:c.end] == c.text``) with the heading path enclosing each chunk's start.
``chunk_markdown`` picks the strategy named by ``ChunkingConfig.strategy`` from ``CHUNKERS`` (a
``workbench.plugins.Registry``: its names are that key's choices). A new strategy is one module
here and one ``CHUNKERS.register`` below.
"""

from __future__ import annotations

from functools import partial

from workbench.chunking import code, fixed, markdown_headings, recursive, semantic, sentence_window
from workbench.chunking.chunk import Chunk
from workbench.chunking.strategy import CHUNKERS, Chunker, SentenceEmbedder, Split
from workbench.chunking.tokens import HuggingFaceTokenSpans, TokenSpans, require_token_spans
from workbench.config import ChunkingConfig


def _semantic(config: ChunkingConfig, tokens: TokenSpans | None, embed_sentences: SentenceEmbedder | None) -> Split:
    if embed_sentences is None:
        raise ValueError(
            "chunking.strategy='semantic' needs a sentence embedder: pass embed_sentences=<function from "
            "a list of texts to an (n, d) array of L2-normalised rows>, e.g. the embedding model's encode"
        )
    return partial(
        semantic.split,
        config=semantic.SemanticConfig.from_chunking(config),
        embed_sentences=embed_sentences,
        tokens=tokens,
    )


CHUNKERS.register(
    "fixed",
    Chunker(
        "Windows of a fixed number of characters or tokens with overlap, blind to structure.",
        lambda config, tokens, _: partial(
            fixed.split, config=fixed.FixedSizeConfig.from_chunking(config), tokens=tokens
        ),
    ),
)
CHUNKERS.register(
    "recursive",
    Chunker(
        "Cuts at headings, code fences, paragraphs, lines, sentences, then words; packs pieces into evenly "
        "sized chunks up to size, headings kept with their text, with overlap.",
        lambda config, tokens, _: partial(
            recursive.split, config=recursive.RecursiveConfig.from_chunking(config), tokens=tokens
        ),
    ),
)
CHUNKERS.register(
    "markdown",
    Chunker(
        "One chunk per heading section; sections longer than size are split recursively.",
        lambda config, tokens, _: partial(
            markdown_headings.split,
            config=markdown_headings.MarkdownHeadingsConfig.from_chunking(config),
            tokens=tokens,
        ),
    ),
)
CHUNKERS.register(
    "sentence_window",
    Chunker(
        "One chunk per sentence, widened by `window` sentences of context on each side.",
        lambda config, tokens, _: partial(
            sentence_window.split, config=sentence_window.SentenceWindowConfig.from_chunking(config), tokens=tokens
        ),
    ),
)
CHUNKERS.register(
    "semantic",
    Chunker(
        "Groups consecutive sentences; starts a new chunk where embedding similarity drops below the "
        "threshold quantile.",
        _semantic,
    ),
)
CHUNKERS.register(
    "code",
    Chunker(
        "Source code cut into functions, classes and methods (Python by its syntax tree, other languages by "
        "top-level blocks), named by qualified name; prose as recursive.",
        lambda config, tokens, _: partial(code.split, config=code.CodeConfig.from_chunking(config), tokens=tokens),
    ),
)

__all__ = ["CHUNKERS", "Chunk", "Chunker", "HuggingFaceTokenSpans", "TokenSpans", "chunk_markdown"]


def chunk_markdown(
    markdown: str,
    config: ChunkingConfig,
    *,
    tokens: TokenSpans | None = None,
    embed_sentences: SentenceEmbedder | None = None,
) -> list[Chunk]:
    """Chunks of ``markdown`` made by ``config.strategy``; ``[]`` for blank Markdown.

    ``tokens`` is required when ``config.unit == "tokens"``; ``embed_sentences`` (a list of texts
    to an ``(n, d)`` array of L2-normalised rows) is required by the semantic strategy.
    """
    split = _configured_strategy(config, tokens, embed_sentences)  # fails early, even for blank input
    if not markdown.strip():
        return []
    return split(markdown)


def _configured_strategy(
    config: ChunkingConfig, tokens: TokenSpans | None, embed_sentences: SentenceEmbedder | None
) -> Split:
    chunker = CHUNKERS.get(config.strategy)
    if config.unit == "tokens":
        require_token_spans(tokens)
    return chunker.configure(config, tokens, embed_sentences)
