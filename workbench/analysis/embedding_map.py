"""The data behind the embedding map: a snapshot's chunk vectors placed in 2-D.

Points carry their document and text so the map can colour by document and show the text on
hover; a query vector, when given, is placed on the same map. A collection larger than
``max_points`` is mapped from a fixed random sample of its chunks (the same on every rerun) plus
the chunks asked for by name (a query's hits): a browser cannot draw a million points, and the
projection of a sample shows the same structure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from store.index_set import Snapshot
from workbench.analysis.projection import project
from workbench.text import shown_name

#: chunks drawn on the map by default; the page lets the user change it
DEFAULT_MAX_POINTS = 5000
_SAMPLE_SEED = 0


@dataclass(frozen=True)
class MapPoint:
    chunk_id: int
    doc_id: int
    document: str  # the document's title, or its file name
    source: str
    text: str
    x: float
    y: float


@dataclass(frozen=True)
class EmbeddingMap:
    method: str
    points: tuple[MapPoint, ...]
    query_xy: tuple[float, float] | None
    explained_variance_ratio: tuple[float, ...] | None  # PCA: share of variance per axis
    total_chunks: int = 0  # the chunks with vectors in the snapshot: more than ``points`` when sampled

    @property
    def sampled(self) -> bool:
        return self.total_chunks > len(self.points)

    def point_of(self, chunk_id: int) -> MapPoint | None:
        return next((p for p in self.points if p.chunk_id == chunk_id), None)


def document_label(title: str | None, source: str) -> str:
    title = " ".join((title or "").split())
    return title if title and title != source else source


def sample_ids(chunk_ids: np.ndarray, max_points: int, include: Iterable[int] = ()) -> np.ndarray:
    """Sorted ids: all of them when they fit, else a fixed random ``max_points`` of them plus
    those of ``include`` that are among ``chunk_ids``."""
    chunk_ids = np.sort(np.asarray(chunk_ids, dtype=np.int64))
    if max_points < 1:
        raise ValueError(f"the embedding map needs at least 1 point to draw, got max_points={max_points}")
    if len(chunk_ids) <= max_points:
        return chunk_ids
    picked = np.random.default_rng(_SAMPLE_SEED).choice(len(chunk_ids), size=max_points, replace=False)
    wanted = np.fromiter(include, dtype=np.int64)
    return np.union1d(chunk_ids[picked], wanted[np.isin(wanted, chunk_ids)])


def build_map(
    snapshot: Snapshot,
    method: str = "pca",
    query_vector: np.ndarray | None = None,
    max_points: int = DEFAULT_MAX_POINTS,
    include: Iterable[int] = (),
) -> EmbeddingMap:
    """Project the snapshot's chunk vectors (and the query) with ``method`` (pca or tsne); at most
    ``max_points`` of them (a fixed sample) plus the ``include`` ids (say, a query's hits)."""
    if snapshot.dense is None or len(snapshot.dense) == 0:
        return EmbeddingMap(method, (), None, None)
    all_ids = snapshot.dense.ids()
    chunk_ids = sample_ids(all_ids, max_points, include)  # sorted: a stable order keeps t-SNE reproducible
    vectors = snapshot.dense.vectors_for(chunk_ids)
    projection = project(vectors, method, extra=query_vector)
    points = []
    for chunk_id, (x, y) in zip(chunk_ids.tolist(), projection.points, strict=False):
        chunk = snapshot.chunks.get(chunk_id)
        if chunk is None:
            continue
        doc = snapshot.documents.get(chunk.doc_id)
        source = shown_name(doc.source) if doc else str(chunk.doc_id)
        points.append(
            MapPoint(
                chunk_id,
                chunk.doc_id,
                document_label(doc.title if doc else None, source),
                source,
                chunk.text,
                float(x),
                float(y),
            )
        )
    query_xy = None
    if query_vector is not None and len(projection.extra):
        query_xy = (float(projection.extra[0][0]), float(projection.extra[0][1]))
    ratio = None
    if projection.explained_variance_ratio is not None:
        ratio = tuple(float(v) for v in projection.explained_variance_ratio)
    return EmbeddingMap(method, tuple(points), query_xy, ratio, len(all_ids))
