"""Estimator machinery shared by KernelKGroups and KernelKMeans (``kgroups._base``).

scikit-learn's estimator checks, bad inputs, engine options, ``predict`` and
``score``, float32 storage, restarts and empty clusters.
"""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from kgroups import KernelKGroups, KernelKMeans, pairwise
from tests import _twins

from tests._helpers import CALLABLE, blobs, sparse_psd_gram


# With noise the fits set points aside (label -1, which the checks allow for noise):
# noise="auto" decides how many from the data, noise=0.1 a tenth of the weight.
ESTIMATORS = [KernelKGroups(n_clusters=3, random_state=0),
              KernelKMeans(n_clusters=3, random_state=0),
              KernelKGroups(n_clusters=3, random_state=0, noise="auto"),
              KernelKMeans(n_clusters=3, random_state=0, noise=0.1)]


# Zero weights act as removed rows and integer weights as repeated ones (tests below),
# but the check also compares the cluster numbers, which follow the random starts: a
# start draws among the rows, so repeated rows (more of them) and weighted rows draw
# different seeds and reach the same partition under other names.
EXPECTED_FAILED = {
    "check_sample_weight_equivalence_on_dense_data":
        "same partition, W and transform up to the names of the clusters: the starts "
        "draw among the rows, and repeated rows are more rows than weighted ones",
}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=lambda est: EXPECTED_FAILED)
def test_sklearn_compatible(estimator, check):
    check(estimator)


X_OK = np.random.default_rng(0).normal(size=(20, 3))


@pytest.mark.parametrize("Est", [KernelKGroups, KernelKMeans])
@pytest.mark.parametrize(
    "X, params, fit_kw, match",
    [
        (np.array([[0.0, np.nan], [1, 2], [3, 4]]), {}, {}, "NaN"),
        (np.array([[0.0, np.inf], [1, 2], [3, 4]]), {}, {}, "infinity"),
        (np.ones((3, 2, 2)), {}, {}, "dim 3"),
        (X_OK, {"n_clusters": 21}, {}, "n_samples=20 should be >= n_clusters=21"),
        (X_OK, {"n_clusters": 0}, {}, "n_clusters=0 should be (.auto. or )?an integer >= 1$"),
        (X_OK, {"n_clusters": 2.5}, {}, "n_clusters=2.5"),
        (X_OK, {"alpha": 2.5}, {}, r"alpha=2.5 should be a number in \(0, 2\]"),
        (X_OK, {"alpha": 0}, {}, "alpha=0"),
        (X_OK, {"semimetric": "gaussian", "sigma": -1.0}, {}, "sigma=-1.0"),
        (X_OK, {"semimetric": "cosine"}, {}, "semimetric='cosine'"),
        (X_OK, {"n_init": 0}, {}, "n_init=0"),
        (X_OK, {"max_iter": 0}, {}, "max_iter=0"),
        (X_OK, {"tol": 1.5}, {}, "tol=1.5"),
        (X_OK, {"engine": "tpu"}, {}, "engine='tpu'"),
        (X_OK, {"dtype": "int8"}, {}, "dtype='int8'"),
        (X_OK, {"init": "best"}, {}, "init='best'"),
        (X_OK, {"init": np.zeros(5, int)}, {}, r"shape \(5,\), expected \(20,\)"),
        (X_OK, {"init": np.full(20, 7)}, {}, r"\[0, 2\], got min=7"),
        (X_OK, {}, {"sample_weight": -np.ones(20)}, r"sample_weight\[0\]=-1.0"),
        (X_OK, {}, {"sample_weight": np.r_[np.ones(18), -0.0, -1e-300]},
         r"sample_weight\[19\]=-1e-300; weights should be finite and >= 0"),
        (X_OK, {}, {"sample_weight": np.zeros(20)}, "every sample_weight is zero"),
        (X_OK, {}, {"sample_weight": np.r_[np.ones(2), np.zeros(18)]},
         "2 sample\\(s\\) have a positive sample_weight, fewer than n_clusters=3"),
        (X_OK, {}, {"sample_weight": np.ones(3)}, r"shape \(3,\), expected \(20,\)"),
        (np.array([[0.0, 1], [2, 0]]), {"n_clusters": 2, "semimetric": "precomputed"}, {},
         r"symmetric, but X\[0, 1\]=1.0 != X\[1, 0\]=2.0"),
        (np.ones((3, 4)), {"n_clusters": 2, "kernel": "precomputed"}, {}, r"square \(n_samples, n_samples\), got shape \(3, 4\)"),
        (np.array([["a", "b"], ["c", "d"]]), {"n_clusters": 1}, {}, "column 0 of X holds text"),
    ],
)
def test_bad_inputs_raise_clear_errors(Est, X, params, fit_kw, match):
    params = {"n_clusters": 3, **params}
    with pytest.raises(ValueError, match=match):
        Est(**params).fit(X, **fit_kw)


