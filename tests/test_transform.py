"""``transform``, ``fit_transform`` and feature names of the estimators (``kgroups._base``).

Expected values are brute force: the semimetric by explicit differences, the
weighted cluster means by hand; for ``semimetric="energy"`` with alpha = 2 the
plain squared Euclidean distance to the weighted centroid; for the low-rank
engine the explicit feature vectors of its own (approximate) kernel.
"""

import numpy as np
import pytest
from sklearn.base import is_clusterer
from sklearn.utils import estimator_checks as ec

from kgroups import KernelKGroups, KernelKMeans, improving_moves, pairwise

from tests._helpers import CALLABLE, SEMIS, blobs

ESTS = [KernelKGroups, KernelKMeans]


def brute_rho(X, Y, semimetric, params):
    """rho(x, y) for the rows of X and Y by explicit differences."""
    D = np.sqrt(((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1))
    return {"energy": lambda: D ** params.get("alpha", 1.0),
            "gaussian": lambda: 2 - 2 * np.exp(-D**2 / (2 * params["sigma"] ** 2)),
            "laplacian": lambda: 2 - 2 * np.exp(-D / (2 * params["sigma"])),
            "localized": lambda: D**2 * np.exp(-D / 2),
            "sinusoidal": lambda: D**2 * params["theta"] * np.sin(D / params["theta"]),
            }[semimetric]()


def brute_distances(rho_new, rho_train, w, labels, k, clip=True):
    """||phi(x) - mu_l||^2 for K = -rho/2 (K(x, x) = 0), cluster by cluster."""
    out = np.empty((rho_new.shape[0], k))
    for l in range(k):
        c = labels == l
        s = w[c].sum()
        K_xc = -0.5 * rho_new[:, c]
        K_cc = -0.5 * rho_train[np.ix_(c, c)]
        out[:, l] = -2.0 * K_xc @ w[c] / s + w[c] @ K_cc @ w[c] / s**2
    return np.maximum(out, 0.0) if clip else out


def data(seed=3, n=40, n_new=15):
    X, _ = blobs(n + n_new, 3, 3, seed)
    w = np.random.default_rng(seed).uniform(0.5, 2.0, n)
    return X[:n], X[n:], w


# -- exact engines against brute force --------------------------------------------
# (Lloyd's method may cycle on the kernels that are not positive semidefinite)
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("Est", ESTS)
@pytest.mark.parametrize("engine", ["dense", "matrix-free"])
@pytest.mark.parametrize("semimetric, params", SEMIS)
def test_transform_matches_brute_force(Est, engine, semimetric, params):
    X, Xn, w = data()
    est = Est(3, semimetric=semimetric, engine=engine, random_state=0, max_iter=5, **params)
    est.fit(X, sample_weight=w)
    want = brute_distances(brute_rho(Xn, X, semimetric, params),
                           brute_rho(X, X, semimetric, params), w, est.labels_, 3)
    got = est.transform(Xn)
    assert got.shape == (15, 3) and got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9 * np.abs(want).max())
    assert (got >= 0).all()


