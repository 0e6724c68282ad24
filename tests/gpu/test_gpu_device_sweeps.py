"""The GPU engine's Hartigan sweeps decided and applied on the device
(``kgroups._engines.gpu_sweeps``, ``kgroups._kernels.cuda_sweep``), under numba's CUDA
simulator: the same moves as the matrix-free engine, what a sweep asks of the device,
restarts together and apart, and the paths for many clusters and many features.

``make test-gpu`` runs this file with ``NUMBA_ENABLE_CUDASIM=1``; without a device or
the simulator it is skipped.
"""

import warnings

import numpy as np
import pytest

from kgroups._engines.gpu import cuda_usable

pytestmark = pytest.mark.skipif(not cuda_usable(real_device=False),
                                reason="no CUDA device and NUMBA_ENABLE_CUDASIM is not set")

from kgroups import KernelKGroups  # noqa: E402
from kgroups._engines.gpu import GpuEngine  # noqa: E402
from kgroups._engines.gpu_sweeps import sweep_state_bytes  # noqa: E402
from kgroups._kernels import cuda_sweep  # noqa: E402
from tests._helpers import (blobs, brute_B, on_a_device, runs_together_and_apart,  # noqa: E402
                            sweeps_counted)
from tests._twins import build_m_twin  # noqa: E402


@pytest.fixture(autouse=True)
def _sweeps_on_the_device(monkeypatch):
    """Host data too are swept on the device here (by default the host sweeps them
    from its copy of M)."""
    import kgroups._engines.gpu as gpu
    monkeypatch.setattr(gpu, "HOST_M_SWEEPS", False)