# -- bad engine options: a ValueError naming the value and what was expected -------
X20 = np.random.default_rng(0).normal(size=(20, 2))


@pytest.mark.parametrize("Est", [KernelKGroups, KernelKMeans])
@pytest.mark.parametrize("params, X, match", [
    ({"engine": "tpu"}, X20, r"engine='tpu' should be one of 'auto', 'dense', 'sparse', "
                             r"'matrix-free', 'low-rank', 'dask', 'gpu'$"),
    ({"engine": "low-rank", "n_components": 0}, X20, r"n_components=0 should be an integer >= 1"),
    ({"engine": "low-rank", "n_components": -3}, X20, r"n_components=-3"),
    ({"engine": "low-rank", "n_components": 2.5}, X20, r"n_components=2.5"),
    ({"engine": "low-rank", "landmarks": "grid"}, X20,
     r"landmarks='grid' should be one of 'k-means\+\+', 'uniform', 'fourier'$"),
    ({"engine": "low-rank", "landmarks": "fourier", "n_components": 5}, X20,
     r"landmarks='fourier' .* semimetric in \('gaussian', 'laplacian'\), got semimetric='energy'"),
    ({"engine": "low-rank", "landmarks": "fourier", "n_components": 5,
      "semimetric": "localized"}, X20, r"semimetric='localized' is not of negative type"),
    ({"engine": "low-rank", "landmarks": "fourier", "n_components": 5,
      "semimetric": CALLABLE}, X20, r"landmarks='fourier'.*got semimetric=<function pairwise"),
    ({"engine": "sparse"}, X20,
     r"engine='sparse' needs a scipy.sparse precomputed Gram matrix .*got raw data with "
     r"semimetric='energy'"),
    ({"engine": "sparse", "kernel": "precomputed"}, np.eye(20),
     r"engine='sparse' .* got a dense Gram matrix; pass scipy.sparse.csr_matrix"),
    ({"engine": "sparse", "semimetric": "precomputed"}, pairwise(X20),
     r"engine='sparse' .* got a NumPy semimetric matrix \(semimetric='precomputed'\)"),
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


def test_predict_insertion_gain():
    rng = np.random.default_rng(13)
    X = np.vstack([rng.normal(0, 1, (50, 2)), rng.normal(8, 1, (50, 2))])
    km = KernelKGroups(2, random_state=0).fit(X)
    new = np.array([[0.0, 0.0], [8.0, 8.0], [0.5, -0.3]])
    pred = km.predict(new)
    assert pred[0] == pred[2] == km.labels_[0] != pred[1]
    # Brute force: inserting the point where Q rises most.
    w = np.ones(len(X) + 1)
    Xa = np.vstack([X, new[1:2]])
    B = -0.5 * pairwise(Xa)
    gains = [_twins.objective_twin(B, np.append(km.labels_, l), w, 2) for l in range(2)]
    assert int(np.argmax(gains)) == pred[1]
    assert km.score(X) == pytest.approx(-km.within_energy_, rel=1e-9)


# -- float32 dense storage, restarts, empty clusters ------------------------------
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


def test_restarts_keep_best_and_are_reproducible():
    rng = np.random.default_rng(12)
    X = rng.normal(size=(150, 2))
    one = [KernelKGroups(5, init="random", random_state=s).fit(X).objective_ for s in range(5)]
    best = KernelKGroups(5, init="random", n_init=8, random_state=3).fit(X)
    again = KernelKGroups(5, init="random", n_init=8, random_state=3).fit(X)
    assert best.labels_.tolist() == again.labels_.tolist()
    assert best.objective_ >= np.median(one) - 1e-9


def test_empty_cluster_in_given_labels_is_filled():
    X = np.random.default_rng(1).normal(size=(20, 2))
    init = np.zeros(20, dtype=int)
    init[:10] = 1  # cluster 2 empty
    km = KernelKGroups(3, init=init).fit(X)
    assert np.bincount(km.labels_, minlength=3).min() >= 1


# -- zero sample weights: a zero-weight sample counts as removed (as in KMeans) ------
ZW_X = blobs(60, 2, 3, seed=5)[0]
ZW_W = np.random.default_rng(6).uniform(0.5, 2.0, ZW_X.shape[0])
ZW_W[[0, 7, 8, 31, 59]] = 0.0
ZW_KEEP = ZW_W > 0


@pytest.mark.parametrize("Est", [KernelKGroups, KernelKMeans])
@pytest.mark.parametrize("engine", ["dense", "matrix-free", "low-rank"])
@pytest.mark.parametrize("given", [False, True])
def test_zero_weights_equal_removed_rows(Est, engine, given):
    """The fit equals the fit without the zero-weight rows from the same start (given
    labels, or the same random_state): same labels on the kept rows, same Q, W and
    cluster weights; a zero-weight row gets the label predict gives it."""
    start = np.random.default_rng(7).integers(0, 3, ZW_X.shape[0])
    params = {"engine": engine, "random_state": 0, "n_components": 20}
    full = Est(3, init=start if given else "kernel-k-means++", **params)
    sub = Est(3, init=start[ZW_KEEP] if given else "kernel-k-means++", **params)
    full.fit(ZW_X, sample_weight=ZW_W)
    sub.fit(ZW_X[ZW_KEEP], sample_weight=ZW_W[ZW_KEEP])
    np.testing.assert_array_equal(full.labels_[ZW_KEEP], sub.labels_)
    assert full.objective_ == pytest.approx(sub.objective_, rel=1e-12)
    assert full.within_energy_ == pytest.approx(sub.within_energy_, rel=1e-12)
    np.testing.assert_allclose(full.cluster_weights_, sub.cluster_weights_, rtol=1e-12)
    np.testing.assert_array_equal(full.labels_[~ZW_KEEP], full.predict(ZW_X[~ZW_KEEP]))
    np.testing.assert_array_equal(full.predict(ZW_X), sub.predict(ZW_X))
    assert full.labels_.shape == (ZW_X.shape[0],)


@pytest.mark.parametrize("Est", [KernelKGroups, KernelKMeans])
def test_zero_weights_on_precomputed_matrices(Est):
    """A semimetric or Gram matrix: the kept rows and columns are fitted; predict takes
    rows against all the training samples, as without zero weights."""
    D = pairwise(ZW_X)
    raw = Est(3, random_state=0).fit(ZW_X, sample_weight=ZW_W)
    pre = Est(3, random_state=0, semimetric="precomputed").fit(D, sample_weight=ZW_W)
    np.testing.assert_array_equal(pre.labels_, raw.labels_)
    assert pre.within_energy_ == pytest.approx(raw.within_energy_, rel=1e-10)
    np.testing.assert_array_equal(pre.predict(D[:10]), raw.predict(ZW_X[:10]))
    gram = Est(3, kernel="precomputed", init=raw.labels_).fit(-0.5 * D, sample_weight=ZW_W)
    np.testing.assert_array_equal(gram.labels_, raw.labels_)
    assert gram.within_energy_ == pytest.approx(raw.within_energy_, rel=1e-10)


def test_zero_weights_in_score_improving_moves_and_within_energy():
    from kgroups import improving_moves, within_energy

    est = KernelKGroups(3, random_state=0).fit(ZW_X, sample_weight=ZW_W)
    assert est.score(ZW_X, sample_weight=ZW_W) == pytest.approx(
        est.score(ZW_X[ZW_KEEP], sample_weight=ZW_W[ZW_KEEP]), rel=1e-12)
    assert improving_moves(ZW_X, est.labels_, sample_weight=ZW_W) == 0
    assert within_energy(ZW_X, est.labels_, sample_weight=ZW_W) == pytest.approx(
        est.within_energy_, rel=1e-12)
    moved = est.labels_.copy()
    moved[0] = (moved[0] + 1) % 3  # a zero-weight row: its move changes nothing
    assert improving_moves(ZW_X, moved, sample_weight=ZW_W) == 0


def test_integer_weights_equal_repeated_rows_up_to_cluster_names():
    """What check_sample_weight_equivalence_on_dense_data compares, up to the names of
    the clusters (its expected failure above): zero and integer weights against removed
    and repeated rows."""
    from itertools import permutations

    w = np.random.default_rng(8).integers(0, 4, ZW_X.shape[0]).astype(float)
    for Est in (KernelKGroups, KernelKMeans):
        a = Est(3, random_state=0).fit(ZW_X, sample_weight=w)
        b = Est(3, random_state=0).fit(np.repeat(ZW_X, w.astype(int), axis=0))
        ta, tb = a.transform(ZW_X), b.transform(ZW_X)
        assert min(np.abs(ta[:, list(p)] - tb).max() for p in permutations(range(3))) < 1e-9
        assert a.within_energy_ == pytest.approx(b.within_energy_, rel=1e-12)


def test_score_needs_no_matrix_of_a_cluster(monkeypatch):
    """score's W of the new rows comes from the energy statistics' pass over each
    cluster's pairs, so a cluster whose n_l x n_l matrix would not fit in memory is
    scored (here 2,500 rows, 50 MB, with 40 MB said to be available), and equals the
    brute W of the predicted partition."""
    rng = np.random.default_rng(6)
    X = np.vstack([rng.normal(0, 1, (2500, 2)), rng.normal(20, 1, (2500, 2))])
    w = rng.uniform(0.5, 2.0, X.shape[0])
    est = KernelKGroups(2, random_state=0).fit(X[::10])
    labels = est.predict(X)
    brute = sum(w[labels == l] @ pairwise(X[labels == l]) @ w[labels == l]
                / (2 * w[labels == l].sum()) for l in (0, 1))
    monkeypatch.setattr("kgroups._memory.available_memory", lambda: 40 * 2**20)
    assert est.score(X, sample_weight=w) == pytest.approx(-brute, rel=1e-12)
