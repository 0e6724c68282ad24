"""The GPU engine's float32 mode (``dtype="float32"``): each rho in float32, sums in
float64, every decision certified against the error bound or made again in float64,
W exact. Under numba's CUDA simulator (whose float32 squared distances are float32
and whose square roots and exponentials are more accurate than the device's: the
bound covers both)."""

import warnings

import numpy as np
import pytest

from kgroups._engines.gpu import cuda_usable

pytestmark = pytest.mark.skipif(not cuda_usable(real_device=False),
                                reason="no CUDA device and NUMBA_ENABLE_CUDASIM is not set")

from kgroups import KernelKGroups  # noqa: E402
from kgroups._engines.gpu import GpuEngine  # noqa: E402
from tests._helpers import SEMIS, blobs, brute_B  # noqa: E402
from tests._twins import build_m_twin  # noqa: E402


def fit(X, w=None, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return KernelKGroups(**kw).fit(X, sample_weight=w)


def same(a, b):
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.n_moves_ == b.n_moves_
    assert a.within_energy_ == pytest.approx(b.within_energy_, rel=1e-12)


def float32_fit_is_float64s(n, k, seed, spread, semimetric, params):
    """Blobs of n points in 3-D (weights and a given start drawn from ``seed`` on): the
    float32 mode's fit on the GPU engine makes the float64 fit's moves and reports its
    W (:func:`same`); returns the float32 fit."""
    X, _ = blobs(n, 3, k, seed=seed, spread=spread)
    w = np.random.default_rng(seed + 1).uniform(0.5, 2.0, n)
    start = np.random.default_rng(seed + 2).integers(0, k, n)
    kw = dict(n_clusters=k, init=start, engine="gpu", semimetric=semimetric, **params)
    f32 = fit(X, w, dtype="float32", **kw)
    same(f32, fit(X, w, **kw))
    return f32


@pytest.fixture(params=[True, False], ids=["unordered pairs", "ordered pairs"])
def symmetric(request, monkeypatch):
    """The float32 build over the unordered pairs (build_sym32) or the ordered ones
    (the pass compiled for the number of features, float32 twin)."""
    import kgroups._engines.gpu as gpu

    monkeypatch.setattr(gpu, "SYMMETRIC_BUILD", request.param)
    return request.param


def test_float32_build_within_its_bound(symmetric):
    """Every entry of M from the float32 pass is within ``w_i s_l eps32`` of the exact
    one (and not equal to it: the pass is float32)."""
    X, _ = blobs(50, 3, 3, seed=90, spread=2.0)
    w = np.random.default_rng(91).uniform(0.5, 2.0, 50)
    labels = np.random.default_rng(92).integers(0, 3, 50)
    eng = GpuEngine(X, w, "energy", {"alpha": 1.0}, float32=True)
    M32 = eng._build_runs(labels[None], 3, f32=True).copy_to_host()[0]
    M = build_m_twin(brute_B(X, w, "energy", {"alpha": 1.0}), labels, 3)
    s = np.bincount(labels, weights=w, minlength=3)
    err = np.abs(M32 - M)
    assert (err <= w[None, :] * s[:, None] * eng.eps32).all() and err.max() > 0


@pytest.mark.parametrize("semimetric, params", [SEMIS[0], SEMIS[4], SEMIS[6]])
def test_float32_mode_labels_equal_float64(semimetric, params):
    """Weights and a given start: the float32 mode makes the float64 fit's moves and
    reports its W (energy, Laplacian, and the sinusoidal semimetric, not of negative
    type; the bound of every semimetric is checked in tests/kernels)."""
    f32 = float32_fit_is_float64s(48, 4, 93, 2.5, semimetric, params)
    assert f32.engine_stats_["float32"]["kernel_error_bound"] > 0


def test_float32_restarts_share_the_pass_and_device_input():
    """Two restarts in one group, and float32 data on the device: the float64 fit's
    labels, moves and W."""
    from numba import cuda
    X, _ = blobs(40, 2, 3, seed=96, spread=2.0)
    kw = dict(n_clusters=3, engine="gpu", random_state=3, n_init=2)
    ref = fit(X, **kw)
    same(fit(X, dtype="float32", **kw), ref)
    X32 = X.astype(np.float32)
    same(fit(cuda.to_device(X32), dtype="float32", **kw), fit(X32.astype(np.float64), **kw))


@pytest.mark.parametrize("factor, after", [(30.0, 50), (1e9, 0)])
def test_uncertain_decisions_made_again_in_float64(monkeypatch, factor, after):
    """A bound made larger: the first uncertain decision comes mid-sweep, after 50
    certified moves (some applied on the device in batches), or at the very first
    point; the group goes on in float64 and still makes the float64 fit's moves, W
    exact."""
    import kgroups._engines.gpu as gpu
    real = gpu.float32_kernel_error
    monkeypatch.setattr(gpu, "float32_kernel_error", lambda *a: factor * real(*a))
    seen, to64 = [], gpu.GpuEngine._to_float64

    def spy(self, state, sw):
        seen.append(int(sw.moves.sum()))
        return to64(self, state, sw)

    monkeypatch.setattr(gpu.GpuEngine, "_to_float64", spy)
    monkeypatch.setattr(gpu, "WINDOW", 24)
    monkeypatch.setattr(gpu, "ROUND_TRIP_SECONDS", 1e-9)
    X, _ = blobs(80, 3, 4, seed=97, spread=2.5)
    start = np.random.default_rng(98).integers(0, 4, 80)
    kw = dict(n_clusters=4, init=start, engine="gpu", semimetric="laplacian", sigma=1.5)
    f32 = fit(X, dtype="float32", **kw)
    same(f32, fit(X, **kw))
    assert f32.engine_stats_["float32"]["groups_gone_float64"] == 1 and seen == [after]


def test_float32_refuses_a_spread_it_cannot_bound():
    X, _ = blobs(20, 2, 2, seed=99, spread=2.0)
    with pytest.raises(ValueError, match="dtype='float32': the data's half-spread .* use "
                       "dtype='float64'"):
        fit(X * 1e17, n_clusters=2, engine="gpu", dtype="float32")


def test_float32_fit_stopped_in_float32_sums_w_exactly():
    """A float32 fit stopped after one sweep, still in float32: its W comes from the
    float64 sums within each cluster on the device (one launch per cluster, of more
    than one block: its grid from the cluster's bounds, NumPy integers made ``int``),
    equal to the float64 fit's after the same sweep."""
    X, _ = blobs(100, 3, 2, seed=97, spread=2.0)
    start = np.random.default_rng(98).integers(0, 2, 100)
    kw = dict(n_clusters=2, init=start, engine="gpu", max_iter=1)
    f32 = fit(X, dtype="float32", **kw)
    assert f32.engine_stats_["float32"]["groups_gone_float64"] == 0
    same(f32, fit(X, **kw))


@pytest.fixture
def small_tiles(monkeypatch):
    """The passes over ordered pairs compiled afresh with tiles of one column a thread
    (``THREADS``): most tiles then hold one label, the loop over whole tiles of one
    label (the energy distance, ``alpha = 1``) runs beside the one that checks each
    column's label."""
    from kgroups._kernels import cuda as kernels

    monkeypatch.setattr(kernels, "_COMPILED", {})
    monkeypatch.setattr(kernels, "ROWS_TILE_BYTES", 1)
    return kernels


def rows_sums(kernels, XR, wr, XT, w, labs, k, f32, code=0, alpha=1.0):
    """``Ms`` (k x m) of the pass over ordered pairs (float64, or its float32 twin)."""
    kern, grid, threads, tile, shared = kernels.rows_pass(XT.shape[0], XR.shape[1], f32)
    dt = np.float32 if f32 else np.float64
    cuda = kernels.cuda
    Ms = cuda.to_device(np.zeros((k, XR.shape[1])))
    kern[grid, threads, 0, shared](cuda.to_device(XR.astype(dt)), cuda.to_device(wr),
                                   cuda.to_device(XT.astype(dt)), cuda.to_device(w),
                                   cuda.to_device(labs), Ms, tile, code,
                                   *np.array([alpha, 1.0, 1.0], dtype=dt))
    return Ms.copy_to_host()


@pytest.mark.parametrize("f32", [False, True], ids=["float64", "float32"])
def test_whole_tiles_of_one_label_add_the_same_values(small_tiles, monkeypatch, f32):
    """The loop over whole tiles of one label (two columns at a time, no label checks,
    ``sqrt`` for ``rho``) and the loop that checks each column's label give the same
    bits, float64 and float32: tiles of 32 columns, a first tile of one label, one
    where three labels meet, a last tile of 11 columns of one label (an odd one left
    for the checking loop), with an empty label, weights, large coordinates and a
    duplicated point; both within rounding of the brute-force sums."""
    kernels = small_tiles
    rng = np.random.default_rng(101)
    d, m = 3, 70
    labs = np.repeat([0, 1, 3], [40, 3, 32])  # label 2 empty; tiles 0-31 | 32-63 | 64-74
    n = labs.shape[0]
    XT = 1e3 + rng.normal(size=(d, n)) * 50.0
    XT[:, 70] = XT[:, 5]
    XR = np.concatenate([XT[:, :m - 2], 1e3 + rng.normal(size=(d, 2))], axis=1)
    w, wr = rng.uniform(0.5, 2.0, n), rng.uniform(0.5, 2.0, m)
    fast = rows_sums(kernels, XR, wr, XT, w, labs, 4, f32)
    monkeypatch.setattr(kernels, "_COMPILED", {})
    monkeypatch.setattr(kernels, "ENERGY", -1)  # no semimetric takes the loop of whole tiles
    checking = rows_sums(kernels, XR, wr, XT, w, labs, 4, f32)
    np.testing.assert_array_equal(fast, checking)
    ref = np.zeros((4, m))
    for lab in range(4):
        dist = np.sqrt(((XR[:, :, None] - XT[:, None, labs == lab]) ** 2).sum(0))
        ref[lab] = -0.5 * wr * (dist * w[labs == lab]).sum(1)
    rtol = 1e-5 if f32 else 1e-13
    np.testing.assert_allclose(fast, ref, rtol=rtol, atol=rtol * np.abs(ref).max())
    assert fast[2].max() == 0.0 and (fast[[0, 1, 3]] < 0).all()


def coherent_data(n_rows, n_cols, rng):
    """Points on a line whose float32 evaluation (centred on the box's midpoint, 0)
    shortens every row-to-column distance: rows near -0.75, columns near +0.75 (a
    float32 spacing of 2^-24 there), each 0.45 of a spacing past a float32 number,
    away from the other group, and those numbers chosen so that each difference (in
    [1.5, 2): a spacing of 2^-23) is a tie that rounds down to even. So the float32
    errors of a row's sums all go one way instead of cancelling."""
    ulp = 2.0 ** -24
    rows = 0.75 + ulp * (4 * rng.integers(0, 2 ** 18, n_rows))
    cols = 0.75 + ulp * (4 * rng.integers(0, 2 ** 18, n_cols) + 1)
    x = np.concatenate([-(rows + 0.45 * ulp), cols + 0.45 * ulp, [-1.0, 1.0]])
    return x[:, None]  # the box [-1, 1]: its midpoint 0, exactly


def test_float32_build_within_its_bound_on_adversarial_data(small_tiles):
    """The float32 build against the exact sums on data whose float32 errors all go
    one way (:func:`coherent_data`), in one large cluster (many pairs of one label,
    whole tiles of it) and a small one: every entry within ``w_i s_l eps32``, and the
    rows' sums over the other group's columns within a factor 40 of it, so a bound 40
    times too small fails here."""
    rng = np.random.default_rng(102)
    X = coherent_data(20, 140, rng)
    n = X.shape[0]
    labels = np.r_[np.zeros(20, np.int64), np.ones(140, np.int64), 0, 1]
    w = rng.uniform(1.0, 1.0001, n)
    eng = GpuEngine(X, w, "energy", {"alpha": 1.0}, float32=True)
    M32 = eng._build_runs(labels[None], 2, f32=True).copy_to_host()[0]
    M = build_m_twin(brute_B(X, w, "energy", {"alpha": 1.0}), labels, 2)
    s = np.bincount(labels, weights=w, minlength=2)
    bound = w[None, :] * s[:, None] * eng.eps32
    ratio = np.abs(M32 - M) / bound
    assert ratio.max() <= 1.0 and ratio[1, :20].min() > 1.0 / 40.0


@pytest.mark.parametrize("semimetric, params", [SEMIS[0], SEMIS[3]])
def test_float32_mode_with_tiles_of_one_label_labels_equal_float64(small_tiles, semimetric,
                                                                  params):
    """With tiles of 32 columns, most of one label (the loop over whole tiles for the
    energy distance; the Gaussian semimetric through the checking loop), the float32
    mode makes the float64 fit's moves and reports its W."""
    float32_fit_is_float64s(96, 3, 103, 2.0, semimetric, params)
