"""The matrix-free engine's certified float32 pass: the same labels as the float64
fit, bit for bit, and W within 1e-12, on ordinary and adversarial data (near-ties,
near-duplicates far from the origin, 1e-150 next to 1e150, one to a thousand
features, extreme weights, alpha near 0 and 2, restarts); its fall-backs to float64
counted; and the same when every decision is forced to fall back."""

import numpy as np
import pytest

from kgroups import KernelKGroups
from kgroups._engines import matrix_free as mf_engine
from kgroups._engines.matrix_free import MatrixFreeEngine


def fit(X, k, dtype, w=None, **kw):
    kw = {"n_init": 1, "init": "k-means++", "random_state": 0, **kw}
    return KernelKGroups(k, engine="matrix-free", dtype=dtype, **kw).fit(X, sample_weight=w)


def assert_same(X, k, w=None, certified=True, **kw):
    a = fit(X, k, "float64", w, **kw)
    b = fit(X, k, "float32", w, **kw)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert b.within_energy_ == pytest.approx(a.within_energy_, rel=1e-12, abs=0)
    assert a.n_iter_ == b.n_iter_
    assert list(a.n_moves_) == list(b.n_moves_)
    how = b.engine_stats_["pass_dtype"]
    assert how.startswith("float32") == certified, how
    return b


def blobs(n, d, k, seed, spread=1.0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 3, (k, d))
    return centres[rng.integers(0, k, n)] + spread * rng.normal(size=(n, d))


@pytest.mark.parametrize("D", [1, 2, 3, 8, 33])
def test_blobs_every_dimension_count(D):
    assert_same(blobs(900, D, 4, D, spread=2.0), 4)


def test_thousand_features():
    assert_same(blobs(300, 1000, 3, 1, spread=3.0), 3)


def test_restarts_share_one_pass_and_random_starts():
    X = blobs(800, 4, 5, 2, spread=1.5)
    b = assert_same(X, 5, n_init=4)
    assert b.engine_stats_["float64_groups"] == 0
    # random labels: more classes than the pass sums apart, that group in float64
    b = assert_same(X, 5, n_init=5, init="random")
    assert b.engine_stats_["float64_groups"] >= 1


@pytest.mark.parametrize("alpha", [0.02, 0.5, 1.0, 1.97, 2.0])
def test_alpha_near_0_and_2(alpha):
    assert_same(blobs(700, 3, 3, 3, spread=2.0), 3, alpha=alpha)


@pytest.mark.parametrize("semimetric, params", [("gaussian", {"sigma": 2.0}),
                                                ("laplacian", {"sigma": 1.0}),
                                                ("localized", {}),
                                                ("sinusoidal", {"theta": 3.0})])
def test_other_semimetrics(semimetric, params):
    assert_same(blobs(600, 3, 3, 4, spread=1.5), 3, semimetric=semimetric, **params)


def test_near_ties():
    """Points on a grid far from the origin, whole rows of them equidistant from two
    clusters' means: gains of 0 and within rounding of it."""
    g = np.arange(24, dtype=float)
    X = np.array([[a, b] for a in g for b in g[:12]]) * 0.1 + 1e3
    assert_same(X, 4)


def test_near_duplicates_far_from_the_origin():
    rng = np.random.default_rng(5)
    base = rng.normal(size=(8, 3)) * 3 + 1e5
    X = base[rng.integers(0, 8, 800)] + 1e-9 * rng.normal(size=(800, 3))
    assert_same(X, 8)


def test_tiny_next_to_huge():
    """1e-150 next to 1e150 after centring (rescaled by a power of two, the tiny
    points are below float32's resolution of the spread, all in one cluster)."""
    rng = np.random.default_rng(6)
    X = np.vstack([rng.normal(size=(300, 2)) * 1e-150, rng.normal(size=(300, 2)) * 1e150])
    assert_same(X, 4)


def test_spread_beyond_float32_falls_back_to_float64():
    """A spread of 1e20 (not rescaled: float64 holds its squares): beyond what the
    float32 pass certifies, the fit runs in float64 and says so."""
    rng = np.random.default_rng(7)
    X = np.vstack([rng.normal(size=(300, 2)), rng.normal(size=(300, 2)) + 1e20])
    b = assert_same(X, 3, certified=False)
    assert "not certifiable" in b.engine_stats_["pass_dtype"]


