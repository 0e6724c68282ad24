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
    X, _ = blobs(48, 3, 4, seed=93, spread=2.5)
    w = np.random.default_rng(94).uniform(0.5, 2.0, 48)
    start = np.random.default_rng(95).integers(0, 4, 48)
    kw = dict(n_clusters=4, init=start, engine="gpu", semimetric=semimetric, **params)
    f32 = fit(X, w, dtype="float32", **kw)
    same(f32, fit(X, w, **kw))
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
