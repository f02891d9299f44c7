"""2-D projections of embedding vectors for the embedding map: PCA by default, t-SNE on request.

Pure functions over arrays. PCA is a linear map, so a query vector can be placed on an existing
map (``Pca.transform``); t-SNE has no such map, so the query has to be part of the fit
(``project(..., extra=...)`` handles both the same way for callers).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

METHODS = ("pca", "tsne")


@dataclass(frozen=True)
class Pca:
    mean: np.ndarray  # (d,)
    components: np.ndarray  # (k, d), unit rows, strongest direction first
    explained_variance_ratio: np.ndarray  # (k,)

    def transform(self, vectors: np.ndarray) -> np.ndarray:
        return (np.atleast_2d(np.asarray(vectors, dtype=np.float64)) - self.mean) @ self.components.T


def fit_pca(vectors: np.ndarray, dimensions: int = 2) -> Pca:
    """Principal axes of ``vectors`` (rows are points) by SVD of the centred data.

    Each axis's sign is fixed so that its largest-magnitude loading is positive: SVD may return
    either sign, and a map that flips between reruns would be confusing. With fewer points or
    features than ``dimensions`` the missing axes are zero (the points then lie on a line).
    """
    data = np.asarray(vectors, dtype=np.float64)
    if data.ndim != 2 or len(data) == 0:
        raise ValueError(f"fit_pca needs a non-empty 2-D array of vectors, got shape {data.shape}")
    mean = data.mean(axis=0)
    centred = data - mean
    _, singular_values, rows = np.linalg.svd(centred, full_matrices=False)
    components = np.zeros((dimensions, data.shape[1]))
    available = min(dimensions, len(rows))
    components[:available] = rows[:available]
    for axis in components[:available]:
        if axis[np.argmax(np.abs(axis))] < 0:
            axis *= -1
    variance = singular_values**2
    total = variance.sum()
    ratio = np.zeros(dimensions)
    if total > 0:
        ratio[:available] = variance[:available] / total
    return Pca(mean, components, ratio)


def tsne_perplexity(points: int) -> float:
    """scikit-learn requires perplexity < number of points; 30 is its default for large sets."""
    return float(max(1.0, min(30.0, (points - 1) / 3)))


#: below this many points exact t-SNE is faster than Barnes-Hut (whose tree costs dominate)
EXACT_TSNE_BELOW = 400


def fit_tsne(vectors: np.ndarray, seed: int = 0) -> np.ndarray:
    """2-D t-SNE coordinates (cosine distances, PCA initialisation, fixed seed: reproducible)."""
    from sklearn.manifold import TSNE

    data = np.asarray(vectors, dtype=np.float64)
    if len(data) < 4:
        raise ValueError(f"t-SNE needs at least 4 vectors, got {len(data)}; use PCA for tiny collections")
    method = "exact" if len(data) < EXACT_TSNE_BELOW else "barnes_hut"
    # one thread: the app serves other sessions meanwhile, and threads fight over 2 cores
    model = TSNE(
        n_components=2,
        perplexity=tsne_perplexity(len(data)),
        metric="cosine",
        init="pca",
        random_state=seed,
        method=method,
        n_jobs=1,
    )
    return model.fit_transform(data)


@dataclass(frozen=True)
class Projection:
    method: str
    points: np.ndarray  # (n, 2) for the input vectors
    extra: np.ndarray  # (m, 2) for the extra vectors (the query), placed on the same map
    explained_variance_ratio: np.ndarray | None = None  # PCA only


def project(vectors: np.ndarray, method: str = "pca", extra: np.ndarray | None = None, seed: int = 0) -> Projection:
    """Project ``vectors`` to 2-D; ``extra`` rows (e.g. a query) land on the same map without
    shaping it for PCA, and as part of the fit for t-SNE (which cannot place new points)."""
    vectors = np.asarray(vectors, dtype=np.float64)
    extra = np.zeros((0, vectors.shape[1])) if extra is None else np.atleast_2d(np.asarray(extra, dtype=np.float64))
    if method == "pca":
        pca = fit_pca(vectors)
        return Projection(
            "pca",
            pca.transform(vectors),
            pca.transform(extra) if len(extra) else np.zeros((0, 2)),
            pca.explained_variance_ratio,
        )
    if method == "tsne":
        coordinates = fit_tsne(np.vstack([vectors, extra]), seed=seed)
        return Projection("tsne", coordinates[: len(vectors)], coordinates[len(vectors) :])
    raise ValueError(f"unknown projection method {method!r}; choose one of {', '.join(METHODS)}")