def test_wide_range_within_float32_is_certified():
    """Clusters 1e-6 across, 1e6 apart (after centring): certified, the small
    clusters' own moves decided from exact values where the bound is too wide."""
    rng = np.random.default_rng(7)
    X = np.vstack([rng.normal(size=(400, 2)) * 1e-6, rng.normal(size=(400, 2)) * 1e-6 + 1e6])
    b = assert_same(X, 4)
    assert b.engine_stats_["float64_decisions"] > 0


@pytest.mark.parametrize("spread, certified", [(1e4, True), (1e15, False)])
def test_extreme_weights(spread, certified):
    rng = np.random.default_rng(8)
    X = blobs(700, 3, 4, 8, spread=2.0)
    w = np.exp(rng.uniform(0.0, np.log(spread), X.shape[0]))
    assert_same(X, 4, w=w, certified=certified)


def test_every_decision_falls_back(monkeypatch):
    """With a bound too wide to certify anything, every decision is made again from
    exact values (its column, then q), and the fit is still the float64 fit."""
    real = MatrixFreeEngine._float32_data

    def wide(self):
        real(self)
        self._f32["eps"] = 1e6 * (self.kernel_max + 1.0)

    monkeypatch.setattr(MatrixFreeEngine, "_float32_data", wide)
    X = blobs(500, 3, 4, 9, spread=2.0)
    b = assert_same(X, 4, n_init=2)
    stats = b.engine_stats_
    assert stats["float64_decisions"] > 100 and stats["exact_q"] >= 1


def test_uncertain_sums_are_made_exact(monkeypatch):
    """With the bound of every cluster's sum q too wide, each decision that its exact
    column cannot settle makes q exact (by exact columns, or the pass over each
    cluster's own pairs when that is cheaper) and is decided from exact values."""
    real = MatrixFreeEngine.start

    def wide_q(self, starts, k, rule):
        state = real(self, starts, k, rule)
        if state.cert is not None:
            state.cert.qerr[:] = 1e6 * (self.kernel_max + 1.0) * state.s ** 2
        return state

    monkeypatch.setattr(MatrixFreeEngine, "start", wide_q)
    for init in ("k-means++", "random"):
        b = assert_same(blobs(500, 3, 4, 12, spread=2.0), 4, init=init)
        assert b.engine_stats_["exact_q"] > 1


def test_exact_q_by_the_pass_over_own_pairs(monkeypatch):
    """Many points away from their start cluster: q made exact by the float64 pass
    over each cluster's own pairs instead of their columns."""
    monkeypatch.setattr(mf_engine, "FLOAT32_MAX_CLASSES", 10 ** 6)
    X = blobs(600, 2, 3, 10, spread=3.0)
    assert_same(X, 3, init="random")


def test_auto_takes_float32_where_it_pays():
    rd = MatrixFreeEngine.resolve_dtype
    kw = {"n_clusters": 10, "n_init": 1, "semimetric": "energy", "params": {"alpha": 1.0}}
    assert rd("auto", 100_000, 10, **kw) == "auto"
    assert rd("auto", 40_000, 8, **kw) == "auto"
    assert rd("auto", 20_000, 10, **kw) == np.float64
    assert rd("auto", 100_000, 4, **kw) == np.float64
    assert rd("auto", 100_000, 10, **{**kw, "n_init": 3}) == np.float64
    assert rd("auto", 100_000, 10, **{**kw, "semimetric": "gaussian"}) == np.float64
    assert rd("auto", 100_000, 10, **{**kw, "params": {"alpha": 1.5}}) == "auto"
    assert rd("auto", 100_000, 10, **{**kw, "params": {"alpha": 0.5}}) == np.float64
    assert rd("float64", 100_000, 10, **kw) == np.float64
    assert rd("float32", 10, 10, **kw) == np.float32


