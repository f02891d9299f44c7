"""Text embedders and the content-hash embedding cache."""

from workbench.embedding.base import Embedder, content_hash
from workbench.embedding.registry import get_embedder, register_embedder

__all__ = ["Embedder", "content_hash", "get_embedder", "register_embedder"]
