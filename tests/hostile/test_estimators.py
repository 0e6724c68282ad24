"""Hostile inputs to the estimators and their function forms (issue: one front door).

Each case ends in a clear error naming the callable, the parameter and the
value, or in a correct answer: ``n_clusters`` non-empty clusters and a finite
objective (and, on the exact engines, no improving single move left).
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgroups import (KernelKGroups, KernelKMeans, improving_moves, kernel_kgroups, kernel_kmeans,
                     pairwise)
from kgroups._validation import InvalidParameterError
from kgroups.metrics import ari

ESTIMATORS = [KernelKGroups, KernelKMeans]
RNG = np.random.default_rng(0)
X20 = RNG.normal(size=(20, 3))
D20 = np.sqrt(((X20[:, None] - X20[None]) ** 2).sum(-1))


def _check_partition(est, k):
    counts = np.bincount(est.labels_, minlength=k)
    assert counts.shape == (k,) and counts.min() >= 1, counts
    assert np.isfinite(est.objective_) and np.isfinite(est.within_energy_)


# --------------------------------------------------------------- never an empty cluster
EMPTY_CASES = [
    (KernelKGroups, {"n_clusters": 2}, np.ones((20, 3))),
    (KernelKGroups, {"n_clusters": 2, "init": "kernel-k-means++"}, np.ones((20, 3))),
    (KernelKGroups, {"n_clusters": 2, "engine": "low-rank", "n_components": 1}, np.ones((20, 3))),
    (KernelKGroups, {"n_clusters": 2, "dtype": "float32"}, np.ones((20, 3))),
    (KernelKGroups, {"n_clusters": 5}, np.repeat(X20[:3], 10, 0)),
    (KernelKGroups, {"n_clusters": 4, "engine": "matrix-free"}, np.repeat(X20[:2], 1000, 0)),
    (KernelKGroups, {"n_clusters": 3, "init": "random"}, np.ones((10, 2))),
    (KernelKGroups, {"n_clusters": 3, "init": "spectral"}, np.ones((10, 2))),
    (KernelKGroups, {"n_clusters": 3, "init": np.array([0, 0, 0, 0, 1, 1, 1, 1, 1, 1])},
     X20[:10]),
    (KernelKMeans, {"n_clusters": 3, "init": "random"}, np.ones((10, 2))),
    (KernelKMeans, {"n_clusters": 3, "init": "spectral"}, np.ones((10, 2))),
    (KernelKMeans, {"n_clusters": 3, "init": np.zeros(10, dtype=int)}, X20[:10]),
    (KernelKMeans, {"n_clusters": 5}, np.repeat(X20[:3], 10, 0)),
    (KernelKMeans, {"n_clusters": 4, "engine": "matrix-free"}, np.repeat(X20[:2], 1000, 0)),
    (KernelKGroups, {"n_clusters": 3, "semimetric": "precomputed"}, np.zeros((6, 6))),
    (KernelKGroups, {"n_clusters": 2, "kernel": "precomputed"}, np.ones((6, 6))),
]


@pytest.mark.parametrize("Est, params, X", EMPTY_CASES)
def test_never_an_empty_cluster(Est, params, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # KernelKMeans may warn that ties cycle
        est = Est(random_state=0, **params).fit(X)
    _check_partition(est, params["n_clusters"])


def test_function_form_fills_clusters():
    res = kernel_kgroups(np.ones((10, 2)), 3)
    assert np.bincount(res.labels, minlength=3).min() >= 1


# --------------------------------------------------------------- never NaN
@pytest.mark.parametrize("Est", ESTIMATORS)
@pytest.mark.parametrize("factor", [1e200, 1e-200, 1e300])
def test_extreme_scales_give_the_same_partition_and_scaled_w(Est, factor):
    X = np.vstack([RNG.normal(0, 1, (30, 2)), RNG.normal(5, 1, (30, 2))])
    ref = Est(2, random_state=0).fit(X)
    est = Est(2, random_state=0).fit(X * factor)
    np.testing.assert_array_equal(est.labels_, ref.labels_)
    assert est.within_energy_ == pytest.approx(ref.within_energy_ * factor, rel=1e-12)
    np.testing.assert_array_equal(est.predict(X * factor), ref.predict(X))


@pytest.mark.parametrize("factor", [2.0 ** -1000, 1e300])
def test_n_clusters_auto_at_extreme_scales_finds_the_same_k_in_the_same_geometry(factor):
    # two parallel cigars: k = 2 found on the multimodal axes of X sphered; the map
    # there, made on X times a power of two, takes the caller's X
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(100, 2)) * [6, 0.5] + [0, 4 * j] for j in (0, 1)])
    ref = KernelKGroups("auto", random_state=0).fit(X)
    est = KernelKGroups("auto", random_state=0).fit(X * factor)
    assert (est.n_clusters_, est.n_clusters_choice_.geometry) == (2, "multimodal axes")
    assert ari(est.labels_, ref.labels_) == 1.0
    assert ari(est.predict(X * factor), ref.predict(X)) == 1.0
    assert est.within_energy_ == pytest.approx(ref.within_energy_, rel=1e-9)  # unit-free


def test_gaussian_scales_with_sigma():
    X = np.vstack([RNG.normal(0, 1, (30, 2)), RNG.normal(5, 1, (30, 2))])
    ref = KernelKGroups(2, semimetric="gaussian", sigma=2.0, random_state=0).fit(X)
    big = KernelKGroups(2, semimetric="gaussian", sigma=2e250, random_state=0).fit(X * 1e250)
    np.testing.assert_array_equal(big.labels_, ref.labels_)
    assert big.within_energy_ == pytest.approx(ref.within_energy_, rel=1e-12)


@pytest.mark.parametrize("params, match", [
    ({"semimetric": "localized"}, r"magnitude .* semimetric='localized' is not scale-free"),
    ({"alpha": 2.0}, r"beyond the float64 range"),
])
def test_unscalable_data_get_clear_errors(params, match):
    with pytest.raises(ValueError, match=match):
        KernelKGroups(2, random_state=0, **params).fit(X20 * 1e200)


@pytest.mark.parametrize("engine", ["dense", "matrix-free", "low-rank"])
@pytest.mark.parametrize("method", ["predict", "transform", "score"])
@pytest.mark.parametrize("semimetric, alpha, factor", [("energy", 1.0, 1e160),
                                                       ("energy", 2.0, 1e153),
                                                       ("gaussian", 1.0, 1e160)])
def test_new_rows_out_of_float64_range_are_named(engine, method, semimetric, alpha, factor):
    # The squared distances of the new rows to the training rows (1e306 for 1e153
    # with alpha = 2, summed over 20 rows) overflow: the error names the method and
    # X, not the pairwise block where the overflow would happen.
    est = KernelKGroups(2, semimetric=semimetric, alpha=alpha, engine=engine,
                        random_state=0).fit(X20)
    with pytest.raises(InvalidParameterError,
                       match=rf"^KernelKGroups\.{method}: the values of semimetric="
                             rf"'{semimetric}' overflow float64 .* X holds rows too far "
                             "from the training rows"):
        getattr(est, method)(X20 * factor)
    # in range, the same rows give finite answers
    assert np.all(np.isfinite(np.asarray(getattr(est, method)(X20 * 1e3), dtype=float)))


@pytest.mark.parametrize("engine", ["dense", "matrix-free", "low-rank"])
def test_score_of_many_new_rows_bounds_their_own_sums(engine):
    # 2,000 new rows at 1e151 with alpha = 2: each value (about 1e303) and its sum over
    # the 20 training rows fit float64, but a cluster's sum over the pairs of new rows
    # (up to 2,000**2 of them) does not: score names X, it does not return -inf.
    est = KernelKGroups(2, alpha=2.0, engine=engine, random_state=0).fit(X20)
    Z = np.random.default_rng(1).normal(size=(2000, X20.shape[1]))
    assert set(est.predict(Z * 1e151).tolist()) <= {0, 1}
    with pytest.raises(InvalidParameterError, match=r"^KernelKGroups\.score: the values of "
                                                    r"semimetric='energy' overflow float64"):
        est.score(Z * 1e151)
    assert np.isfinite(est.score(Z * 1e3))


@pytest.mark.parametrize("engine", ["dense", "matrix-free", "low-rank"])
@pytest.mark.parametrize("c", [1e-300, 1e160, 1e300])
def test_score_is_linear_in_weights_of_any_magnitude(engine, c):
    # W is linear in the weights (TPAMI eq. 15): weights c times larger give c times the
    # score, at magnitudes where w_x w_y overflows or underflows float64 (was -inf)
    est = KernelKGroups(2, engine=engine, random_state=0).fit(X20)
    Z = np.random.default_rng(2).normal(size=(50, X20.shape[1]))
    w = np.random.default_rng(3).uniform(0.5, 2.0, 50)
    assert est.score(Z, sample_weight=w * c) / c == pytest.approx(
        est.score(Z, sample_weight=w), rel=1e-12)


@pytest.mark.parametrize("engine", ["dense", "matrix-free", "low-rank"])
def test_the_training_rows_far_from_the_origin_are_in_range(engine):
    # Rows 2**540 from the origin (their spread lost to rounding: equal rows): their
    # squared norms overflow, their distances do not. The range of new rows is judged
    # from the centre the fit measures from, so a fit's own rows are never refused.
    X = X20 * 1024.0 + 2.0 ** 540
    est = KernelKGroups(2, engine=engine, random_state=0).fit(X)
    assert set(est.predict(X).tolist()) <= {0, 1}
    assert np.all(np.isfinite(est.transform(X))) and np.isfinite(est.score(X))


@pytest.mark.parametrize("fit, owner", [
    (lambda X, w: KernelKMeans(2, alpha=2.0).fit(X, sample_weight=w), "KernelKMeans"),
    (lambda X, w: kernel_kmeans(X, 2, alpha=2.0, sample_weight=w), "kernel_kmeans: KernelKMeans"),
])
def test_an_objective_beyond_float64_names_the_weights_that_put_it_there(fit, owner):
    # values of 1e220 times weights of 1e137: the fit runs on rescaled copies, but W in
    # the data's units and weights' is past float64; the error names both remedies
    X = np.array([[0.0], [1.0], [3.0], [7.0]])
    with pytest.raises(InvalidParameterError, match=rf"^{owner}: the objective of the "
                       r"partition found is beyond the float64 range .* divide X or "
                       r"sample_weight by a constant$"):
        fit(X * 1e110, np.full(4, 1e137))
    done = fit(X * 1e110, None)  # the same data unweighted: W of about 1e220
    assert np.isfinite(getattr(done, "within_energy_", getattr(done, "within_energy", None)))


@pytest.mark.parametrize("semimetric, advice", [
    ("energy", r"homogeneous of degree alpha"),
    ("gaussian", r"dividing sigma by the same number keeps the semimetric's values"),
    ("laplacian", r"dividing sigma by the same number keeps the semimetric's values"),
    ("sinusoidal", r"dividing theta by the same number"),
    ("localized", r"no scale parameter: its values change with the scale"),
])
def test_rescale_advice_fits_the_semimetric(semimetric, advice):
    with pytest.raises(InvalidParameterError, match=r"pairwise: .* rescale X, .*" + advice):
        pairwise(X20 * 1e200, semimetric=semimetric)


def test_precomputed_overflow_is_refused():
    with pytest.raises(ValueError, match=r"overflow float64; divide X by a constant"):
        KernelKGroups(2, kernel="precomputed").fit(np.eye(5) * 1e308)


def test_callable_semimetric_returning_nan_is_named():
    def bad(A, B):
        out = np.abs(A[:, :1] - B[:, 0])
        out[0, -1] = np.nan
        return out
    with pytest.raises(ValueError, match=r"semimetric"):
        KernelKGroups(2, semimetric=bad, engine="dense").fit(X20)


# --------------------------------------------------------------- clear errors
PARAM_CASES = [
    ({"n_clusters": 0}, r"KernelK\w+: n_clusters=0 should be 'auto' or an integer >= 1$"),
    ({"n_clusters": 2.0}, r"n_clusters=2.0 should be 'auto' or an integer >= 1$"),
    ({"n_clusters": True}, r"n_clusters=True should be 'auto' or an integer >= 1$"),
    ({"n_clusters": 21}, r"n_samples=20 should be >= n_clusters=21"),
    ({"n_init": 0}, r"n_init=0 should be 'auto' or an integer >= 1$"),
    ({"n_init": 1.5}, r"n_init=1.5 should be 'auto' or an integer >= 1$"),
    ({"max_iter": -1}, r"max_iter=-1 should be an integer >= 1"),
    ({"tol": 1}, r"tol=1 should be a number in \[0, 1\)"),
    ({"tol": float("nan")}, r"tol=nan should be a number"),
    ({"engine": "tpu"}, r"engine='tpu' should be one of"),
    ({"dtype": "bogus"}, r"dtype='bogus' should be one of 'auto', 'float64', 'float32' or a numpy"),
    ({"dtype": np.int64}, r"dtype=.* should be one of"),
    ({"dtype": np.array(2.0)}, r"dtype=array\(2\.\) should be one of"),
    ({"dtype": np.dtype("float16")}, r"dtype=dtype\('float16'\) should be one of"),
    ({"landmarks": "x"}, r"landmarks='x' should be one of"),
    ({"n_components": 0}, r"n_components=0 should be an integer >= 1"),
    ({"random_state": "seed"}, r"random_state='seed' should be None, an integer"),
    ({"random_state": -1}, r"random_state=-1 should be None, an integer"),
    ({"verbose": -1}, r"verbose=-1 should be an integer >= 0"),
    ({"alpha": 0}, r"alpha=0 should be a number in \(0, 2\]"),
    ({"alpha": 2.5}, r"alpha=2.5 should be a number in \(0, 2\]"),
    ({"sigma": -1.0}, r"sigma=-1.0 should be a number > 0"),
    ({"theta": float("inf")}, r"theta=inf should be a number > 0"),
    ({"semimetric": "cosine"}, r"semimetric='cosine' should be one of .* or a callable"),
    ({"kernel": "rbf"}, "kernel='rbf' should be None or 'precomputed'$"),
    ({"init": "kmeans"}, r"init='kmeans' should be one of"),
    ({"init": 3}, r"init=3 should be one of"),
    ({"init": np.array(["a", "b"] * 10)}, r"init labels should be integers"),
    ({"init": np.arange(19)}, r"init labels have shape \(19,\), expected \(20,\)"),
    ({"init": np.r_[np.zeros(19), 0.5]}, r"init labels should be integers"),
    ({"init": np.r_[np.zeros(19), -1]}, r"init labels should lie in \[0, 1\]"),
    ({"init": np.r_[np.zeros(19), 2]}, r"init labels should lie in \[0, 1\]"),
    ({"init": np.r_[np.zeros(19), np.nan]}, r"init labels should be integers"),
    ({"init": np.zeros((2, 19))},
     r"init labels have shape \(2, 19\), expected \(20,\) or \(n_starts, 20\)"),
    ({"init": np.zeros((0, 20))}, r"init labels have shape \(0, 20\)"),
    ({"init": np.zeros((1, 2, 20))}, r"init labels have shape \(1, 2, 20\)"),
    ({"init": np.stack([np.zeros(20), np.r_[np.zeros(19), 2]])},
     r"init\[1\] should lie in \[0, 1\], got min=0 max=2"),
    ({"init": np.stack([np.zeros(20), np.full(20, 0.5)])}, r"init\[1\] should be integers"),
    ({"init": [[0] * 20, [1] * 19]}, r"init labels should be an array of integer labels, "
                                     r"got a ragged sequence"),
]


@pytest.mark.parametrize("Est", ESTIMATORS)
@pytest.mark.parametrize("params, match", PARAM_CASES)
def test_bad_parameters_are_named(Est, params, match):
    params = {"n_clusters": 2, **params}
    with pytest.raises(ValueError, match=match):
        Est(**params).fit(X20)


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_a_numpy_dtype_is_its_name(Est):
    """dtype=np.dtype("float32") is dtype="float32" (numpy's own spelling of it)."""
    for name in ("float32", "float64"):
        a = Est(2, dtype=name, random_state=0).fit(X20)
        b = Est(2, dtype=np.dtype(name), random_state=0).fit(X20)
        np.testing.assert_array_equal(a.labels_, b.labels_)
        assert a.within_energy_ == b.within_energy_


def test_contradictory_precomputed_settings():
    with pytest.raises(ValueError, match="contradict each other"):
        KernelKGroups(2, kernel="precomputed", semimetric="precomputed").fit(D20)


INPUT_CASES = [
    (X20[:, :, None], {}, {}, r"3"),
    (np.empty((0, 3)), {}, {}, r"X has 0 sample\(s\) \(shape=\(0, 3\)\) while a minimum of 1"),
    (np.empty((20, 0)), {}, {}, r"X has 0 feature\(s\) \(shape=\(20, 0\)\) while a"),
    (np.where(np.eye(20, 3) > 0, np.nan, X20), {}, {}, r"NaN"),
    (np.where(np.eye(20, 3) > 0, np.inf, X20), {}, {}, r"infinity"),
    (np.array([["a", "b"]] * 20), {}, {}, r"holds text"),
    (sp.csr_matrix(X20), {}, {}, r"[Ss]parse"),
    (X20, {}, {"sample_weight": np.zeros(20)}, r"every sample_weight is zero; at least"),
    (X20, {}, {"sample_weight": -np.ones(20)}, r"sample_weight\[0\]=-1.0"),
    (X20, {}, {"sample_weight": np.r_[np.ones(19), np.nan]}, r"sample_weight\[19\]=nan"),
    (X20, {}, {"sample_weight": np.ones(19)}, r"sample_weight has shape \(19,\), expected \(20,\)"),
    (X20, {}, {"sample_weight": sp.csr_matrix(np.ones((1, 20)))}, r"sample_weight should be"),
    (X20, {}, {"sample_weight": "heavy"}, r"sample_weight='heavy' should be an array"),
    (np.ones((3, 4)), {"kernel": "precomputed"}, {}, r"square \(n_samples, n_samples\)"),
    (np.triu(np.ones((4, 4))), {"kernel": "precomputed"}, {}, r"should be symmetric"),
    (D20 - 1.0, {"semimetric": "precomputed"}, {}, r"non-negative|zero diagonal"),
    (D20 + np.eye(20), {"semimetric": "precomputed"}, {}, r"zero diagonal"),
]


@pytest.mark.parametrize("Est", ESTIMATORS)
@pytest.mark.parametrize("X, params, fit_kw, match", INPUT_CASES)
def test_bad_inputs_are_named(Est, X, params, fit_kw, match):
    with pytest.raises((ValueError, TypeError), match=match) as info:
        Est(2, **params).fit(X, **fit_kw)
    assert str(info.value).startswith(f"{Est.__name__}: ")  # scikit-learn's words too


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_predict_checks_its_input(Est):
    est = Est(2, random_state=0).fit(X20)
    with pytest.raises(ValueError, match=f"^{Est.__name__}: X has 2 features, but"):
        est.predict(X20[:, :2])
    with pytest.raises(ValueError, match=f"^{Est.__name__}: .*sparse input is supported only"):
        est.predict(sp.csr_matrix(X20))
    with pytest.raises(ValueError, match="NaN"):
        est.predict(np.full((2, 3), np.nan))
    with pytest.raises(Exception, match="not fitted"):
        Est(2).predict(X20)


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_a_numpy_matrix_is_its_rows(Est):
    """np.matrix holds rows of numbers as an array does (the functions take it): the same
    fit, and the same predict."""
    a = Est(2, random_state=0).fit(X20)
    m = Est(2, random_state=0).fit(np.asmatrix(X20))
    np.testing.assert_array_equal(m.labels_, a.labels_)
    np.testing.assert_array_equal(m.predict(np.asmatrix(X20[:5])), a.predict(X20[:5]))


def test_function_forms_name_their_parameters():
    with pytest.raises(ValueError, match=r"kernel_kgroups: n_clusters=0"):
        kernel_kgroups(X20, 0)
    with pytest.raises(TypeError, match=r"kernel_kgroups: unexpected parameter\(s\) \['bogus'\]"):
        kernel_kgroups(X20, 2, bogus=1)
    with pytest.raises(ValueError, match=r"improving_moves: labels should lie"):
        improving_moves(X20, np.r_[np.zeros(19, int), -1])
    from kgroups import energy_hclust

    for call in (lambda Z: kernel_kgroups(Z, 2), lambda Z: improving_moves(Z, np.arange(20) % 2),
                 lambda Z: energy_hclust(Z, 2)):
        with pytest.raises(ValueError, match=r"^(kernel_kgroups|improving_moves|energy_hclust): "
                           r".*sparse input is supported only"):
            call(sp.csr_matrix(X20))


# --------------------------------------------------------------- property-based
values = st.sampled_from([0.0, 1.0, -1.0, 1e-3, 2.5, 1e6, -7.0])


@st.composite
def problems(draw):
    n = draw(st.integers(1, 14))
    d = draw(st.integers(1, 3))
    X = np.array(draw(st.lists(st.lists(values, min_size=d, max_size=d), min_size=n,
                               max_size=n)))
    k = draw(st.integers(1, n))
    return X, k


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.sampled_from(["dense", "matrix-free"]),
       st.sampled_from(["k-means++", "kernel-k-means++", "random"]), st.integers(0, 3))