def test_report_counts_the_fall_backs(monkeypatch):
    """What verbose says at the end of a fit: the pass and its fall-backs to float64."""
    X = blobs(400, 3, 4, 14, spread=2.0)
    b = fit(X, 4, "float32")
    engine = MatrixFreeEngine(X, np.ones(len(X)), "energy", {}, float32=True)
    assert engine.report().startswith("pass over the pairs in float32 (certified): 0 ")
    assert MatrixFreeEngine(X, np.ones(len(X)), "energy", {}).report() is None
    assert b.engine_stats_["float64_decisions"] >= 0


@pytest.mark.parametrize("left_out", [False, True])
def test_tiny_fit_as_python_equals_compiled(monkeypatch, left_out):
    """The whole certified fit run as Python (every kernel's twin) and compiled: the
    same operations in the same order, so the same labels and the same W; with the
    pairs of every two clusters left out too."""
    from kgroups import config_context

    if left_out:
        leave_out_everything(monkeypatch)
    X = blobs(120, 3, 3, 11, spread=2.0)
    a = fit(X, 3, "float32")
    with config_context(kernels="python"):
        b = fit(X, 3, "float32")
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.within_energy_ == b.within_energy_
    assert a.engine_stats_ == {**b.engine_stats_, "seconds": a.engine_stats_["seconds"]}
    assert (a.engine_stats_["pairs_left_out"] > 0.5) == left_out


def test_build_engine_auto_takes_the_certified_pass_where_it_pays(monkeypatch):
    """dtype="auto" through the one way from the parameters to an engine: the float32
    pass from ``AUTO_FLOAT32_MIN_N`` points (lowered here to 4,000; the same run as
    float64's), float64 below."""
    from kgroups._driver import run_starts
    from kgroups._engines.build import EngineRequest, build_engine
    from kgroups._input import IN_MEMORY

    monkeypatch.setattr(mf_engine, "AUTO_FLOAT32_MIN_N", 4000)

    def built(X, dtype):
        request = EngineRequest(
            engine="matrix-free", semimetric="energy", kernel=None, alpha=1.0, sigma=1.0,
            theta=1.0, dtype=dtype, n_clusters=6, n_starts=lambda n, max_auto=None: 1,
            init="random", rule="hartigan", n_components=256, landmarks="k-means++",
            n_neighbors=10, random_state=0, features=False, owner="test")
        return build_engine(X, np.ones(X.shape[0]), IN_MEMORY, request).engine

    X = blobs(4000, 8, 6, 13, spread=2.0)
    auto, f64 = built(X, "auto"), built(X, "float64")
    assert auto._f32 is not None and f64._f32 is None
    assert built(X[:3000], "auto")._f32 is None
    centres = X[np.random.default_rng(0).choice(X.shape[0], 6, replace=False)]
    start = np.argmin(((X[:, None] - centres[None]) ** 2).sum(-1), axis=1)
    a, b = (run_starts(e, [start], 6) for e in (f64, auto))
    np.testing.assert_array_equal(a.labels, b.labels)
    assert b.objective == pytest.approx(a.objective, rel=1e-12, abs=0)


def leave_out_everything(monkeypatch):
    """Every pair of two start clusters left out of the pass, its sums bounded from
    the clusters' means: the widest use of those bounds."""
    monkeypatch.setattr(mf_engine, "FALLBACK_COST", 0.0)


@pytest.mark.parametrize("case", ["D1", "D2", "D8", "D33", "near ties", "near duplicates",
                                  "tiny and huge", "weights", "random starts"])
