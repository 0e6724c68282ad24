"""Hostile inputs for the engines, the memory guard and ``pairwise``: each case gets a
clear error naming the value, or a correct answer (exact engines agree, k non-empty
clusters, finite values)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import kgroups._memory as memory
from kgroups import KernelKGroups, KernelKMeans, energy_distance, pairwise
from kgroups._engines.dense import DenseEngine
from kgroups._engines.lowrank import LowRankEngine
from kgroups._engines.matrix_free import MatrixFreeEngine
from kgroups._engines.sparse import SparseEngine
from kgroups._validation import InvalidParameterError

ESTIMATORS = [KernelKGroups, KernelKMeans]
SEMIS = [("energy", {"alpha": 1.0}), ("energy", {"alpha": 0.3}), ("energy", {"alpha": 2.0}),
         ("gaussian", {"sigma": 0.9}), ("laplacian", {"sigma": 1.1}), ("localized", {}),
         ("sinusoidal", {"theta": 3.0})]


def data(n=40, d=2, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


def euclid(A, B):
    return np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))


def brute_rho(X, Y, semimetric, params):
    r = euclid(X, Y)
    return {"energy": lambda: r ** params.get("alpha", 1.0),
            "gaussian": lambda: 2 - 2 * np.exp(-r**2 / (2 * params["sigma"] ** 2)),
            "laplacian": lambda: 2 - 2 * np.exp(-r / (2 * params["sigma"])),
            "localized": lambda: r**2 * np.exp(-r / 2),
            "sinusoidal": lambda: r**2 * params["theta"] * np.sin(r / params["theta"])
            }[semimetric]()


# -- forced engines on inputs they cannot take ---------------------------------------

X40 = data()
GRAM = X40 @ X40.T
RHO = euclid(X40, X40)
FORCED = [
    ({"engine": "sparse"}, X40, r"engine='sparse' needs a scipy.sparse precomputed Gram"),
    ({"engine": "sparse", "kernel": "precomputed"}, GRAM, "got a dense Gram matrix"),
    ({"engine": "sparse", "semimetric": "precomputed"}, sp.csr_matrix(RHO),
     "sparse semimetric matrix"),
    ({"engine": "matrix-free", "semimetric": euclid}, X40, "needs a named semimetric"),
    ({"engine": "matrix-free", "semimetric": "precomputed"}, RHO, "needs raw data"),
    ({"engine": "matrix-free", "kernel": "precomputed"}, GRAM, "needs raw data"),
    ({"engine": "low-rank", "kernel": "precomputed"}, GRAM, "needs raw data"),
    ({"engine": "low-rank", "semimetric": "precomputed"}, RHO, "needs raw data"),
    ({"engine": "low-rank", "landmarks": "fourier", "n_components": 5}, X40,
     "landmarks='fourier'"),
]


@pytest.mark.parametrize("Est", ESTIMATORS)
@pytest.mark.parametrize("params, X, match", FORCED)
def test_forced_engine_on_input_it_cannot_take(Est, params, X, match):
    with pytest.raises(ValueError, match=match):
        Est(2, **params).fit(X)


@pytest.mark.parametrize("call, match", [
    (lambda: SparseEngine.from_semimetric(X40, np.ones(40), "energy", {}, n_clusters=2),
     "engine='sparse' needs"),
    (lambda: SparseEngine.from_matrix(GRAM, np.ones(40), is_gram=True, n_clusters=2),
     "needs a scipy.sparse matrix, got ndarray"),
    (lambda: MatrixFreeEngine.from_matrix(RHO, np.ones(40), is_gram=False, n_clusters=2),
     "needs raw data"),
    (lambda: LowRankEngine.from_matrix(GRAM, np.ones(40), is_gram=True, n_clusters=2),
     "needs raw data"),
    (lambda: MatrixFreeEngine.from_semimetric(X40, np.ones(40), euclid, {}, n_clusters=2),
     "named semimetric"),
    (lambda: LowRankEngine.from_semimetric(X40, np.ones(40), "energy", {}, n_clusters=2,
                                           options={"landmarks": "grid"}),
     "landmarks='grid'"),
])
def test_backend_constructors_refuse_clearly(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# -- callable semimetrics that return garbage ---------------------------------------

def nan_at(i, j):
    def semimetric(A, B):
        out = euclid(A, B)
        if out.shape[0] > i and out.shape[1] > j:
            out[i, j] = np.nan
        return out
    semimetric.__name__ = semimetric.__qualname__ = f"nan_at_{i}_{j}"
    return semimetric


def returns_inf(A, B):
    out = euclid(A, B)
    out[0, -1] = np.inf
    return out


def wrong_shape(A, B):
    return euclid(A, B)[:, :1]


def strings(A, B):
    return np.full((len(A), len(B)), "far", dtype=object)


def nothing(A, B):
    return None


def complex_values(A, B):
    return euclid(A, B) + 1j


BAD = [(nan_at(1, 2), r"returned nan for the pair \(i, j\) = \(1, 2\)"),
       (returns_inf, r"returned inf for the pair \(i, j\) = \(0, "),
       (wrong_shape, r"returned shape \(\d+, 1\), expected"),
       (strings, "expected real numbers"),
       (nothing, "expected real numbers"),
       (complex_values, "expected real numbers")]


@pytest.mark.parametrize("semimetric, match", BAD)
@pytest.mark.parametrize("entry", ["pairwise", "pairwise_xy", "energy_distance", "dense",
                                   "low-rank", "kmeans"])
def test_callable_semimetric_garbage_is_named(semimetric, match, entry):
    X, Y = data(12, 2, 1), data(9, 2, 2)
    calls = {
        "pairwise": lambda: pairwise(X, None, semimetric),
        "pairwise_xy": lambda: pairwise(X, Y, semimetric),
        "energy_distance": lambda: energy_distance(X, Y, semimetric=semimetric),
        "dense": lambda: KernelKGroups(2, semimetric=semimetric, engine="dense").fit(X),
        "low-rank": lambda: KernelKGroups(2, semimetric=semimetric, engine="low-rank",
                                          n_components=6, landmarks="uniform").fit(X),
        "kmeans": lambda: KernelKMeans(2, semimetric=semimetric).fit(X),
    }
    with pytest.raises(InvalidParameterError) as err:
        calls[entry]()
    msg = str(err.value)
    assert semimetric.__name__ in msg and "semimetric=" in msg
    if entry.startswith("pairwise"):  # the whole block at once: exact indices
        assert __import__("re").search(match, msg), msg
    if entry in ("dense", "kmeans"):  # the estimator named, not the function it calls
        assert msg.startswith(("KernelKGroups: ", "KernelKMeans: ")), msg


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 9), m=st.integers(1, 9), data_=st.data())
def test_first_bad_pair_is_named(n, m, data_):
    i = data_.draw(st.integers(0, n - 1))
    j = data_.draw(st.integers(0, m - 1))
    bad = data_.draw(st.sampled_from([np.nan, np.inf, -np.inf]))

    def semimetric(A, B):
        out = euclid(A, B)
        out[i, j] = bad
        out[i + 1:, :] = np.nan  # later rows are bad too: the first one is named
        return out

    with pytest.raises(InvalidParameterError, match=rf"\(i, j\) = \({i}, {j}\)"):
        pairwise(data(n, 3, 3), data(m, 3, 4), semimetric)


def test_a_good_callable_still_works():
    X = data(15, 2, 5)
    np.testing.assert_allclose(pairwise(X, None, euclid), pairwise(X), atol=1e-12)
    as_list = pairwise(X, None, lambda A, B: euclid(A, B).tolist())
    np.testing.assert_allclose(as_list, pairwise(X), atol=1e-12)


# -- named semimetrics that overflow --------------------------------------------------

@pytest.mark.parametrize("semimetric, params", SEMIS)
def test_pairwise_overflow_is_an_error_not_nan(semimetric, params):
    X = data(10, 3, 6) * 1e200
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow RuntimeWarning either
        with pytest.raises(InvalidParameterError, match="overflow float64.*rescale X"):
            pairwise(X, None, semimetric, **params)


@pytest.mark.parametrize("cls", [DenseEngine, MatrixFreeEngine])
@pytest.mark.parametrize("scale, alpha", [(1e200, 1.0), (1e160, 2.0), (1e155, 2.0)])
def test_exact_engines_refuse_data_whose_sums_overflow(cls, scale, alpha):
    X = data(30, 2, 7) * scale
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidParameterError, match="overflow"):
            cls.from_semimetric(X, np.ones(30), "energy", {"alpha": alpha}, n_clusters=2)


def test_large_but_finite_data_is_not_refused():
    X = data(20, 2, 8)
    R = pairwise(X * 1e150)
    assert np.all(np.isfinite(R))
    np.testing.assert_allclose(R, 1e150 * pairwise(X), rtol=1e-12)
    eng = MatrixFreeEngine.from_semimetric(X * 1e100, np.ones(20), "energy", {}, n_clusters=2)
    assert np.all(np.isfinite(eng.build_m(np.arange(20) % 2, 2)))


# -- pairwise input validation ---------------------------------------------------------

@pytest.mark.parametrize("kwargs, match", [
    ({"X": [[0.0, np.nan]]}, r"X contains NaN or infinity"),
    ({"X": np.zeros((3, 2)), "Y": np.zeros((3, 3))}, "X has 2 features but Y has 3"),
    ({"X": np.zeros((3, 2)), "semimetric": "precomputed"}, "semimetric='precomputed'"),
    ({"X": np.zeros((3, 2)), "semimetric": "euclid"}, "semimetric='euclid' should be"),
    ({"X": np.zeros((3, 2)), "alpha": 3.0}, r"alpha=3.0 should be a number in \(0, 2\]"),
    ({"X": np.zeros((3, 2)), "out": np.zeros((2, 2))}, r"(?s)out=.*shape \(3, 3\)"),
    ({"X": np.zeros((3, 2)), "wx": np.ones(4)}, "wx"),
    ({"X": sp.csr_matrix(np.eye(3))}, "scipy.sparse"),
    ({"X": [["a", "b"]]}, "should be an array of numbers"),
    ({"X": np.zeros((3, 2)), "bogus": 1}, "bogus"),
])
def test_pairwise_bad_inputs(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        pairwise(**kwargs)


# -- the memory guard counts k ----------------------------------------------------------

GUARDED = [  # engine, input, available memory: k = 2 fits, k = 400 does not
    ("dense", {}, 2 * 2**20),
    ("matrix-free", {}, 2 * 2**20),
    ("low-rank", {"n_components": 20}, 2 * 2**20),
    ("sparse", {"kernel": "precomputed"}, 2**20),
]


def guarded_input(engine):
    X = data(400, 3, 9)
    if engine != "sparse":
        return X
    A = sp.random(400, 400, density=0.01, random_state=np.random.RandomState(0))
    return sp.csr_matrix(A @ A.T + sp.eye(400))


@pytest.mark.parametrize("Est", ESTIMATORS)
@pytest.mark.parametrize("engine, params, avail", GUARDED)
def test_memory_refusal_counts_k_and_comes_before_allocation(monkeypatch, Est, engine, params,
                                                             avail):
    X = guarded_input(engine)
    monkeypatch.setattr(memory, "available_memory", lambda: avail)
    cls = {"dense": DenseEngine, "matrix-free": MatrixFreeEngine, "low-rank": LowRankEngine,
           "sparse": SparseEngine}[engine]
    Est(2, engine=engine, random_state=0, **params).fit(X)  # k = 2 fits

    def no_alloc(*args, **kwargs):
        raise AssertionError("allocated although the estimate does not fit")

    monkeypatch.setattr(cls, "__init__", no_alloc)
    with pytest.raises(ValueError) as err:
        Est(400, engine=engine, **params).fit(X)
    msg = str(err.value)
    assert f"engine={engine!r}" in msg and "n_clusters=400" in msg
    assert "bytes" in msg and "GiB available" in msg and "use " in msg


def test_memory_error_during_build_becomes_a_clear_value_error(monkeypatch):
    def out_of_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(DenseEngine, "__init__", out_of_memory)
    with pytest.raises(ValueError, match="out of memory while building engine='dense'") as err:
        KernelKGroups(2, engine="dense").fit(data(30))
    assert not isinstance(err.value, MemoryError)


# -- float32 storage -----------------------------------------------------------------

def with_duplicates(seed=10):
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(6, 2)) * 3
    return base[rng.integers(0, 6, 90)] + 1e-9 * rng.integers(0, 2, (90, 1))


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_float32_dense_matches_float64_on_duplicates(Est):
    X = with_duplicates()
    start = np.arange(90) % 3
    a = Est(3, init=start).fit(X)
    b = Est(3, init=start, dtype="float32").fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert np.bincount(b.labels_, minlength=3).min() > 0
    assert np.isfinite(b.objective_) and abs(b.objective_ / a.objective_ - 1) < 1e-5


@pytest.mark.parametrize("engine", ["dense", "sparse"])
def test_float32_precomputed_gram(engine):
    X = data(60, 2, 11)
    G = X @ X.T
    A = sp.csr_matrix(G) if engine == "sparse" else G
    start = np.arange(60) % 2
    a = KernelKGroups(2, kernel="precomputed", engine=engine, init=start).fit(A)
    b = KernelKGroups(2, kernel="precomputed", engine=engine, init=start,
                      dtype=np.float32).fit(A)
    np.testing.assert_array_equal(a.labels_, b.labels_)


def test_matrix_free_float32_is_certified_and_input_may_be_float32():
    """The certified float32 pass gives the float64 fit's labels and W (to 1e-12) on
    float32 input, which is read exactly in float64."""
    X = data(80, 3, 12).astype(np.float32)
    start = np.arange(80) % 3
    a = KernelKGroups(3, init=start, engine="matrix-free", dtype="float64").fit(X)
    b = KernelKGroups(3, init=start, engine="matrix-free", dtype="float32").fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert b.objective_ == pytest.approx(a.objective_, rel=1e-12)
    np.testing.assert_allclose(pairwise(X), euclid(X.astype(np.float64), X.astype(np.float64)),
                               rtol=1e-12, atol=1e-12)


# -- duplicates ------------------------------------------------------------------------

@pytest.mark.parametrize("semimetric, params", SEMIS)
def test_duplicates_far_from_the_origin_get_exactly_zero(semimetric, params):
    X = data(5, 3, 13) + 1e5
    R = pairwise(np.vstack([X, X, X[:2]]), None, semimetric, **params)
    for i, j in [(0, 5), (1, 6), (4, 9), (0, 10), (6, 11), (5, 10)]:
        assert R[i, j] == 0.0 and R[j, i] == 0.0


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), n_distinct=st.integers(1, 4), n=st.integers(4, 40),
       k=st.integers(2, 4), semi=st.sampled_from(SEMIS))
def test_matrix_free_build_is_exact_on_duplicate_heavy_data(seed, n_distinct, n, k, semi):
    rng = np.random.default_rng(seed)
    X = (rng.normal(size=(n_distinct, 2)) * 2 + 50.0)[rng.integers(0, n_distinct, n)]
    w = rng.uniform(0.5, 2.0, n)
    labels = rng.integers(0, k, n)
    semimetric, params = semi
    eng = MatrixFreeEngine.from_semimetric(X, w, semimetric, params, n_clusters=k)
    B = -0.5 * w[:, None] * brute_rho(X, X, semimetric, params) * w[None, :]
    Z = np.eye(k)[labels]
    scale = max(1.0, np.abs(B).max()) * n
    np.testing.assert_allclose(eng.build_m(labels, k), Z.T @ B, rtol=1e-9, atol=1e-12 * scale)
    dense = DenseEngine.from_semimetric(X, w, semimetric, params, n_clusters=k)
    np.testing.assert_allclose(dense.build_m(labels, k), Z.T @ B, rtol=1e-9,
                               atol=1e-12 * scale)


@pytest.mark.parametrize("engine", ["dense", "matrix-free", "low-rank"])
def test_two_points_repeated_many_times(engine):
    X = np.repeat(np.array([[0.0, 0.0], [5.0, 5.0]]), 300, axis=0)
    km = KernelKGroups(2, engine=engine, n_components=2, random_state=0).fit(X)
    assert np.isfinite(km.objective_)
    assert sorted(np.bincount(km.labels_).tolist()) == [300, 300]
    assert np.array_equal(km.predict(X), km.labels_)


def test_tiny_exact_engines_agree_on_duplicates():
    """Same start, same labels: dense and matrix-free on repeated rows (plain Python too)."""
    X = np.repeat(data(4, 2, 14), 3, axis=0)
    start = np.arange(12) % 3
    d = KernelKGroups(3, init=start, engine="dense").fit(X)
    m = KernelKGroups(3, init=start, engine="matrix-free").fit(X)
    np.testing.assert_array_equal(d.labels_, m.labels_)
    assert d.n_moves_ == m.n_moves_