def test_any_small_input_gives_k_nonempty_clusters_at_a_hartigan_optimum(
        prob, engine, init, seed):
    X, k = prob
    est = KernelKGroups(k, engine=engine, init=init, random_state=seed).fit(X)
    _check_partition(est, k)
    assert improving_moves(X, est.labels_, engine=engine) == 0


@settings(max_examples=30, deadline=None)
@given(problems(), st.integers(0, 3))
def test_kernel_kmeans_any_small_input(prob, seed):
    X, k = prob
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = KernelKMeans(k, init="random", random_state=seed).fit(X)
    _check_partition(est, k)


@pytest.mark.parametrize("engine", ["dense", "low-rank"])
def test_generator_random_state_seeds_every_engine(engine):
    """The table accepts a numpy Generator; the estimator and the low-rank features
    are seeded from it the same way (one seeding rule), reproducibly."""
    fits = [KernelKGroups(3, engine=engine, n_components=10, random_state=np.random.default_rng(4))
            .fit(X20) for _ in range(2)]
    np.testing.assert_array_equal(fits[0].labels_, fits[1].labels_)
    _check_partition(fits[0], 3)


def test_given_labels_are_checked_before_the_verbose_report():
    """With verbose, a ragged init used to reach numpy's error while the report
    described the starts; the labels are now checked first."""
    with pytest.raises(ValueError, match="init labels should be an array of integer labels"):
        KernelKGroups(2, init=[[0] * 20, [1] * 19], verbose=1).fit(X20)


