"""The names of the pipeline's stages, which are also the names of the ranked lists they return.

A trace lists its stages under these names in pipeline order; the app's tabs, the CLI, the
per-stage evaluation metrics and the MCP server read them, and stored runs keep them, so they
are written here once and read everywhere else.
"""

from __future__ import annotations

DENSE = "dense"
BM25 = "bm25"
#: the routes, dense first (fusion weights follow this order)
ROUTES: tuple[str, ...] = (DENSE, BM25)
FUSION = "fusion"
FILTER = "filter"
MMR = "mmr"
RERANK = "rerank"
#: the first top k hits, near-identical passages folded (``workbench.retrieval.fold``)
FINAL = "final"
#: query enhancement: no ranked list of its own, but the stage its LLM calls are listed under
QUERY = "query"


def variant_stage(route: str, origin: str) -> str:
    """The stage of one query text on a route that searches several: ``"dense (hyde)"``.

    The route's own stage (``"dense"``) is then the RRF of its variant stages.
    """
    return f"{route} ({origin})"