def fit_both(X, w, k, start, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (KernelKGroups(k, engine="gpu", init=start, **kw).fit(X, sample_weight=w),
                KernelKGroups(k, engine="matrix-free", init=start, dtype="float64",
                              **kw).fit(X, sample_weight=w))


def assert_optimum(X, w, labels, k):
    """No single move lowers W (brute force over the dense B)."""
    B = brute_B(X, w, "energy", {"alpha": 1.0})
    M = build_m_twin(B, labels, k)
    from kgroups._kernels.gain import cluster_stats, count_improving_moves
    s, q, cnt = cluster_stats(M, labels, w)
    assert count_improving_moves(M, labels, w, np.zeros(len(w)), s, q, cnt) == 0


def test_sweeps_on_the_device_ask_the_host_once_per_sweep(monkeypatch):
    """A random start swept to convergence: the matrix-free engine's moves sweep by
    sweep. Per sweep: no allocation past the first, the active runs up (8 bytes a run),
    one start launch and two launches per round of (decide, apply), one
    synchronisation per round, and back per round only the control words and s, q,
    cnt (never the labels or M); a sweep in which nothing moves is one round. The
    labels and M come back once, for the results."""
    monkeypatch.setattr(cuda_sweep, "PENDING_CAP", 4)
    n, k = 120, 3
    X, _ = blobs(n, 2, k, seed=50, spread=2.0)
    w = np.ones(n)
    start = np.random.default_rng(51).integers(0, k, n)
    eng = GpuEngine(X, w, "energy", {"alpha": 1.0})
    state, rows = sweeps_counted(eng, start, k)
    assert len(rows) >= 3 and rows[0][0] > 8
    small = 8 * (cuda_sweep.CTL_WIDTH + 3 * k)  # ctl, s, q, cnt of one run
    for i, (moves, c) in enumerate(rows):
        pairs, syncs = c["batches"], c["syncs"]
        if i:
            assert c["allocations"] == 0
        assert pairs >= moves / 4 and syncs >= 1
        assert c["launches"] == 1 + 2 * pairs
        assert c["bytes_to_host"] == syncs * small
        assert c["bytes_to_device"] == 8 + (0 if i else 8 * n + 24 * k)
    assert rows[-1][1]["syncs"] == 1 and rows[-1][1]["launches"] == 3
    # later sweeps reuse the previous sweep's count of rounds: few round trips
    assert sum(c["syncs"] for _, c in rows) <= 2 * len(rows) + 4
    fetched = eng.tally.phases["sweeps"]["bytes_to_host"]
    assert fetched < 8 * n  # neither the labels nor M came back during the sweeps
    res = eng.finish(state)[0]
    m = KernelKGroups(k, engine="matrix-free", init=start, dtype="float64").fit(X)
    np.testing.assert_array_equal(res.labels, m.labels_)
    assert [mv for mv, _ in rows] == m.n_moves_
    np.testing.assert_allclose(state.M[0], build_m_twin(brute_B(X, w, "energy", {
        "alpha": 1.0}), res.labels, k), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("cap, work", [(3, 0), on_a_device(1024, 0), (1024, 20)])
def test_restarts_on_the_device_equal_runs_apart(monkeypatch, cap, work):
    """Three runs swept together (a block each) make, sweep by sweep, the moves each
    makes alone, with the same M, whether their lists are applied when full or when
    their corrections reach a budget; a run stopped by the driver decides nothing
    while the others go on."""
    monkeypatch.setattr(cuda_sweep, "PENDING_CAP", cap)
    monkeypatch.setattr(cuda_sweep, "PENDING_WORK", work)
    n, k = 36, 3
    X, _ = blobs(n, 2, k, seed=61, spread=2.0)
    starts = np.random.default_rng(62).integers(0, k, (3, n))
    eng, state, alone, states = runs_together_and_apart(
        lambda: GpuEngine(X, np.ones(n), "energy", {"alpha": 1.0}), starts, k)
    for it in range(3):
        if it == 2:
            state.active[1] = False
        before = dict(eng.tally.phases.get("sweeps", {"batches": 0}))
        together = eng.sweep(state)
        apart = [int(e.sweep(st)[0]) if state.active[r] else 0
                 for r, (e, st) in enumerate(zip(alone, states))]
        assert together.tolist() == apart
        eng.sync(state)
        for r in range(3):
            if not state.active[r]:
                continue
            alone[r].sync(states[r])
            np.testing.assert_array_equal(state.labels[r], states[r].labels[0])
            np.testing.assert_allclose(state.M[r], states[r].M[0], rtol=1e-12, atol=1e-9)
            np.testing.assert_allclose(state.q[r], states[r].q[0], rtol=1e-12)
        if it == 0 and cap == 1024:  # the first sweep: one pair of launches, unless
            # a budget of 20 corrections has its lists applied before they are full
            pairs = eng.tally.phases["sweeps"]["batches"] - before["batches"]
            assert (pairs >= 2) if work else (pairs == 1)


def test_movers_kept_in_shared_memory_change_no_bit(monkeypatch):
    """The pending movers' rows kept in the block's shared memory (all of them, the
    first 2 of each list of 5, or none) give the same labels and the same M, bit for
    bit: the corrections read the same numbers from either place."""
    monkeypatch.setattr(cuda_sweep, "PENDING_CAP", 5)
    n, k, d = 44, 3, 2
    X, _ = blobs(n, d, k, seed=81, spread=2.0)
    w = np.random.default_rng(82).uniform(0.5, 2.0, n)
    start = np.random.default_rng(83).integers(0, k, n)
    threads = cuda_sweep.decide_threads(k)
    out = []
    for staged in (5, 2, 0):
        room = cuda_sweep.decide_shared_bytes(k, threads, staged, d)
        monkeypatch.setattr(cuda_sweep, "DECIDE_SHARED", room)
        assert cuda_sweep.decide_threads(k) == threads
        assert cuda_sweep.decide_staged(k, threads, d, 5) == staged
        eng = GpuEngine(X, w, "energy", {"alpha": 1.0})
        state = eng.start([start], k, "hartigan")
        moves = [int(eng.sweep(state)[0]) for _ in range(2)]
        eng.sync(state)
        out.append((moves, state.labels[0].copy(), state.M[0].copy()))
    assert out[0][0][0] > 8
    for moves, labels, M in out[1:]:
        assert moves == out[0][0]
        np.testing.assert_array_equal(labels, out[0][1])
        np.testing.assert_array_equal(M, out[0][2])
    monkeypatch.setattr(cuda_sweep, "STAGE_MOVERS", False)
    assert cuda_sweep.decide_staged(k, threads, d, 5) == 0


def test_many_features_many_clusters_and_few_threads(monkeypatch):
    """Past the features the passes are compiled for (the rows read from global
    memory), with more clusters than a thread of the apply keeps in local memory
    (M updated in global memory), and windows of 2 points (32 on a device): still the
    matrix-free engine's moves, weighted, and no improving move left."""
    monkeypatch.setattr(cuda_sweep, "PENDING_CAP", 6)
    monkeypatch.setattr(cuda_sweep, "APPLY_K", 2)
    from kgroups._kernels import cuda as kernels
    monkeypatch.setattr(kernels, "_COMPILED", {})  # the apply compiled again for APPLY_K
    from numba import config
    few = 2 if config.ENABLE_CUDASIM else 32  # a device's block has 32 threads at least
    monkeypatch.setattr(cuda_sweep, "DECIDE_SHARED", 8 * 5 * (few + 3))
    n, k, d = 50, 5, 34
    assert cuda_sweep.decide_threads(k) == few
    X, _ = blobs(n, d, k, seed=71, spread=3.0)
    w = np.random.default_rng(72).uniform(0.5, 2.0, n)
    start = np.random.default_rng(73).integers(0, k, n)
    g, m = fit_both(X, w, k, start)
    np.testing.assert_array_equal(g.labels_, m.labels_)
    assert g.n_moves_ == m.n_moves_ and sum(g.n_moves_) > 10
    assert g.engine_stats_["device_calls"]["sweeps"]["windows"] == 0  # decided on the device
    assert_optimum(X, w, g.labels_, k)


def test_too_many_clusters_for_a_block_sweep_on_the_host(monkeypatch):
    """Where a window of decisions does not fit in a block's shared memory, the sweeps
    stay on the host (windows of M), with the matrix-free engine's moves."""
    monkeypatch.setattr(cuda_sweep, "DECIDE_SHARED", 8)
    n, k = 40, 3
    assert cuda_sweep.decide_threads(k) == 0
    X, _ = blobs(n, 2, k, seed=74, spread=2.0)
    start = np.random.default_rng(75).integers(0, k, n)
    eng = GpuEngine(X, np.ones(n), "energy", {"alpha": 1.0})
    state = eng.start([start], k, "hartigan")
    moves = [int(eng.sweep(state)[0]) for _ in range(3)]
    assert not any(name.startswith("decide_pass") for name in eng.tally.by_kernel)
    m = KernelKGroups(k, engine="matrix-free", init=start, dtype="float64", max_iter=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.fit(X)
    assert moves[:len(m.n_moves_)] == m.n_moves_
    np.testing.assert_array_equal(state.labels[0], m.labels_)


def test_a_build_after_device_sweeps_keeps_their_labels_and_m():
    """A pass over the pairs for other labels (count_improving_moves, say) between
    device sweeps and the results first brings the swept runs' labels and M back."""
    n, k = 60, 3
    X, _ = blobs(n, 2, k, seed=76, spread=2.0)
    start = np.random.default_rng(77).integers(0, k, n)
    eng = GpuEngine(X, np.ones(n), "energy", {"alpha": 1.0})
    state = eng.start([start], k, "hartigan")
    assert eng.sweep(state)[0] > 0
    other = eng.build_m(np.random.default_rng(78).integers(0, k, n), k)
    assert other.shape == (k, n)
    assert not np.array_equal(state.labels[0], start)  # the device's labels came back
    B = brute_B(X, np.ones(n), "energy", {"alpha": 1.0})
    np.testing.assert_allclose(state.M[0], build_m_twin(B, state.labels[0], k), rtol=1e-10,
                               atol=1e-10)


def test_threads_and_memory_of_the_sweeps(monkeypatch):
    """Threads of a decide block on a device (512 at most): at most 256 until the
    kernel's registers are known (any kernel launches 256), 512 with at most 128
    registers a thread, halved for the shared memory of many clusters, none where 32
    do not fit. The sweeps' device memory is counted in the engine's."""
    monkeypatch.setattr(cuda_sweep, "DECIDE_THREADS", 512)
    assert cuda_sweep.decide_threads(10) == 256
    assert cuda_sweep.decide_threads(10, 128) == 512
    assert cuda_sweep.decide_threads(10, 130) == 256
    assert cuda_sweep.decide_threads(11, 64) == 256  # 8 x 11 x 515 bytes: over 44 KiB
    for k in (1, 10, 100, 150):
        t = cuda_sweep.decide_threads(k, 64)
        assert t >= 32 and cuda_sweep.decide_shared_bytes(k, t) <= cuda_sweep.DECIDE_SHARED
        assert cuda_sweep.decide_shared_bytes(k, 2 * t) > cuda_sweep.DECIDE_SHARED or t == 512
    assert cuda_sweep.decide_threads(10 ** 6) == 0
    assert sweep_state_bytes(1000, 10, 2) == 8 * 2 * (1000 + 30 + 3 * cuda_sweep.PENDING_CAP
                                                      + cuda_sweep.CTL_WIDTH + 1)
    assert GpuEngine.device_bytes(1000, 3, 10, 2) > sweep_state_bytes(1000, 10, 2)