# ------------------------------------------------------ errors in kgroups' words (issue 35)
def public_estimators():
    """Every public estimator class of kgroups and its subpackages, by name."""
    import kgroups
    import kgroups.graph
    from sklearn.base import BaseEstimator

    found = {}
    for module in (kgroups, kgroups.graph):
        for name in module.__all__:
            obj = getattr(module, name)
            if isinstance(obj, type) and issubclass(obj, BaseEstimator):
                found[name] = obj
    return found


NAN_X = X20[:12].copy()
NAN_X[3, 1] = np.nan
INF_X = NAN_X.copy()
INF_X[3, 1] = -np.inf
# how each public estimator is built and what it is fitted on (a new one must be added)
ESTIMATOR_DATA = {
    "KernelKGroups": (lambda: KernelKGroups(2, random_state=0), X20),
    "KernelKMeans": (lambda: KernelKMeans(2, random_state=0), X20),
    "EnergyHierarchical": (lambda: __import__("kgroups").EnergyHierarchical(2), X20),
}
METHODS = ("predict", "transform", "score", "fit_predict", "fit_transform", "fit")


def test_every_public_estimator_is_listed_here():
    assert set(public_estimators()) == set(ESTIMATOR_DATA) | {"CommunityKGroups"}


@pytest.mark.parametrize("name", sorted(ESTIMATOR_DATA))
@pytest.mark.parametrize("bad, text", [(NAN_X, "nan"), (INF_X, "-inf")])
def test_non_finite_input_names_the_entry(name, bad, text):
    """Every method that takes data names the class and the first bad entry, as
    energy_distance does (not scikit-learn's text, which suggests its gradient-boosting
    models)."""
    make, X = ESTIMATOR_DATA[name]
    fitted = make().fit(X)
    fix = ("NaN marks a missing value: drop those rows or impute them first (for example "
           "scikit-learn's SimpleImputer in a Pipeline before the estimator)" if text == "nan"
           else "drop those rows, or rescale X so that every value is finite")
    expected = (f"{name}: X contains NaN or infinity: X[3, 1]={text}; "
                f"expected finite values; {fix}")
    for method in METHODS:
        if not hasattr(fitted, method):
            continue
        est = fitted if method in ("predict", "transform", "score") else make()
        with pytest.raises(InvalidParameterError) as info:
            getattr(est, method)(bad)
        assert str(info.value) == expected, (method, str(info.value))


