"""The GPU engine (``kgroups._engines.gpu``) and its CUDA kernels
(``kgroups._kernels.cuda``), on a device or under numba's CUDA simulator.

``make test-gpu`` runs this file with ``NUMBA_ENABLE_CUDASIM=1`` (as CI does); without
a device or the simulator it is skipped. The simulator runs every CUDA thread as a
Python thread, so the inputs are small.
"""

import warnings

import numpy as np
import pytest

from kgroups._engines.gpu import cuda_usable

pytestmark = pytest.mark.skipif(not cuda_usable(real_device=False),
                                reason="no CUDA device and NUMBA_ENABLE_CUDASIM is not set")

from kgroups import KernelKGroups, KernelKMeans, improving_moves  # noqa: E402
from kgroups._engines import GpuEngine, MatrixFreeEngine  # noqa: E402
from tests._twins import build_m_twin  # noqa: E402

from tests._helpers import SEMIS, blobs, brute_B, tiny_data  # noqa: E402


@pytest.mark.parametrize("semimetric, params", SEMIS)
def test_build_matches_brute_force(semimetric, params):
    """The device pass (columns sorted by label, tiles of shared memory) gives the
    brute-force M, with a duplicated point (distance exactly 0) and weights."""
    X, w, labels = tiny_data(n=37, d=3, k=4, seed=40)
    eng = GpuEngine(X, w, semimetric, params)
    B = brute_B(eng.X, w, semimetric, params)
    np.testing.assert_allclose(eng.build_m(labels, 4), build_m_twin(B, labels, 4),
                               rtol=1e-12, atol=1e-12)


def test_build_across_tiles(monkeypatch):
    """Tiles narrower than the data (several tiles and label changes inside them)."""
    from kgroups._kernels import cuda as kernels
    monkeypatch.setattr(kernels, "tile_for", lambda d: 5)
    X, w, labels = tiny_data(n=23, d=2, k=3, seed=41)
    eng = GpuEngine(X, w, "energy", {"alpha": 1.0})
    B = brute_B(eng.X, w, "energy", {"alpha": 1.0})
    np.testing.assert_allclose(eng.build_m(labels, 3), build_m_twin(B, labels, 3),
                               rtol=1e-12, atol=1e-12)


def test_apply_and_gather_match_brute_force():
    from numba import cuda
    X, w, labels = tiny_data(n=30, d=3, k=3, seed=42)
    eng = GpuEngine(X, w, "energy", {"alpha": 0.5})
    B = brute_B(eng.X, w, "energy", {"alpha": 0.5})
    M = build_m_twin(B, labels, 3)
    dM = cuda.to_device(M)
    pend, old, new = np.array([4, 9, 4]), np.array([labels[4], labels[9], 2]), np.zeros(3, int)
    new[:] = [2, (labels[9] + 1) % 3, 0]
    eng._apply_device(dM, pend, old, new, 3)
    for p, a, b in zip(pend, old, new):
        M[a] -= B[p]
        M[b] += B[p]
    host = np.zeros_like(M)
    eng._fetch(dM, host, 7, 19)
    np.testing.assert_allclose(host[:, 7:19], M[:, 7:19], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dM.copy_to_host(), M, rtol=1e-12, atol=1e-12)


def fit_both(cls, X, w=None, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (cls(engine="gpu", **kw).fit(X, sample_weight=w),
                cls(engine="matrix-free", **kw).fit(X, sample_weight=w))


@pytest.mark.parametrize("semimetric, params", [SEMIS[0], SEMIS[1], SEMIS[3], SEMIS[6]])
def test_same_trajectory_as_the_matrix_free_engine(monkeypatch, semimetric, params):
    """Same start: the labels, moves per sweep and sweeps of the matrix-free engine,
    W to 1e-12, and no improving move left; with windows and batches smaller than the
    data, so that columns are fetched again after the device applied moves."""
    import kgroups._engines.gpu as gpu
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


def test_restarts_kernel_kmeans_and_float32_input():
    X, _ = blobs(80, 2, 3, seed=46, spread=2.0)
    starts = np.random.default_rng(47).integers(0, 3, (3, 80))
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
    import kgroups._engines as backends
    import kgroups._engines.gpu as gpu
    X, _ = blobs(50, 2, 2, seed=49)
    monkeypatch.setattr(backends, "GPU_MIN_N", 10)
    assert KernelKGroups(2, random_state=0).fit(X).engine_ != "gpu"
    with pytest.raises(ValueError, match="engine='gpu' needs a named semimetric"):
        KernelKGroups(2, engine="gpu", semimetric=lambda a, b: np.abs(a - b).sum(-1)).fit(X)
    with pytest.raises(ValueError, match="engine='gpu' needs raw data"):
        KernelKGroups(2, engine="gpu", semimetric="precomputed").fit(np.abs(X[:, :1] - X[:, 0]))
    monkeypatch.setattr(gpu, "device_free_memory", lambda: 1000.0)
    with pytest.raises(ValueError, match=r"needs 0\.00 GiB of device memory but 0\.00 GiB"):
        KernelKGroups(2, engine="gpu").fit(X)
    monkeypatch.setattr(gpu, "cuda_usable", lambda real_device=True: False)
    with pytest.raises(ValueError, match=r"pip install 'kgroups\[gpu\]'"):
        KernelKGroups(2, engine="gpu").fit(X)
    assert issubclass(GpuEngine, MatrixFreeEngine)
