"""Kernel k-means (``kgroups._kernel_kmeans``): the notes' 2-means example, integer
weights, predict by nearest mean, engines agreeing, and the cycle guard.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from kgroups import KernelKGroups, KernelKMeans, pairwise
from kgroups._engines.lowrank import LowRankEngine
from tests import _twins

from tests._helpers import blobs, sparse_psd_gram


# The movie-rating matrix of the 2-means exercise (papers/kmeans-objectives-notes.txt).
D_NOTES = np.array([[5, 3, 1, 1], [3, 1, 5, 3], [2, 1, 5, 3],
                    [4, 3, 4, 2], [5, 5, 3, 1], [3, 1, 5, 3]], dtype=float)
Y_NOTES = np.array([0, 1, 1, 1, 0, 1])


def test_notes_two_means_example():
    # With alpha = 2, rho = ||x - y||^2 and W is the k-means inertia: the notes'
    # solution Y has centroids (5,4,2,1), (3,1.5,4.75,2.75) and inertia 4 + 6.5.
    km = KernelKMeans(2, alpha=2.0, init=Y_NOTES).fit(D_NOTES)
    assert km.labels_.tolist() == Y_NOTES.tolist()
    assert km.n_moves_ == [0]
    assert km.within_energy_ == pytest.approx(10.5, rel=1e-12)
    kg = KernelKGroups(2, alpha=2.0, init=Y_NOTES).fit(D_NOTES)
    assert kg.within_energy_ <= 10.5 + 1e-9


def test_integer_weights_equal_repeated_rows():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(25, 2))
    reps = rng.integers(1, 4, len(X))
    Xr = np.repeat(X, reps, axis=0)
    lab = rng.integers(0, 3, len(X))
    # Same partition, same objective (up to the rounding of the norm trick).
    B_w = -0.5 * pairwise(X) * np.outer(reps, reps)
    B_r = -0.5 * pairwise(Xr)
    assert _twins.objective_twin(B_w, lab, reps.astype(float), 3) == pytest.approx(
        _twins.objective_twin(B_r, np.repeat(lab, reps), np.ones(len(Xr)), 3), rel=1e-9)
    # Lloyd treats copies identically: the whole run is the same.
    km_w = KernelKMeans(3, init=lab).fit(X, sample_weight=reps)
    km_r = KernelKMeans(3, init=np.repeat(lab, reps)).fit(Xr)
    assert np.repeat(km_w.labels_, reps).tolist() == km_r.labels_.tolist()
    assert km_w.objective_ == pytest.approx(km_r.objective_, rel=1e-9)


def test_kmeans_predict_is_nearest_mean_by_brute_force():
    """A big and a tiny cluster: nearest mean and best insertion differ near the border."""
    rng = np.random.default_rng(8)
    X = np.vstack([rng.normal(0, 1, (280, 2)), rng.normal([5, 0], 0.3, (4, 2))])
    new = np.column_stack([np.linspace(-1, 6, 701), np.zeros(701)])
    km = KernelKMeans(2, init=np.repeat([0, 1], [280, 4])).fit(X)
    lab = km.labels_
    # ||phi(x) - m_l||^2 - K(x,x) with K = -rho/2: -2 mean_y K(x,y) + mean_yz K(y,z)
    K, KXX = -0.5 * pairwise(new, X), -0.5 * pairwise(X)
    d = np.stack([-2 * K[:, lab == l].mean(1) + KXX[np.ix_(lab == l, lab == l)].mean()
                  for l in range(2)], 1)
    pred = km.predict(new)
    np.testing.assert_array_equal(pred, np.argmin(d, axis=1))
    # the check can fail: k-groups' insertion rule puts some of these points elsewhere
    s = np.bincount(lab)
    q = np.array([KXX[np.ix_(lab == l, lab == l)].sum() for l in range(2)])
    ins = np.argmax((q + 2 * K @ np.eye(2)[lab]) / (s + 1) - q / s, axis=1)
    assert (ins != pred).sum() >= 5


def test_kernel_kmeans_stops_on_oscillation_with_indefinite_kernel():
    # An indefinite Gram matrix on which Lloyd's method cycles.
    rng = np.random.default_rng(0)
    found = False
    for _ in range(200):
        A = rng.normal(size=(12, 12))
        G = (A + A.T) / 2
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            km = KernelKMeans(3, kernel="precomputed", init="random", max_iter=500,
                              random_state=int(rng.integers(1000))).fit(G)
        if any(issubclass(r.category, ConvergenceWarning) and "cycle" in str(r.message)
               for r in rec):
            found = True
            assert km.n_iter_ < 500
            break
    assert found, "no cycling case found: the guard was never exercised"
    # Kernel k-groups on the same indefinite kernel converges (Q rises each move).
    kg = KernelKGroups(3, kernel="precomputed", init=km.labels_).fit(G)
    assert kg.objective_ >= km.objective_ - 1e-12


# -- kernel k-means on every engine ----------------------------------------------
def test_kernel_kmeans_matrix_free_matches_dense():
    rng = np.random.default_rng(6)
    X, _ = blobs(800, 3, 4, seed=7, spread=2.0)
    start = rng.integers(0, 4, 800)
    d = KernelKMeans(4, init=start, engine="dense", semimetric="gaussian", sigma=2.0).fit(X)
    m = KernelKMeans(4, init=start, engine="matrix-free", semimetric="gaussian", sigma=2.0).fit(X)
    assert d.n_iter_ > 2
    np.testing.assert_array_equal(d.labels_, m.labels_)


def test_kernel_kmeans_same_labels_across_exact_engines():
    rng = np.random.default_rng(10)
    X, _ = blobs(600, 3, 4, seed=11, spread=2.5)
    start = rng.integers(0, 4, 600)
    w = rng.uniform(0.5, 2.0, 600)
    runs = [KernelKMeans(4, init=start, engine=e, semimetric="laplacian", sigma=1.5,
                         max_iter=300).fit(X, sample_weight=w) for e in ("dense", "matrix-free")]
    assert runs[0].n_iter_ > 3
    np.testing.assert_array_equal(runs[0].labels_, runs[1].labels_)
    assert runs[0].n_moves_ == runs[1].n_moves_
    np.testing.assert_allclose(runs[0].objective_, runs[1].objective_, rtol=1e-9)
    # sparse vs dense on the same (PSD) Gram matrix
    K = sparse_psd_gram(300, 3, seed=12)
    start = rng.integers(0, 3, 300)
    s = KernelKMeans(3, kernel="precomputed", init=start, engine="sparse").fit(K)
    d = KernelKMeans(3, kernel="precomputed", init=start, engine="dense").fit(K.toarray())
    assert s.engine_ == "sparse" and s.n_iter_ > 5
    np.testing.assert_array_equal(s.labels_, d.labels_)
    assert s.n_moves_ == d.n_moves_
    np.testing.assert_allclose(s.objective_, d.objective_, rtol=1e-9)


def test_kernel_kmeans_low_rank_is_exact_lloyd_on_its_kernel():
    """Low-rank kernel k-means = dense kernel k-means on the Gram matrix Kt it uses."""
    X, _ = blobs(400, 3, 4, seed=13, spread=2.5)
    start = np.random.default_rng(14).integers(0, 4, 400)
    lr = KernelKMeans(4, init=start, engine="low-rank", n_components=16,
                      random_state=0, max_iter=300).fit(X)
    eng = LowRankEngine.from_semimetric(X, np.ones(400), "energy", {}, n_clusters=4,
                                        options={"n_components": 16, "random_state": 0})
    Kt = eng.F @ eng.F.T - eng.a[:, None] - eng.a[None, :]
    d = KernelKMeans(4, kernel="precomputed", init=start, engine="dense",
                     max_iter=300).fit(Kt)
    assert d.n_iter_ > 2
    np.testing.assert_array_equal(lr.labels_, d.labels_)
    np.testing.assert_allclose(lr.objective_, d.objective_, rtol=1e-8)