@pytest.mark.parametrize("Est", ESTS)
def test_transform_callable_and_precomputed_semimetric(Est):
    # the precomputed fit starts from the callable fit's labels; brute force uses its own
    X, Xn, w = data(seed=4)
    rho = lambda A, B: np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))  # noqa: E731
    est = Est(3, semimetric=CALLABLE, random_state=0).fit(X, sample_weight=w)
    want = brute_distances(CALLABLE(Xn, X), CALLABLE(X, X), w, est.labels_, 3)
    np.testing.assert_allclose(est.transform(Xn), want, rtol=1e-9, atol=1e-12)
    pre = Est(3, semimetric="precomputed", init=est.labels_).fit(rho(X, X), sample_weight=w)
    want = brute_distances(rho(Xn, X), rho(X, X), w, pre.labels_, 3)
    np.testing.assert_allclose(pre.transform(rho(Xn, X)), want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("Est", ESTS)
def test_energy_alpha_2_is_squared_distance_to_weighted_centroid(Est):
    # rho = ||x - y||^2: the kernel space is the input space (up to a shift)
    X, Xn, w = data(seed=5)
    est = Est(3, alpha=2.0, random_state=0).fit(X, sample_weight=w)
    mu = np.array([np.average(X[est.labels_ == l], axis=0, weights=w[est.labels_ == l])
                   for l in range(3)])
    want = ((Xn[:, None, :] - mu[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(est.transform(Xn), want, rtol=1e-10)


def test_negative_values_of_an_indefinite_kernel_are_clipped():
    X, Xn, w = data(seed=6)
    est = KernelKGroups(3, semimetric="sinusoidal", theta=0.3, random_state=0)
    est.fit(X, sample_weight=w)
    raw = brute_distances(brute_rho(Xn, X, "sinusoidal", {"theta": 0.3}),
                          brute_rho(X, X, "sinusoidal", {"theta": 0.3}), w, est.labels_, 3,
                          clip=False)
    assert (raw < 0).any()  # the data exercise the clipping
    got = est.transform(Xn)
    assert (got[raw < 0] == 0).all() and (got >= 0).all()


# -- the low-rank engine: its own approximate kernel --------------------------------
@pytest.mark.parametrize("Est", ESTS)
@pytest.mark.parametrize("semimetric, landmarks", [("energy", "k-means++"),
                                                   ("laplacian", "uniform"),
                                                   ("gaussian", "fourier")])
def test_low_rank_transform_is_distance_between_features(Est, semimetric, landmarks):
    X, Xn, w = data(seed=7)
    est = Est(3, engine="low-rank", n_components=12, landmarks=landmarks,
              semimetric=semimetric, random_state=0).fit(X, sample_weight=w)
    F, Fn = est._predictor.fmap(X), est._predictor.fmap(Xn)  # the fit's feature map
    mu = np.array([np.average(F[est.labels_ == l], axis=0, weights=w[est.labels_ == l])
                   for l in range(3)])
    want = ((Fn[:, None, :] - mu[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(est.transform(Xn), want, rtol=1e-9, atol=1e-12)


# -- what is guaranteed between transform, predict and labels_ ---------------------
FITS = [{"engine": "dense"}, {"engine": "matrix-free"},
        {"engine": "low-rank", "n_components": 15}]


@pytest.mark.parametrize("Est", ESTS)
@pytest.mark.parametrize("fit", FITS)
def test_predict_from_transform(Est, fit):
    # KernelKMeans: nearest mean. KernelKGroups: insertion gain of a unit-weight
    # point, K(x, x) - s_l d_l / (s_l + 1), i.e. argmin of s_l / (s_l + 1) d_l.
    X, Xn, w = data(seed=8, n_new=200)
    Xn = Xn * 2.0  # also points between and beyond the clusters
    est = Est(3, random_state=0, **fit).fit(X, sample_weight=w)
    d = est.transform(Xn)
    s = est.cluster_weights_
    score = d if Est is KernelKMeans else d * s / (s + 1.0)
    np.testing.assert_array_equal(est.predict(Xn), score.argmin(axis=1))


@pytest.mark.parametrize("fit", FITS)
def test_hartigan_optimum_in_terms_of_transform(fit):
    # No improving move (paper eq. 50) <=> s_j/(s_j - w_i) d_j(i) <= s_l/(s_l + w_i) d_l(i):
    # then the own cluster is also the nearest mean (strictly, for d_l > 0).
    X, _, w = data(seed=9)
    est = KernelKGroups(3, random_state=0, **fit).fit(X, sample_weight=w)
    d, s, lab = est.transform(X), est.cluster_weights_, est.labels_
    own = d[np.arange(40), lab] * s[lab] / (s[lab] - w)
    other = d * s / (s + w[:, None])
    other[np.arange(40), lab] = np.inf
    assert (own <= other.min(axis=1) * (1 + 1e-9) + 1e-12).all()
    assert (d.argmin(axis=1) == lab).all()
    if fit["engine"] != "low-rank":
        assert improving_moves(X, lab, sample_weight=w, **fit) == 0


@pytest.mark.parametrize("fit", FITS)
def test_lloyd_fixed_point_in_terms_of_transform(fit):
    X, _, w = data(seed=10)
    est = KernelKMeans(3, random_state=0, **fit).fit(X, sample_weight=w)
    np.testing.assert_array_equal(est.transform(X).argmin(axis=1), est.labels_)


# -- units, rescaled data, weights ------------------------------------------------
@pytest.mark.parametrize("Est", ESTS)
@pytest.mark.parametrize("c", [1e200, 3e-150])
@pytest.mark.parametrize("semimetric, params, power", [("energy", {"alpha": 1.0}, 1.0),
                                                        ("energy", {"alpha": 0.5}, 0.5),
                                                        ("gaussian", {"sigma": 2.0}, 0.0)])
def test_transform_is_in_the_units_of_the_data(Est, c, semimetric, params, power):
    X, Xn, w = data(seed=11)
    base = Est(3, semimetric=semimetric, random_state=0, **params).fit(X, sample_weight=w)
    if "sigma" in params:
        params = {"sigma": params["sigma"] * c}
    big = Est(3, semimetric=semimetric, init=base.labels_, **params)
    big.fit(X * c, sample_weight=w)
    assert big._scale != 1.0  # the data were rescaled internally
    np.testing.assert_array_equal(big.labels_, base.labels_)
    np.testing.assert_allclose(big.transform(Xn * c) / c**power, base.transform(Xn),
                               rtol=1e-9)


@pytest.mark.parametrize("Est", ESTS)
def test_integer_weights_are_repeated_rows(Est):
    X, Xn, _ = data(seed=12)
    reps = np.random.default_rng(0).integers(1, 4, X.shape[0])
    a = Est(3, random_state=0).fit(X, sample_weight=reps.astype(float))
    b = Est(3, init=np.repeat(a.labels_, reps)).fit(np.repeat(X, reps, axis=0))
    np.testing.assert_allclose(a.transform(Xn), b.transform(Xn), rtol=1e-10)


# -- fit_transform, precomputed Gram ----------------------------------------------
@pytest.mark.parametrize("Est", ESTS)
@pytest.mark.parametrize("engine", ["dense", "matrix-free", "low-rank"])
def test_fit_transform_is_fit_then_transform(Est, engine):
    X, _, w = data(seed=13)
    kw = {"engine": engine, "random_state": 0, "n_components": 10}
    got = Est(3, **kw).fit_transform(X, sample_weight=w)
    np.testing.assert_array_equal(got, Est(3, **kw).fit(X, sample_weight=w).transform(X))


@pytest.mark.parametrize("Est", ESTS)
def test_precomputed_gram_cannot_be_transformed(Est):
    X, Xn, _ = data(seed=14)
    K = -0.5 * pairwise(X)
    est = Est(3, kernel="precomputed", random_state=0).fit(K)
    with pytest.raises(ValueError, match=rf"{Est.__name__}: transform needs K\(x, x\)"):
        est.transform(-0.5 * pairwise(Xn, X))
    with pytest.raises(ValueError, match=rf"{Est.__name__}: fit_transform needs K\(x, x\)"):
        Est(3, kernel="precomputed").fit_transform(K)


# -- feature names, set_output, scikit-learn's transformer checks --------------------
@pytest.mark.parametrize("Est", ESTS)
def test_feature_names_and_tags(Est):
    X, _, _ = data(seed=15)
    est = Est(3, random_state=0).fit(X)
    prefix = Est.__name__.lower()
    assert est.get_feature_names_out().tolist() == [f"{prefix}{i}" for i in range(3)]
    assert is_clusterer(est) and est.__sklearn_tags__().transformer_tags is not None


@pytest.mark.parametrize("Est", ESTS)
def test_set_output_pandas(Est):
    pd = pytest.importorskip("pandas")
    X, Xn, w = data(seed=16)
    est = Est(3, random_state=0).set_output(transform="pandas")
    out = est.fit_transform(pd.DataFrame(X, columns=["a", "b", "c"]), sample_weight=w)
    assert isinstance(out, pd.DataFrame)
    assert out.columns.tolist() == [f"{Est.__name__.lower()}{i}" for i in range(3)]
    new = est.transform(pd.DataFrame(Xn, columns=["a", "b", "c"]))
    np.testing.assert_array_equal(new.to_numpy(), est.set_output(transform="default")
                                  .transform(pd.DataFrame(Xn, columns=["a", "b", "c"])))


# Not yielded by parametrize_with_checks (scikit-learn runs them in its own suite). The
# pandas checks mix DataFrames and arrays on purpose, hence scikit-learn's own warnings.
OUTPUT_CHECKS = [ec.check_set_output_transform, ec.check_set_output_transform_pandas,
                 ec.check_global_output_transform_pandas,
                 ec.check_transformer_get_feature_names_out,
                 ec.check_transformer_get_feature_names_out_pandas,
                 ec.check_get_feature_names_out_error]


@pytest.mark.filterwarnings("ignore:X (does not have valid|has) feature names:UserWarning")
@pytest.mark.parametrize("Est", ESTS)
@pytest.mark.parametrize("check", OUTPUT_CHECKS, ids=lambda c: c.__name__)
def test_sklearn_output_checks(Est, check):
    check(Est.__name__, Est(n_clusters=3, random_state=0))
