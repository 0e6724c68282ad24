"""Engine options: bad values, ``engine_``, predict consistent with the fit for every
engine, kernel k-means on every engine, float32 storage, and the ``"auto"`` rule."""

import numpy as np
import pytest
import scipy.sparse as sp

import kgroups._backends._memory as memory
from kgroups import KernelKGroups, KernelKMeans, pairwise
from kgroups._backends import (
    MATRIX_FREE_MIN_N,
    DenseEngine,
    LowRankEngine,
    MatrixFreeEngine,
    SparseEngine,
    select_engine,
)


def blobs(n, d, k, seed, spread=1.0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 3, (k, d))
    y = rng.integers(0, k, n)
    return centres[y] + spread * rng.normal(size=(n, d)), y


def sparse_psd_gram(n, k, seed):
    """A sparse PSD Gram matrix ``F F^T`` with k clusters: each point has two features
    among its cluster's 20 and one anywhere (bag-of-words-like)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    rows = np.repeat(np.arange(n), 3)
    cols = np.stack([20 * y + rng.integers(0, 20, n), 20 * y + rng.integers(0, 20, n),
                     rng.integers(0, 20 * k, n)], 1).ravel()
    F = sp.csr_matrix((rng.uniform(0.5, 1.5, 3 * n), (rows, cols)), shape=(n, 20 * k))
    return sp.csr_matrix(F @ F.T)


X20 = np.random.default_rng(0).normal(size=(20, 2))
CALLABLE = pairwise  # a callable semimetric (the energy distance, alpha = 1)
sel = select_engine


# -- bad engine options: a ValueError naming the value and what was expected -------

@pytest.mark.parametrize("Est", [KernelKGroups, KernelKMeans])
@pytest.mark.parametrize("params, X, match", [
    ({"engine": "gpu"}, X20, r"engine='gpu' should be one of \('auto', 'dense', 'sparse', "
                             r"'matrix-free', 'low-rank'\)"),
    ({"engine": "low-rank", "n_components": 0}, X20, r"n_components=0 should be an integer >= 1"),
    ({"engine": "low-rank", "n_components": -3}, X20, r"n_components=-3"),
    ({"engine": "low-rank", "n_components": 2.5}, X20, r"n_components=2.5"),
    ({"engine": "low-rank", "n_components": 21}, X20,
     r"n_components=21 should be in \[1, n_samples=20\]"),
    ({"engine": "low-rank", "landmarks": "grid"}, X20,
     r"landmarks='grid' should be one of \('k-means\+\+', 'uniform', 'fourier'\)"),
    ({"engine": "low-rank", "landmarks": "fourier", "n_components": 5}, X20,
     r"landmarks='fourier' .* semimetric in \('gaussian', 'laplacian'\), got semimetric='energy'"),
    ({"engine": "low-rank", "landmarks": "fourier", "n_components": 5,
      "semimetric": "localized"}, X20, r"got semimetric='localized'"),
    ({"engine": "low-rank", "landmarks": "fourier", "n_components": 5,
      "semimetric": CALLABLE}, X20, r"landmarks='fourier'.*got semimetric=<function pairwise"),
    ({"engine": "sparse"}, X20,
     r"engine='sparse' needs a scipy.sparse precomputed Gram matrix .*got raw data with "
     r"semimetric='energy'"),
    ({"engine": "sparse", "kernel": "precomputed"}, np.eye(20),
     r"engine='sparse' .* got a dense Gram matrix; pass scipy.sparse.csr_matrix"),
    ({"engine": "sparse", "semimetric": "precomputed"}, pairwise(X20),
     r"engine='sparse' .* got a dense semimetric matrix \(semimetric='precomputed'\)"),
    ({"engine": "matrix-free", "semimetric": "precomputed"}, pairwise(X20),
     r"engine='matrix-free' needs raw data, got a precomputed semimetric matrix"),
    ({"engine": "low-rank", "kernel": "precomputed"}, np.eye(20),
     r"engine='low-rank' needs raw data, got a precomputed Gram matrix"),
    ({"engine": "matrix-free", "semimetric": CALLABLE}, X20,
     r"engine='matrix-free' needs a named semimetric, got a callable"),
])
def test_bad_engine_options_raise_clear_errors(Est, params, X, match):
    with pytest.raises(ValueError, match=match) as err:
        Est(n_clusters=3, random_state=0, **params).fit(X)
    assert str(err.value).startswith(Est.__name__ + ":")


def test_low_rank_options_are_not_checked_against_n_for_other_engines():
    """The default n_components=256 > n is fine when no low-rank engine runs."""
    for engine in ("auto", "dense", "matrix-free"):
        km = KernelKGroups(2, engine=engine, n_components=1000, random_state=0).fit(X20)
        assert km.engine_ == ("dense" if engine == "auto" else engine)
    km = KernelKGroups(2, engine="low-rank", n_components=20, random_state=0).fit(X20)
    assert km.engine_ == "low-rank"


def test_engine_attribute_names_the_engine_auto_chose(monkeypatch):
    X, _ = blobs(300, 2, 3, seed=1)
    assert KernelKGroups(3, random_state=0).fit(X).engine_ == "dense"
    K = sparse_psd_gram(60, 2, seed=2)
    assert KernelKMeans(2, kernel="precomputed", random_state=0).fit(K).engine_ == "sparse"
    monkeypatch.setattr(memory, "available_memory", lambda: 2**20)  # 1 MiB: no n x n kernel
    assert KernelKGroups(3, random_state=0).fit(X).engine_ == "matrix-free"
    lr = KernelKGroups(3, semimetric=CALLABLE, n_components=20, random_state=0).fit(X)
    assert lr.engine_ == "low-rank"


# -- predict is the fit's own rule, for every engine -----------------------------

ENGINE_CASES = [
    ("dense", {}),
    ("matrix-free", {}),
    ("low-rank", {"n_components": 12, "landmarks": "k-means++"}),
    ("low-rank", {"n_components": 12, "landmarks": "uniform"}),
    ("low-rank", {"n_components": 12, "landmarks": "fourier", "semimetric": "gaussian",
                  "sigma": 3.0}),
    ("low-rank", {"n_components": 12, "landmarks": "fourier", "semimetric": "laplacian",
                  "sigma": 1.0}),
]


def exact_insertion_labels(X, labels, k, semimetric="energy", **params):
    """What predict gave before: insertion gain under the exact kernel -rho/2."""
    K = -0.5 * pairwise(X, None, semimetric, **params)
    Z = np.eye(k)[labels]
    s, q = Z.sum(0), np.einsum("il,ij,jl->l", Z, K, Z)
    return np.argmax((q + 2 * K @ Z) / (s + 1) - q / s, axis=1)


@pytest.mark.parametrize("Est", [KernelKGroups, KernelKMeans])
@pytest.mark.parametrize("engine, params", ENGINE_CASES)
def test_predict_on_training_data_returns_labels(Est, engine, params):
    X, _ = blobs(500, 3, 5, seed=3, spread=2.5)  # overlapping: many border points
    km = Est(5, engine=engine, random_state=0, max_iter=300, **params).fit(X)
    assert km.engine_ == engine and km.n_moves_[-1] == 0  # converged
    pred = km.predict(X)
    np.testing.assert_array_equal(pred, km.labels_)
    assert km.fit_predict(X).tolist() == km.labels_.tolist()
    if engine == "low-rank" and Est is KernelKGroups:
        # the check can fail: under the exact kernel the same labels are not stable
        semi = {k: v for k, v in params.items() if k in ("semimetric", "sigma")}
        assert (exact_insertion_labels(X, km.labels_, 5, **semi) != km.labels_).sum() > 0


def test_lowrank_predict_new_points_uses_the_fitted_feature_map():
    """New points: the engine kernel Kt computed by hand from the fit's map."""
    X, _ = blobs(400, 2, 4, seed=4, spread=2.0)
    new = np.random.default_rng(5).normal(0, 4, (30, 2))
    km = KernelKGroups(4, engine="low-rank", n_components=10, random_state=1).fit(X)
    fmap = km._predictor.fmap
    F, Fn = fmap(X), fmap(new)
    a, an = fmap.kdiag(X) / 2, fmap.kdiag(new) / 2
    Kt = Fn @ F.T - an[:, None] - a[None, :]          # Kt(new, train)
    Z = np.eye(4)[km.labels_]
    Ktt = F @ F.T - a[:, None] - a[None, :]
    s, q = Z.sum(0), np.einsum("il,ij,jl->l", Z, Ktt, Z)
    kxx = (Fn * Fn).sum(1) - 2 * an
    want = np.argmax((q + 2 * Kt @ Z + kxx[:, None]) / (s + 1) - q / s, axis=1)
    np.testing.assert_array_equal(km.predict(new), want)
    np.testing.assert_allclose(q, km._q, rtol=1e-9)