def test_pairs_left_out_give_the_float64_fit(monkeypatch, case):
    """The pass leaves out the pairs of every two start clusters; the decisions,
    certified against the bounds from the means or made again from exact columns,
    are the float64 fit's, on the adversarial inputs above."""
    leave_out_everything(monkeypatch)
    rng = np.random.default_rng(21)
    w, kw, k = None, {}, 4
    if case.startswith("D"):
        X = blobs(700, int(case[1:]), 4, 3, spread=2.0)
    elif case == "near ties":
        g = np.arange(24, dtype=float)
        X = np.array([[a, b] for a in g for b in g[:12]]) * 0.1 + 1e3
    elif case == "near duplicates":
        base = rng.normal(size=(8, 3)) * 3 + 1e5
        X = base[rng.integers(0, 8, 800)] + 1e-9 * rng.normal(size=(800, 3))
    elif case == "tiny and huge":
        X = np.vstack([rng.normal(size=(400, 2)) * 1e-6,
                       rng.normal(size=(400, 2)) * 1e-6 + 1e6])
    elif case == "weights":
        X = blobs(700, 3, 4, 8, spread=2.0)
        w = np.exp(rng.uniform(0.0, np.log(1e4), X.shape[0]))
    else:
        X, kw = blobs(600, 3, 4, 5, spread=2.5), {"init": "random"}
    b = assert_same(X, k, w=w, **kw)
    assert b.engine_stats_["pairs_left_out"] > 0.5


@pytest.mark.parametrize("alpha", [1.0, 1.5, 2.0])
def test_pairs_left_out_every_alpha_they_hold_for(monkeypatch, alpha):
    leave_out_everything(monkeypatch)
    b = assert_same(blobs(700, 3, 3, 3, spread=2.0), 3, alpha=alpha)
    assert b.engine_stats_["pairs_left_out"] > 0.5


@pytest.mark.parametrize("alpha, semimetric", [(0.5, "energy"), (1.0, "gaussian")])
def test_no_pair_left_out_where_the_bounds_do_not_hold(monkeypatch, alpha, semimetric):
    """The bounds need a convex rho of the difference (energy, alpha >= 1)."""
    leave_out_everything(monkeypatch)
    kw = {"alpha": alpha} if semimetric == "energy" else {"sigma": 2.0}
    b = assert_same(blobs(600, 3, 3, 4, spread=1.5), 3, semimetric=semimetric, **kw)
    assert b.engine_stats_["pairs_left_out"] == 0.0


def test_separated_clusters_leave_their_pairs_out():
    """With the default cost rule: well-separated clusters' pairs are left out, the
    overlapping ones' computed, and the fit is the float64 fit."""
    rng = np.random.default_rng(30)
    centres = np.array([[0.0, 0.0], [40.0, 0.0], [0.0, 40.0], [1.5, 1.0]])
    X = centres[rng.integers(0, 4, 4000)] + rng.normal(size=(4000, 2))
    b = assert_same(X, 4)
    assert 0.3 < b.engine_stats_["pairs_left_out"] < 0.75


def test_auto_runs_float64_where_the_clusters_overlap(monkeypatch):
    """dtype="auto": the certified pass where the start's clusters are apart (most of
    their pairs left out), the float64 pass where they overlap; the same fit (from
    ``AUTO_FLOAT32_MIN_N`` points, lowered here to 4,000)."""
    from kgroups import KernelKGroups

    monkeypatch.setattr(mf_engine, "AUTO_FLOAT32_MIN_N", 4000)
    rng = np.random.default_rng(40)
    centres = rng.normal(0, 20, (4, 8))
    apart = centres[rng.integers(0, 4, 4000)] + rng.normal(size=(4000, 8))
    mixed = rng.normal(size=(4000, 8))
    for X, certified in ((apart, True), (mixed, False)):
        kw = {"n_init": 1, "init": "k-means++", "random_state": 0, "engine": "matrix-free"}
        a = KernelKGroups(4, dtype="auto", **kw).fit(X)
        b = KernelKGroups(4, dtype="float64", **kw).fit(X)
        np.testing.assert_array_equal(a.labels_, b.labels_)
        how = a.engine_stats_["pass_dtype"]
        assert how.startswith("float32") == certified, how
        if not certified:
            assert "overlap" in how


def test_separated_clusters_at_scale_give_the_float64_fit():
    """Ten clusters over many tiles, a k-means++ start: most pairs left out, the same
    labels and W as dtype="float64"."""
    rng = np.random.default_rng(41)
    centres = rng.uniform(-10, 10, (10, 10))
    X = centres[rng.integers(0, 10, 6000)] + 2.5 * rng.normal(size=(6000, 10))
    b = assert_same(X, 10)
    assert b.engine_stats_["pairs_left_out"] > 0.5
