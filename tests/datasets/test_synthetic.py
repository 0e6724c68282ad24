"""Synthetic generators (``kgroups.datasets._synthetic``): reproducible, the papers' moments."""

import numpy as np
import pytest

from kgroups import datasets as ds


GENERATORS = [
    lambda rs: ds.make_normal_1d(50, random_state=rs),
    lambda rs: ds.make_lognormal_1d(50, random_state=rs),
    lambda rs: ds.make_mean_shift_gaussians(40, 15, random_state=rs),
    lambda rs: ds.make_unequal_covariance_gaussians(40, 12, random_state=rs),
    lambda rs: ds.make_gaussians_20d(40, random_state=rs),
    lambda rs: ds.make_lognormals_20d(40, random_state=rs),
    lambda rs: ds.make_unbalanced_gaussians(30, N=50, random_state=rs),
    lambda rs: ds.make_grid_blobs(7, random_state=rs),
    lambda rs: ds.make_cigars(random_state=rs),
    lambda rs: ds.make_concentric_circles(random_state=rs),
    lambda rs: ds.make_spirals(random_state=rs),
]


@pytest.mark.parametrize("gen", GENERATORS)
def test_generators_reproducible(gen):
    X1, y1 = gen(7)
    X2, y2 = gen(np.random.default_rng(7))
    X3, _ = gen(8)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    assert X1.dtype == np.float64 and X1.ndim == 2 and y1.shape == (X1.shape[0],)
    assert not np.array_equal(X1, X3)


def _check_moments(X, y, means, variances, n_per_class):
    for j, (m, v) in enumerate(zip(means, variances)):
        Xj = X[y == j]
        se = np.sqrt(np.asarray(v) / n_per_class)
        assert np.all(np.abs(Xj.mean(axis=0) - m) < 5 * se), j
        assert np.all(np.abs(Xj.var(axis=0) / v - 1) < 5 * np.sqrt(2 / n_per_class)), j


def test_gaussian_settings_have_the_papers_moments():
    n = 4000
    X, y = ds.make_mean_shift_gaussians((n, n), 14, random_state=1)
    mu2 = np.r_[np.full(10, 0.7), np.zeros(4)]
    _check_moments(X, y, [np.zeros(14), mu2], [np.ones(14), np.ones(14)], n)
    X, y = ds.make_unequal_covariance_gaussians((n, n), 12, random_state=2)
    v2 = np.r_[1.367, 3.175, 3.247, 4.403, 1.249, 1.969, 4.035, 4.237, 2.813, 3.637, 1, 1]
    _check_moments(X, y, [np.zeros(12), np.r_[np.ones(10), 0, 0]], [np.ones(12), v2], n)
    X, y = ds.make_gaussians_20d((n, n), random_state=3)
    _check_moments(X, y, [np.zeros(20), np.r_[np.full(5, 0.5), np.zeros(15)]],
                   [np.full(20, 0.5), np.ones(20)], n)
    X, y = ds.make_unbalanced_gaussians(0, N=n, random_state=4)
    _check_moments(X, y, [np.zeros(4), [1.5, 1.5, 0, 0]], [np.ones(4), [0.5, 0.5, 1, 1]], n)
    X, y = ds.make_cigars((n, n), random_state=5)
    _check_moments(X, y, [[0, 0], [6.5, 0]], [[1, 20], [1, 20]], n)


def test_one_dimensional_settings():
    n = 20000
    X, y = ds.make_normal_1d((n, n), random_state=0)
    assert X.shape == (2 * n, 1)
    _check_moments(X, y, [[0.0], [1.5]], [[1.5 ** 2], [0.3 ** 2]], n)
    L, yl = ds.make_lognormal_1d((n, n), random_state=0)
    np.testing.assert_array_equal(yl, y)
    np.testing.assert_allclose(L, np.exp(X), rtol=1e-15)
    X, y = ds.make_normal_1d((n, n), means=(0, 5), sds=(1, 2), random_state=1)
    _check_moments(X, y, [[0.0], [5.0]], [[1.0], [4.0]], n)


def test_lognormal_20d_is_exp_of_gaussian_20d():
    G, yg = ds.make_gaussians_20d(300, random_state=11)
    L, yl = ds.make_lognormals_20d(300, random_state=11)
    np.testing.assert_array_equal(yg, yl)
    np.testing.assert_allclose(L, np.exp(G), rtol=1e-15)


def test_class_sizes_multinomial_or_exact():
    _, y = ds.make_mean_shift_gaussians(1000, random_state=0)
    counts = np.bincount(y)
    assert counts.sum() == 1000 and abs(counts[0] - 500) < 5 * np.sqrt(250)
    _, y = ds.make_cigars((3, 9), random_state=0)
    assert np.bincount(y).tolist() == [3, 9]
    _, y = ds.make_unbalanced_gaussians(240, random_state=0)
    assert np.bincount(y).tolist() == [60, 540]
    _, y = ds.make_normal_1d((5, 7), random_state=0, shuffle=False)
    assert y.tolist() == [0] * 5 + [1] * 7


def test_multinomial_sizes_vary_between_seeds():
    sizes = {int(np.bincount(ds.make_normal_1d(200, random_state=s)[1])[0]) for s in range(10)}
    assert len(sizes) > 1


def test_grid_circles_spirals_geometry():
    X, y = ds.make_grid_blobs(7, n_per_cluster=2000, random_state=0)
    assert np.bincount(y).tolist() == [2000] * 7
    centres = np.array([[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1], [0, 2]])
    _check_moments(X, y, centres, [[0.1, 0.1]] * 7, 2000)
    X, y = ds.make_concentric_circles((400, 400, 400), (1, 3, 5), noise=0.0, random_state=0)
    np.testing.assert_allclose(np.hypot(X[:, 0], X[:, 1]), np.array([1.0, 3, 5])[y])
    X, y = ds.make_concentric_circles((3000, 3000), noise=0.2, random_state=1)
    r = np.hypot(X[:, 0], X[:, 1])
    assert abs(r[y == 1].mean() - 3.0) < 0.02 and abs(r[y == 1].std() - 0.2) < 0.02
    X, y = ds.make_spirals((150, 150), noise=0.0, shuffle=False)
    t = np.linspace(0, 4 * np.pi, 150)
    np.testing.assert_allclose(X[:150], np.c_[t * np.cos(t), t * np.sin(t)], atol=1e-12)
    np.testing.assert_allclose(X[150:], -X[:150], atol=1e-12)


@pytest.mark.parametrize("call, match", [
    (lambda: ds.make_mean_shift_gaussians(100, 9), "n_features=9"),
    (lambda: ds.make_normal_1d(0), "n=0"),
    (lambda: ds.make_normal_1d((3, 4, 5)), r"n=\(3, 4, 5\)"),
    (lambda: ds.make_cigars((2.5, 3)), "n="),
    (lambda: ds.make_unbalanced_gaussians(300), "m=300"),
    (lambda: ds.make_grid_blobs(0), "n_clusters=0"),
    (lambda: ds.make_diagonal_gaussian_mixture(5, [[0, 0]], [[1, 1, 1]]), "variances"),
])
def test_generator_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()