def test_predict_precomputed_semimetric_and_sparse_gram():
    X, _ = blobs(200, 2, 3, seed=6, spread=2.0)
    D = pairwise(X)
    kg = KernelKGroups(3, semimetric="precomputed", random_state=0).fit(D)
    np.testing.assert_array_equal(kg.predict(D), kg.labels_)
    K = sparse_psd_gram(150, 3, seed=7)
    kg = KernelKGroups(3, kernel="precomputed", random_state=0).fit(K)
    assert kg.engine_ == "sparse"
    with pytest.raises(ValueError, match="predict needs K\\(x, x\\)"):
        kg.predict(K)
    # kernel k-means needs no K(x, x): rows K(new, train) are enough, sparse or dense
    km = KernelKMeans(3, kernel="precomputed", random_state=0).fit(K)
    assert km.engine_ == "sparse"
    np.testing.assert_array_equal(km.predict(K), km.labels_)
    np.testing.assert_array_equal(km.predict(K.toarray()), km.labels_)


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


# -- kernel k-means on every engine ----------------------------------------------

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


# -- float32 dense storage -------------------------------------------------------

@pytest.mark.parametrize("Est", [KernelKGroups, KernelKMeans])
def test_float32_same_labels_and_objective(Est):
    rng = np.random.default_rng(15)
    X, y = blobs(800, 4, 5, seed=16, spread=0.7)
    start = y.copy()
    flip = rng.random(800) < 0.3
    start[flip] = rng.integers(0, 5, flip.sum())  # a noisy start: many moves
    a = Est(5, init=start).fit(X)
    b = Est(5, init=start, dtype="float32").fit(X)
    assert sum(a.n_moves_) > 100
    assert a.labels_.tolist() == b.labels_.tolist()
    assert abs(b.objective_ / a.objective_ - 1) < 1e-5
    assert abs(b.within_energy_ / a.within_energy_ - 1) < 1e-5
    assert b.engine_ == "dense"


