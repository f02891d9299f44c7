"""Chunking strategies: cut a document's canonical Markdown into ``Chunk`` spans.

Every strategy returns chunks whose offsets point back into the Markdown
(``markdown[c.start:c.end] == c.text``) with the heading path enclosing each chunk's start.
``chunk_markdown`` picks the strategy named by ``ChunkingConfig.strategy``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from workbench.chunking import code, fixed, markdown_headings, recursive, semantic, sentence_window
from workbench.chunking.chunk import Chunk
from workbench.chunking.tokens import HuggingFaceTokenSpans, TokenSpans, require_token_spans
from workbench.config import ChunkingConfig

STRATEGIES: dict[str, str] = {
    "fixed": "Windows of a fixed number of characters or tokens with overlap, blind to structure.",
    "recursive": "Cuts at headings, code fences, paragraphs, lines, sentences, then words; packs pieces into evenly "
    "sized chunks up to size, headings kept with their text, with overlap.",
    "markdown": "One chunk per heading section; sections longer than size are split recursively.",
    "sentence_window": "One chunk per sentence, widened by `window` sentences of context on each side.",
    "semantic": "Groups consecutive sentences; starts a new chunk where embedding similarity drops below the "
    "threshold quantile.",
    "code": "Source code cut into functions, classes and methods (Python by its syntax tree, other languages by "
    "top-level blocks), named by qualified name; prose as recursive.",
}

__all__ = ["STRATEGIES", "Chunk", "HuggingFaceTokenSpans", "TokenSpans", "chunk_markdown"]


def chunk_markdown(
    markdown: str,
    config: ChunkingConfig,
    *,
    tokens: TokenSpans | None = None,
    embed_sentences: Callable[[list[str]], np.ndarray] | None = None,
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
    config: ChunkingConfig, tokens: TokenSpans | None, embed_sentences: Callable[[list[str]], np.ndarray] | None
) -> Callable[[str], list[Chunk]]:
    if config.strategy not in STRATEGIES:
        raise ValueError(f"unknown chunking.strategy {config.strategy!r}; choose one of {', '.join(STRATEGIES)}")
    if config.unit == "tokens":
        require_token_spans(tokens)
    if config.strategy == "fixed":
        return partial(fixed.split, config=fixed.FixedSizeConfig.from_chunking(config), tokens=tokens)
    if config.strategy == "recursive":
        return partial(recursive.split, config=recursive.RecursiveConfig.from_chunking(config), tokens=tokens)
    if config.strategy == "markdown":
        strategy_config = markdown_headings.MarkdownHeadingsConfig.from_chunking(config)
        return partial(markdown_headings.split, config=strategy_config, tokens=tokens)
    if config.strategy == "sentence_window":
        strategy_config = sentence_window.SentenceWindowConfig.from_chunking(config)
        return partial(sentence_window.split, config=strategy_config, tokens=tokens)
    if config.strategy == "code":
        return partial(code.split, config=code.CodeConfig.from_chunking(config), tokens=tokens)
    if embed_sentences is None:
        raise ValueError(
            "chunking.strategy='semantic' needs a sentence embedder: pass embed_sentences=<function from "
            "a list of texts to an (n, d) array of L2-normalised rows>, e.g. the embedding model's encode"
        )
    semantic_config = semantic.SemanticConfig.from_chunking(config)
    return partial(semantic.split, config=semantic_config, embed_sentences=embed_sentences, tokens=tokens)
