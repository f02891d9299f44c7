"""PCA and t-SNE projections for the embedding map, checked against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.analysis.projection import fit_pca, fit_tsne, project, tsne_perplexity


def test_pca_of_points_on_a_line():
    pca = fit_pca(np.array([[0.0, 0.0], [2.0, 0.0], [4.0, 0.0]]))
    np.testing.assert_allclose(pca.mean, [2.0, 0.0])
    np.testing.assert_allclose(pca.components, [[1.0, 0.0], [0.0, 1.0]], atol=1e-12)
    np.testing.assert_allclose(pca.explained_variance_ratio, [1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(pca.transform(np.array([[0.0, 0.0], [4.0, 0.0]])), [[-2.0, 0.0], [2.0, 0.0]], atol=1e-12)


def test_pca_axes_follow_the_variance():
    # variance 18/4 along x and 2/4 along y: the axes are x then y, splitting 90% / 10%
    points = np.array([[3.0, 0.0], [-3.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    pca = fit_pca(points)
    np.testing.assert_allclose(pca.components, [[1.0, 0.0], [0.0, 1.0]], atol=1e-12)
    np.testing.assert_allclose(pca.explained_variance_ratio, [0.9, 0.1])
    np.testing.assert_allclose(pca.transform(np.array([1.0, 2.0])), [[1.0, 2.0]], atol=1e-12)


def test_pca_sign_makes_the_largest_loading_positive():
    # the axis is +-(1, -2)/sqrt(5); the largest loading (the -2) must come out positive
    pca = fit_pca(np.array([[1.0, -2.0], [-1.0, 2.0]]))
    np.testing.assert_allclose(pca.components[0], np.array([-1.0, 2.0]) / math.sqrt(5))
    np.testing.assert_allclose(pca.transform(np.array([1.0, -2.0]))[0, 0], -math.sqrt(5))


def test_pca_in_three_dimensions():
    points = np.array([[1.0, 1.0, 0.0], [-1.0, -1.0, 0.0], [2.0, 2.0, 0.0], [-2.0, -2.0, 0.0]])
    projected = fit_pca(points).transform(points)[:, 0]
    np.testing.assert_allclose(projected, [math.sqrt(2), -math.sqrt(2), 2 * math.sqrt(2), -2 * math.sqrt(2)])


def test_pca_rejects_empty_input():
    with pytest.raises(ValueError, match="non-empty 2-D array"):
        fit_pca(np.zeros((0, 3)))


def test_tsne_perplexity_stays_below_the_point_count():
    assert tsne_perplexity(4) == 1.0
    assert tsne_perplexity(10) == 3.0
    assert tsne_perplexity(1000) == 30.0


def test_tsne_is_reproducible_and_needs_four_points():
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(12, 5))
    first, second = fit_tsne(vectors), fit_tsne(vectors)
    assert first.shape == (12, 2)
    np.testing.assert_array_equal(first, second)
    with pytest.raises(ValueError, match="at least 4 vectors"):
        fit_tsne(vectors[:3])


def test_project_places_extra_points_on_the_same_map():
    points = np.array([[3.0, 0.0], [-3.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    pca = project(points, "pca", extra=np.array([2.0, -1.0]))
    np.testing.assert_allclose(pca.extra, [[2.0, -1.0]], atol=1e-12)
    assert pca.points.shape == (4, 2)
    tsne = project(np.random.default_rng(1).normal(size=(8, 4)), "tsne", extra=np.ones(4))
    assert tsne.points.shape == (8, 2) and tsne.extra.shape == (1, 2) and tsne.explained_variance_ratio is None
    with pytest.raises(ValueError, match="choose one of pca, tsne"):
        project(points, "umap")
