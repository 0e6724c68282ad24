"""The bounds of a point's sum over a cluster from the cluster's mean
(``kgroups._kernels.centroid``): every exact sum between them, on ordinary and
adversarial clusters, and tight where they are used (alpha = 2: the exact sum)."""

import numpy as np
import pytest

from kgroups._kernels import centroid


def exact_sums(X, w, labels, k, alpha):
    """``sum_{y in C_l} w_y |x_i - x_y|^alpha`` (k x n) in extended precision."""
    Xl = X.astype(np.longdouble)
    out = np.zeros((k, X.shape[0]), dtype=np.longdouble)
    for i in range(X.shape[0]):
        r = np.sqrt(np.sum((Xl[i] - Xl) ** 2, axis=1)) ** alpha * w
        out[:, i] = np.bincount(labels, weights=r.astype(np.float64), minlength=k)
        for l in range(k):
            out[l, i] = np.sum(r[labels == l])
    return out


def bounds(X, w, labels, k, alpha):
    mu, W, S = centroid.cluster_moments(X, w, labels, k)
    d = centroid.mean_distances(X, mu, 1)
    return centroid.sum_bounds(d, W, S, alpha, X)


def cases():
    rng = np.random.default_rng(0)
    yield "blobs", rng.normal(size=(300, 4)) + 6 * rng.integers(0, 3, (300, 1)), None
    base = rng.normal(size=(5, 3)) * 3 + 1e5
    yield "near duplicates far out", base[rng.integers(0, 5, 200)] + 1e-9 * rng.normal(
        size=(200, 3)), None
    yield "wide range", np.vstack([rng.normal(size=(100, 2)) * 1e-6,
                                   rng.normal(size=(100, 2)) * 1e-6 + 1e6]), None
    yield "weights", rng.normal(size=(250, 6)), np.exp(rng.uniform(-9, 9, 250))
    yield "one feature", rng.normal(size=(200, 1)) * 1e3, None
    X = rng.normal(size=(150, 3))
    X[10:20] = X[5]  # repeated rows
    yield "repeated rows", X, None


@pytest.mark.parametrize("alpha", [1.0, 1.2, 1.7, 2.0])
@pytest.mark.parametrize("name, X, w", list(cases()), ids=[c[0] for c in cases()])
def test_every_sum_between_the_bounds(name, X, w, alpha):
    rng = np.random.default_rng(1)
    k = 3
    w = np.ones(X.shape[0]) if w is None else w
    labels = rng.integers(0, k, X.shape[0])
    # the engine works on centred data
    X = X - np.median(X, axis=0)
    low, high = bounds(X, w, labels, k, alpha)
    want = exact_sums(X, w, labels, k, alpha)
    assert (low <= want).all() and (want <= high).all()


def test_alpha_2_is_the_exact_sum_within_rounding():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(400, 5)) * 3
    labels = rng.integers(0, 4, 400)
    w = rng.uniform(0.5, 2.0, 400)
    low, high = bounds(X, w, labels, 4, 2.0)
    want = exact_sums(X, w, labels, 4, 2.0).astype(np.float64)
    np.testing.assert_allclose(high, want, rtol=1e-12)


def test_far_points_get_narrow_bounds():
    """A point far from a cluster: the width relative to the sum is about S / (2 W
    d^2), what makes leaving its pairs out pay."""
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(size=(200, 3)), rng.normal(size=(1, 3)) + 50.0])
    labels = np.r_[np.zeros(200, dtype=np.int64), 1]
    low, high = bounds(X, np.ones(201), labels, 2, 1.0)
    assert (high[0, 200] - low[0, 200]) / low[0, 200] < 1e-3


def test_twins_agree():
    from kgroups._kernels.jit import as_python

    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 3))
    labels = rng.integers(0, 3, 60)
    mu, W, S = centroid.cluster_moments(X, np.ones(60), labels, 3)
    d = centroid.mean_distances(X, mu, 3)  # three ranges at once
    with as_python():
        mu2, W2, S2 = centroid.cluster_moments(X, np.ones(60), labels, 3)
        d2 = centroid.mean_distances(X, mu2, 1)
    np.testing.assert_array_equal(mu, mu2)
    np.testing.assert_array_equal(S, S2)
    np.testing.assert_array_equal(d, d2)
