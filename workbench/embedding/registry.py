"""Model names to embedders: one shared instance per embedder key.

A key routes to a factory registered in ``EMBEDDERS`` (a ``workbench.plugins.Registry``: tests
register deterministic fakes, and an embedder from a plugin registers the same way), else to an
``openai:`` endpoint model, else to a sentence-transformers model on the runtime the key names.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from workbench.embedding.base import Embedder
from workbench.embedding.endpoint import EndpointEmbedder, is_endpoint_model
from workbench.embedding.runtimes import runtime_embedder
from workbench.models.availability import require_available
from workbench.models.catalogue import EMBEDDING
from workbench.plugins import Registry

#: an embedder's constructor: the embedder key to the embedder
EmbedderFactory = Callable[[str], Embedder]
#: embedders by key that are not a model on disk or an endpoint (fakes, plugins)
EMBEDDERS: Registry[EmbedderFactory] = Registry("embedder")
_INSTANCES: dict[str, Embedder] = {}
_GUARD = threading.Lock()


def register_embedder(name: str, factory: Callable[[str], Embedder]) -> None:
    """Route a model name to a factory (tests register deterministic fakes this way)."""
    with _GUARD:
        EMBEDDERS.register(name, factory)
        _INSTANCES.pop(name, None)


def unregister_embedder(name: str) -> None:
    with _GUARD:
        EMBEDDERS.unregister(name)
        _INSTANCES.pop(name, None)


def is_registered(name: str) -> bool:
    """Whether ``name`` routes to a registered factory rather than a model on disk."""
    return name in EMBEDDERS


def get_embedder(name: str) -> Embedder:
    """One shared instance per embedder key: a registered factory, an ``openai:`` endpoint model, or
    a sentence-transformers model on the runtime the key names (``model@openvino-bf16``; a bare
    model name is torch fp32)."""
    with _GUARD:
        if name not in _INSTANCES:
            if name in EMBEDDERS:
                factory = EMBEDDERS.get(name)
            else:
                factory = EndpointEmbedder if is_endpoint_model(name) else runtime_embedder
            _INSTANCES[name] = factory(name)
        return _INSTANCES[name]


def check_embedding_model(name: str) -> None:
    """Raise before anything is written when ``name`` cannot embed here: a model whose weights are
    not on this machine (``ModelNotAvailableError``), or an ``openai:`` model without an endpoint
    configured (``EmbeddingEndpointError``, checked without a request)."""
    if is_registered(name):
        return
    if is_endpoint_model(name):
        get_embedder(name)
    else:
        require_available(name, EMBEDDING)