def test_community_kgroups_names_a_non_finite_edge():
    from kgroups.graph import CommunityKGroups

    A = np.ones((6, 6)) - np.eye(6)
    A[1, 2] = A[2, 1] = np.nan
    with pytest.raises(InvalidParameterError, match=r"^CommunityKGroups: .*\(1, 2\) = nan"):
        CommunityKGroups(2).fit(A)


@pytest.mark.parametrize("name", sorted(set(ESTIMATOR_DATA) | {"CommunityKGroups"}))
def test_bad_keyword_names_the_class(name):
    """The class called is named (not ``BaseKernelClustering``, which defines the
    signature), with the parameter meant for a likely slip."""
    cls = public_estimators()[name]
    with pytest.raises(TypeError) as info:
        cls(k=3)
    assert str(info.value).startswith(
        f"{name}.__init__() got an unexpected keyword argument 'k' (did you mean "
        "n_clusters?); expected parameters: n_clusters, "), str(info.value)
    with pytest.raises(TypeError, match=rf"^{name}.__init__\(\) got an unexpected keyword "
                                        r"argument 'n_cluster' \(did you mean n_clusters\?\)"):
        cls(n_cluster=3)
    with pytest.raises(TypeError, match=rf"^{name}.__init__\(\) too many positional arguments "
                                        r"\(positional: n_clusters; pass the others by name\)"):
        cls(3, 4)
    with pytest.raises(ValueError, match=rf"Invalid parameter 'k' for estimator {name}"):
        cls().set_params(k=3)


def test_signature_of_the_estimators_is_their_own():
    """scikit-learn reads the parameters from ``__init__``'s signature: the wrapper that
    names the class keeps it (get_params, clone and repr unchanged)."""
    import inspect

    from sklearn.base import clone

    for name, cls in public_estimators().items():
        params = list(inspect.signature(cls.__init__).parameters)
        assert params[:2] == ["self", "n_clusters"], (name, params)
        assert cls.__init__.__qualname__ == f"{name}.__init__"
    est = KernelKGroups(3, alpha=0.5, random_state=1)
    assert clone(est).get_params() == est.get_params()
    assert repr(est) == "KernelKGroups(alpha=0.5, n_clusters=3, random_state=1)"
