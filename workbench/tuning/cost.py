"""What a study's index-time keys will cost before it starts: layouts to build, texts to embed, time.

Each layout the space can ask for is built at most once, and only texts the embedding cache
lacks are embedded (once, however many layouts share them). For a layout whose chunk set is
incomplete, a fixed sample of the documents it lacks (``SAMPLE_DOCUMENTS``) is chunked here and
its chunk texts looked up in the cache; the share missing, scaled to every document the chunk set
lacks, is the estimate. Time is that count
over the embedding rate this home measured for the model (``workbench.ingestion.estimates``), or
the stated first guess when it has measured none.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from store.catalog import Catalog
from store.corpus import unchunked_sample
from store.embedding_cache import cached_hashes
from store.index_set import read_current
from workbench.backends.snapshot_files import layout_dir
from workbench.chunking.preparation import indexed_text, split_document
from workbench.embedding import content_hash
from workbench.embedding.registry import get_embedder
from workbench.ingestion.estimates import FALLBACK_CHUNK_RATE, chunk_rate, describe_duration
from workbench.layout import Layout

SAMPLE_DOCUMENTS = 200


@dataclass(frozen=True)
class LayoutCost:
    layout: Layout
    built: bool  # its indexes exist on disk (they are brought up to date on first use)
    documents: int  # documents its chunk set still lacks
    sampled: int  # of them, chunked here for the estimate
    texts: int  # estimated chunk texts to embed (not in the cache)


@dataclass(frozen=True)
class CostEstimate:
    layouts: tuple[LayoutCost, ...]
    rate: float  # texts per second
    measured: bool  # the rate is this home's own measurement

    @property
    def texts(self) -> int:
        return sum(cost.texts for cost in self.layouts)

    @property
    def seconds(self) -> float:
        return self.texts / self.rate if self.rate else 0.0

    def describe(self) -> list[str]:
        lines = []
        for cost in self.layouts:
            name = cost.layout.chunkset_key
            if cost.documents == 0:
                state = "built" if cost.built else "chunked; its indexes are built on first use"
                lines.append(f"layout {name}: {state}, nothing to embed")
            else:
                sample = f" (from {cost.sampled} sampled)" if cost.sampled < cost.documents else ""
                lines.append(
                    f"layout {name}: {cost.documents:,} documents to chunk, about {cost.texts:,} texts to embed{sample}"
                )
        rate = (
            f"{self.rate:g} texts/s measured here"
            if self.measured
            else f"a first guess of {self.rate:g} texts/s (this home has measured none)"
        )
        if self.texts:
            lines.append(
                f"embedding about {self.texts:,} new texts once: roughly {describe_duration(self.seconds)} at {rate}"
            )
        else:
            lines.append("no text to embed: every layout's texts are in the cache")
        return lines

    def to_dict(self) -> dict[str, object]:
        return {
            "layouts": [
                {
                    "layout": cost.layout.chunkset_key,
                    "built": cost.built,
                    "documents": cost.documents,
                    "sampled": cost.sampled,
                    "texts": cost.texts,
                }
                for cost in self.layouts
            ],
            "texts": self.texts,
            "seconds": self.seconds,
            "rate": self.rate,
            "measured": self.measured,
        }


def layout_cost(
    catalog: Catalog,
    home: Path,
    collection: str,
    layout: Layout,
    counted: set[str] | None = None,
    sample: int = SAMPLE_DOCUMENTS,
) -> LayoutCost:
    """The layout's cost; texts already in ``counted`` (another layout's, same model) are not counted
    again, and this layout's are added to it."""
    built = read_current(layout_dir(home, collection, layout)) is not None
    lacking = unchunked_sample(catalog, collection, layout.chunkset_key, sample)
    if lacking.total == 0:
        return LayoutCost(layout, built, 0, 0, 0)
    chunking = layout.chunking
    needs_model = chunking.unit == "tokens" or chunking.strategy == "semantic"
    embedder = get_embedder(layout.embedding_model) if needs_model else None
    hashes = {
        content_hash(indexed_text(chunk, chunking.context_headers))
        for _, markdown, _ in lacking.documents
        for chunk in split_document(markdown or "", chunking, embedder)
    }
    counted = set() if counted is None else counted
    fresh = sorted(hashes - counted)
    missing = set(fresh) - cached_hashes(catalog, layout.embedding_model, fresh)
    counted.update(hashes)
    sampled = len(lacking.documents)
    texts = round(len(missing) * lacking.total / sampled) if sampled else 0
    return LayoutCost(layout, built, lacking.total, sampled, texts)


def estimate(catalog: Catalog, home: Path, collection: str, layouts: list[Layout]) -> CostEstimate:
    """The cost of building every layout in ``layouts`` that is not complete yet (a text two layouts
    share is counted once: the embedding cache embeds it once)."""
    counted: dict[str, set[str]] = {}
    costs = tuple(
        layout_cost(catalog, home, collection, layout, counted.setdefault(layout.embedding_model, set()))
        for layout in layouts
    )
    models = {layout.embedding_model for layout in layouts}
    rates = [chunk_rate(home, model) for model in sorted(models)]
    measured = [rate for rate in rates if rate]
    rate = min(measured) if measured and len(measured) == len(rates) else FALLBACK_CHUNK_RATE
    return CostEstimate(costs, rate, bool(measured) and len(measured) == len(rates))
