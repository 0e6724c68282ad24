"""The GPU engine (``kgroups._engines.gpu``) and its CUDA kernels
(``kgroups._kernels.cuda``), on a device or under numba's CUDA simulator.

``make test-gpu`` runs this file with ``NUMBA_ENABLE_CUDASIM=1`` (as CI does); without
a device or the simulator it is skipped. The simulator runs every CUDA thread as a
Python thread, so the inputs are small.
"""

import functools
import warnings

import numpy as np
import pytest

from kgroups._engines.gpu import cuda_usable

pytestmark = pytest.mark.skipif(not cuda_usable(real_device=False),
                                reason="no CUDA device and NUMBA_ENABLE_CUDASIM is not set")

from kgroups import KernelKGroups, KernelKMeans, improving_moves  # noqa: E402
from kgroups._engines.gpu import GpuEngine  # noqa: E402
from kgroups._engines.matrix_free import MatrixFreeEngine
from tests._twins import build_m_twin  # noqa: E402

from tests._helpers import SEMIS, blobs, brute_B, on_a_device, tiny_data  # noqa: E402


@pytest.mark.parametrize("semimetric, params", SEMIS)
def test_build_matches_brute_force(semimetric, params):
    """The device pass (columns sorted by label, tiles of shared memory) gives the
    brute-force M, with a duplicated point (distance exactly 0) and weights."""
    X, w, labels = tiny_data(n=37, d=3, k=4, seed=40)
    eng = GpuEngine(X, w, semimetric, params)
    B = brute_B(X, w, semimetric, params)
    np.testing.assert_allclose(eng.build_m(labels, 4), build_m_twin(B, labels, 4),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("sym_tile, split, ordered", [(8, 1, None), (8, 3, None),
                                                       (8, 4, None), (0, 4, "build_rows2"),
                                                       (0, 4, "build_sorted")])
def test_build_across_tiles(monkeypatch, sym_tile, split, ordered):
    """Several tiles and label changes inside them: the symmetric pass (tiles of 8
    points, each unordered pair once, both orders from one rho; 1, 3 or 4 threads
    per point, shares of unequal size included) and the passes over ordered pairs
    (compiled for the number of features, tiles of one column per thread; or the
    generic one, tiles of 5 columns)."""
    import kgroups._engines.gpu as gpu
    from kgroups._kernels import cuda as kernels
    monkeypatch.setattr(gpu, "SYMMETRIC_BUILD", bool(sym_tile))
    monkeypatch.setattr(kernels, "sym_tile_for", lambda d: sym_tile)
    monkeypatch.setattr(kernels, "SYM_SPLIT", split)
    monkeypatch.setattr(kernels, "_COMPILED", {})
    monkeypatch.setattr(kernels, "ROWS_TILE_BYTES", 1)  # TILE = THREADS columns
    if ordered == "build_sorted":
        monkeypatch.setattr(kernels, "ROWS_MAX_FEATURES", 1)
        monkeypatch.setattr(kernels, "tile_for", lambda d: 5)
    X, w, labels = tiny_data(n=37, d=2, k=3, seed=41)
    eng = GpuEngine(X, w, "energy", {"alpha": 1.0})
    B = brute_B(X, w, "energy", {"alpha": 1.0})
    np.testing.assert_allclose(eng.build_m(labels, 3), build_m_twin(B, labels, 3),
                               rtol=1e-12, atol=1e-12)
    used = "build_sym" if sym_tile else ordered
    assert eng.tally.by_kernel == {**eng.tally.by_kernel, used: 1}


@pytest.mark.parametrize("rows_per_thread", [1, 2])
@pytest.mark.parametrize("d, m", [(1, 33), (3, 150)])
def test_rows_pass_against_brute_force(monkeypatch, rows_per_thread, d, m):
    """The pass over ordered pairs compiled for ``d`` features: new rows (weights
    apart from the columns') against labelled points with an empty label, in blocks
    whose last one is partly empty, for one and two rows a thread; float64
    to rounding, and its float32 twin within float32 rounding."""
    from kgroups._kernels import cuda as kernels
    monkeypatch.setattr(kernels, "ROWS_PER_THREAD", rows_per_thread)
    rng = np.random.default_rng(44 + d)
    n = 90
    XT, XR = rng.normal(size=(d, n)), rng.normal(size=(d, m))
    w, wr = rng.uniform(0.5, 2.0, n), rng.uniform(0.5, 2.0, m)
    labs = np.sort(rng.choice([0, 1, 3], n))  # label 2 empty
    ref = np.zeros((4, m))
    for lab in range(4):
        dist = np.sqrt(((XR[:, :, None] - XT[:, None, labs == lab]) ** 2).sum(0))
        ref[lab] = -0.5 * wr * (dist * w[labs == lab]).sum(1)
    cuda = kernels.cuda
    for f32, rtol in ((False, 1e-13), (True, 1e-6)):
        kern, grid, threads, tile, shared = kernels.rows_pass(d, m, f32)
        assert kern.__name__ == f"build_rows{d}" + ("_32" if f32 else "")
        dt = np.float32 if f32 else np.float64
        args = (0, *np.array([1.0, 1.0, 1.0], dtype=dt))
        Ms = cuda.to_device(np.zeros((4, m)))
        kern[grid, threads, 0, shared](cuda.to_device(XR.astype(dt)), cuda.to_device(wr),
                                       cuda.to_device(XT.astype(dt)), cuda.to_device(w),
                                       cuda.to_device(labs), Ms, tile, *args)
        np.testing.assert_allclose(Ms.copy_to_host(), ref, rtol=rtol, atol=rtol)


def test_tile_pairs_number_the_upper_triangle():
    """Block ``b`` of the symmetric build takes the tiles ``(bi, bj)`` with ``b = bj
    (bj + 1) / 2 + bi``, ``bi <= bj``: every pair once, also for ``bj`` near the
    largest grid of 10^6 points in tiles of 8 (the square root in float64)."""
    from kgroups._kernels import cuda as kernels
    pair = kernels.tile_pair.py_func
    assert [pair(b) for b in range(6)] == [(0, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 2)]
    for bj in (124_999, 125_000, 2**20 + 3):
        for bi in (0, 1, bj - 1, bj):
            assert pair(bj * (bj + 1) // 2 + bi) == (bi, bj)


@pytest.mark.parametrize("local", [256, 5])
def test_apply_batch_and_window_match_brute_force(monkeypatch, local):
    """One launch applies the moves of two runs (a point moved twice by one run and
    once by the other: its kernel row shared) to every column, its sums held in local
    memory or (more than ``APPLY_LOCAL`` of them) updated in place, and returns each
    run's next window; a gathered window agrees too."""
    from kgroups._kernels import cuda as kernels
    monkeypatch.setattr(kernels, "APPLY_LOCAL", local)
    X, w, labels = tiny_data(n=30, d=3, k=3, seed=42)
    eng = GpuEngine(X, w, "energy", {"alpha": 0.5})
    B = brute_B(X, w, "energy", {"alpha": 0.5})
    M = np.stack([build_m_twin(B, labels, 3), build_m_twin(B, (labels + 1) % 3, 3)])
    buf = eng._batch_buffers(3, 2)
    dM = eng._grow("_dM", (2, 3, 30), "test")
    eng.tally.to_device(M, dM)
    moves = [[(4, labels[4], 2), (9, labels[9], (labels[9] + 1) % 3), (4, 2, 0)],
             [(4, (labels[4] + 1) % 3, (labels[4] + 2) % 3)]]
    for r, mv in enumerate(moves):
        buf["pend"][r][:, :len(mv)] = np.array(mv).T
    host = np.zeros_like(M)
    assert eng._apply(dM, host, np.array([3, 1]), {0: 7, 1: 25}) == {0: 30, 1: 30}
    for r, mv in enumerate(moves):
        for p, a, b in mv:
            M[r, a] -= B[p]
            M[r, b] += B[p]
    np.testing.assert_allclose(host[0, :, 7:], M[0, :, 7:], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(host[1, :, 25:], M[1, :, 25:], rtol=1e-12, atol=1e-12)
    assert not host[0, :, :7].any() and not host[1, :, :25].any()
    # each window comes with its points' rows of the data, held for the decisions
    np.testing.assert_array_equal(buf["rows"][1][:5], X[25:30])
    assert buf["first"][1] == 25
    host[:] = 0
    assert eng._window(1, dM[1], host[1], 11, None)[0] == 30
    np.testing.assert_allclose(host[1, :, 11:], M[1, :, 11:], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(buf["rows"][1][:19], X[11:30])
    assert buf["first"][1] == 11
    np.testing.assert_allclose(dM.copy_to_host(), M, rtol=1e-12, atol=1e-12)
    assert sum(v for name, v in eng.tally.by_kernel.items()
               if name.startswith("apply_batch")) == 1


def fit_both(cls, X, w=None, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (cls(engine="gpu", **kw).fit(X, sample_weight=w),
                cls(engine="matrix-free", **kw).fit(X, sample_weight=w))


@pytest.mark.parametrize("sweeps, semimetric, params", [
    ("host M", *SEMIS[0]), ("windows", *SEMIS[3]), ("device", *SEMIS[1]),
    ("device", *SEMIS[6])] + [on_a_device(way, *sm) for way, sm in (
        ("host M", SEMIS[1]), ("host M", SEMIS[3]), ("host M", SEMIS[6]),
        ("windows", SEMIS[0]), ("windows", SEMIS[1]), ("windows", SEMIS[6]))])
def test_same_trajectory_as_the_matrix_free_engine(monkeypatch, semimetric, params, sweeps):
    """Same start: the labels, moves per sweep and sweeps of the matrix-free engine,
    W to 1e-12, and no improving move left; the sweeps decided on the device (windows
    of 8 points under the simulator, pending lists of 5 moves applied mid-window), or
    on the host with windows and batches smaller than the data, so that columns are
    fetched again after the device applied moves, or lists of 4 moves applied on the
    device with M sent back (the sweeps from the host's M)."""
    import kgroups._engines.gpu as gpu
    from kgroups._kernels import cuda_sweep
    monkeypatch.setattr(cuda_sweep, "PENDING_CAP", 5)
    monkeypatch.setattr(gpu, "DEVICE_SWEEPS", sweeps == "device")
    monkeypatch.setattr(gpu, "HOST_M_SWEEPS", sweeps == "host M")
    monkeypatch.setattr(gpu, "WINDOW", 17)
    monkeypatch.setattr(gpu, "BATCH", 4)
    X, _ = blobs(90, 3, 4, seed=43, spread=2.5)
    w = np.random.default_rng(44).uniform(0.5, 2.0, 90)
    start = np.random.default_rng(45).integers(0, 4, 90)
    g, m = fit_both(KernelKGroups, X, w, n_clusters=4, init=start, semimetric=semimetric,
                    **params)
    np.testing.assert_array_equal(g.labels_, m.labels_)
    assert g.n_moves_ == m.n_moves_ and sum(g.n_moves_) > 10 and g.engine_ == "gpu"
    assert g.within_energy_ == pytest.approx(m.within_energy_, rel=1e-12)
    assert improving_moves(X, g.labels_, sample_weight=w, semimetric=semimetric,
                           engine="dense", **params) == 0


@pytest.mark.parametrize("semimetric, params", [SEMIS[1], SEMIS[4]])
def test_same_trajectory_with_moves_in_flight(monkeypatch, semimetric, params):
    """Batches sent by the cost of their corrections (a round trip that costs little):
    the runs decide on while a batch is applied, correcting for its moves, and still
    make the matrix-free engine's moves, sweep by sweep (the sweeps in windows)."""
    import kgroups._engines.gpu as gpu
    monkeypatch.setattr(gpu, "DEVICE_SWEEPS", False)
    monkeypatch.setattr(gpu, "HOST_M_SWEEPS", False)
    monkeypatch.setattr(gpu, "WINDOW", 45)
    monkeypatch.setattr(gpu, "BATCH", 64)
    monkeypatch.setattr(gpu, "ROUND_TRIP_SECONDS", 1e-9)
    in_flight = []
    decide = gpu.GpuEngine._decide_from

    def spy(self, state, r, start, stop, n_pend, budget):
        in_flight.append(int(n_pend > 0))
        return decide(self, state, r, start, stop, n_pend, budget)

    monkeypatch.setattr(gpu.GpuEngine, "_decide_from", spy)
    X, _ = blobs(90, 3, 4, seed=65, spread=2.5)
    w = np.random.default_rng(66).uniform(0.5, 2.0, 90)
    start = np.random.default_rng(67).integers(0, 4, 90)
    g, m = fit_both(KernelKGroups, X, w, n_clusters=4, init=start, semimetric=semimetric,
                    **params)
    np.testing.assert_array_equal(g.labels_, m.labels_)
    assert g.n_moves_ == m.n_moves_ and sum(in_flight) >= 3


def test_restarts_kernel_kmeans_and_float32_input():
    X, _ = blobs(50, 2, 3, seed=46, spread=2.0)
    starts = np.random.default_rng(47).integers(0, 3, (3, 50))
    g, m = fit_both(KernelKGroups, X, n_clusters=3, init=starts)
    np.testing.assert_array_equal(g.labels_, m.labels_)
    assert g.n_init_ == 3 and g.objective_ == pytest.approx(m.objective_, rel=1e-12)
    g, m = fit_both(KernelKMeans, X, n_clusters=3, init=starts[0])
    np.testing.assert_array_equal(g.labels_, m.labels_)
    assert g.n_moves_ == m.n_moves_
    g, m = fit_both(KernelKGroups, X.astype(np.float32), n_clusters=3, init=starts[1])
    np.testing.assert_array_equal(g.labels_, m.labels_)
    np.testing.assert_array_equal(g.predict(X[:10]), m.predict(X[:10]))


def test_default_start_and_engine_stats():
    X, _ = blobs(60, 2, 3, seed=48, spread=1.0)
    g, m = fit_both(KernelKGroups, X, n_clusters=3, random_state=0, n_init=2)
    np.testing.assert_array_equal(g.labels_, m.labels_)
    assert set(g.engine_stats_["seconds"]) >= {"prepare", "init", "start", "sweeps"}
    assert "device" in g.engine_stats_


def test_auto_never_picks_the_simulator_and_clear_errors(monkeypatch):
    import kgroups._engines.calibration as calibration
    import kgroups._engines.gpu as gpu
    X, _ = blobs(50, 2, 2, seed=49)
    monkeypatch.setattr(gpu.GpuEngine, "MIN_N", 10)
    monkeypatch.setattr(calibration, "current", lambda *a, **k: None)  # the fixed-n rule
    on_device = cuda_usable(real_device=True)  # a real device: auto takes it
    assert (KernelKGroups(2, random_state=0).fit(X).engine_ == "gpu") == on_device
    with pytest.raises(ValueError, match="engine='gpu' needs a named semimetric"):
        KernelKGroups(2, engine="gpu", semimetric=lambda a, b: np.abs(a - b).sum(-1)).fit(X)
    with pytest.raises(ValueError, match="engine='gpu' needs raw data"):
        KernelKGroups(2, engine="gpu", semimetric="precomputed").fit(np.abs(X[:, :1] - X[:, 0]))
    monkeypatch.setattr(gpu, "device_free_memory", lambda: 1000.0)
    with pytest.raises(ValueError, match=r"needs 0\.00 GiB of device memory but 0\.00 GiB"):
        KernelKGroups(2, engine="gpu").fit(X)
    monkeypatch.setattr(gpu, "cuda_usable", lambda real_device=True: False)
    with pytest.raises(ValueError, match=r"the gpu extra: pip install '\.\[gpu\]'"):
        KernelKGroups(2, engine="gpu").fit(X)
    assert issubclass(GpuEngine, MatrixFreeEngine)


@functools.cache
def _fits_of_alpha(alpha):
    """X, its GPU fit, and the fit of X moved 1e8 away (shared by the three methods:
    ``predict``, ``transform`` and ``score`` leave a fitted estimator as it was)."""
    X = np.random.default_rng(0).normal(size=(20, 3))
    return (X, KernelKGroups(2, alpha=alpha, engine="gpu", random_state=0).fit(X),
            KernelKGroups(2, alpha=alpha, engine="gpu", random_state=0).fit(X + 1e8))


@pytest.mark.parametrize("method, alpha, factor", [
    ("predict", 1.0, 1e160), ("transform", 1.0, 1e160), ("score", 1.0, 1e160),
    ("predict", 2.0, 1e153), on_a_device("transform", 2.0, 1e153),
    on_a_device("score", 2.0, 1e153)])
def test_new_rows_out_of_float64_range_are_named(method, alpha, factor):
    """As on the CPU engines, new rows whose semimetric values to the fit's points (or a
    cluster's sum of them) overflow float64 are refused by the method, in its name (they
    gave labels 0, an infinite transform or score with a warning only), in host memory
    and on the device (bounded from their largest |x|); rows far from the origin but near
    the points are not."""
    from kgroups.exceptions import InvalidParameterError

    from numba import cuda

    X, est, far = _fits_of_alpha(alpha)
    for rows in (lambda A: A, cuda.to_device):   # in host memory, on the device
        with pytest.raises(InvalidParameterError, match=rf"^KernelKGroups\.{method}: the "
                           r"values of semimetric='energy' overflow float64 .* X holds rows"):
            getattr(est, method)(rows(X * factor))
        out = getattr(est, method)(rows(X * 1e3))
        out = out.copy_to_host() if hasattr(out, "copy_to_host") else out
        assert np.all(np.isfinite(np.asarray(out, dtype=float)))
    np.testing.assert_array_equal(far.predict(X + 1e8), far.labels_)
