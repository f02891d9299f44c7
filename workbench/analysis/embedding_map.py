"""The data behind the embedding map: every chunk vector of a snapshot placed in 2-D.

Points carry their document and text so the map can colour by document and show the text on
hover; a query vector, when given, is placed on the same map.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from store.index_set import Snapshot
from workbench.analysis.projection import project
from workbench.names import shown_name


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

    def point_of(self, chunk_id: int) -> MapPoint | None:
        return next((p for p in self.points if p.chunk_id == chunk_id), None)


def document_label(title: str | None, source: str) -> str:
    title = " ".join((title or "").split())
    return title if title and title != source else source


def build_map(snapshot: Snapshot, method: str = "pca", query_vector: np.ndarray | None = None) -> EmbeddingMap:
    """Project the snapshot's chunk vectors (and the query) with ``method`` (pca or tsne)."""
    if snapshot.dense is None or len(snapshot.dense) == 0:
        return EmbeddingMap(method, (), None, None)
    chunk_ids = np.sort(snapshot.dense.ids())  # a stable order keeps t-SNE reproducible
    vectors = snapshot.dense.vectors_for(chunk_ids)
    projection = project(vectors, method, extra=query_vector)
    points = []
    for chunk_id, (x, y) in zip(chunk_ids.tolist(), projection.points):
        chunk = snapshot.chunks.get(chunk_id)
        if chunk is None:
            continue
        doc = snapshot.documents.get(chunk.doc_id)
        source = shown_name(doc.source) if doc else str(chunk.doc_id)
        points.append(MapPoint(chunk_id, chunk.doc_id, document_label(doc.title if doc else None, source), source,
                               chunk.text, float(x), float(y)))
    query_xy = None
    if query_vector is not None and len(projection.extra):
        query_xy = (float(projection.extra[0][0]), float(projection.extra[0][1]))
    ratio = None
    if projection.explained_variance_ratio is not None:
        ratio = tuple(float(v) for v in projection.explained_variance_ratio)
    return EmbeddingMap(method, tuple(points), query_xy, ratio)