# -- the "auto" rule -------------------------------------------------------------

def test_auto_rule(monkeypatch):
    big, small = MATRIX_FREE_MIN_N, MATRIX_FREE_MIN_N - 1
    f64 = np.float64
    assert sel("auto", small, False, False, f64, n_clusters=3) is DenseEngine
    assert sel("auto", big, False, False, f64, n_clusters=3) is MatrixFreeEngine
    assert sel("auto", big, False, False, f64, n_features=10, n_clusters=3) is MatrixFreeEngine
    assert sel("auto", big, False, False, f64, n_features=50, n_clusters=3) is DenseEngine
    # callables and precomputed matrices have no matrix-free engine
    assert sel("auto", big, False, False, f64, semimetric=CALLABLE, n_clusters=3) is DenseEngine
    assert sel("auto", big, True, False, f64, n_clusters=3) is DenseEngine
    assert sel("auto", big, True, True, f64, n_clusters=3) is SparseEngine
    monkeypatch.setattr(memory, "available_memory", lambda: 2**20)  # 1 MiB
    assert sel("auto", big, False, False, f64, n_features=50, n_clusters=3) is MatrixFreeEngine
    assert sel("auto", 2000, False, False, f64, n_features=50, n_clusters=3) is MatrixFreeEngine
    assert sel("auto", 2000, False, False, f64, semimetric=CALLABLE, n_clusters=3) is LowRankEngine


def test_auto_estimator_follows_the_rule():
    """Many low-dimensional points: matrix-free, with or without restarts."""
    X, _ = blobs(MATRIX_FREE_MIN_N, 3, 3, seed=17, spread=0.5)
    one = KernelKGroups(3, random_state=0).fit(X)
    many = KernelKGroups(3, n_init=2, random_state=0).fit(X)
    given = KernelKGroups(3, init=one.labels_, n_init=5).fit(X)  # given labels run once
    assert (one.engine_, many.engine_, given.engine_) == ("matrix-free",) * 3
    assert KernelKGroups(3, random_state=0).fit(X[:-1]).engine_ == "dense"
