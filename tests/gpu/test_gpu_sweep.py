"""What a sweep of the GPU engine asks of the device, counted under numba's CUDA
simulator (``kgroups._kernels.device.DeviceTally``), and restarts that share one pass.

``make test-gpu`` runs this file with ``NUMBA_ENABLE_CUDASIM=1``; without a device or
the simulator it is skipped.
"""

import warnings

import numpy as np
import pytest

from kgroups._engines.gpu import cuda_usable

pytestmark = pytest.mark.skipif(not cuda_usable(real_device=False),
                                reason="no CUDA device and NUMBA_ENABLE_CUDASIM is not set")

from kgroups import KernelKGroups, KernelKMeans  # noqa: E402
from kgroups._engines.gpu import GpuEngine  # noqa: E402
from tests._helpers import (blobs, brute_B, on_a_device, runs_together_and_apart,  # noqa: E402
                            sweeps_counted)
from tests._twins import build_m_twin  # noqa: E402


@pytest.mark.parametrize("batch, round_trip, first", [(4, 40e-6, 15), (64, 1e-9, 5)])
def test_device_calls_per_sweep_do_not_grow_with_the_batches(monkeypatch, batch, round_trip,
                                                             first):
    """From a random start with windows of 16 columns and batches of at most 4 moves,
    or batches sent by the cost of their corrections (decisions then go on while a
    batch is in flight): no allocation in any sweep; exactly 4 integers uploaded per
    move and 2 per batch (the batches, nothing else goes up); per batch one launch,
    one synchronisation and one window back (plus at most one prefetch it made
    useless), per quiet window the same, and ``M`` once at the end of a sweep that
    moved. A window brings its points' rows of the data with its columns of ``M``
    (k + D rows of 16 columns), the only data the host reads. A per-batch
    allocation, upload of ``M`` or extra round trip fails. (The sweeps that stream M
    through the host in windows: ``HOST_M_SWEEPS`` off.)"""
    import kgroups._engines.gpu as gpu
    monkeypatch.setattr(gpu, "DEVICE_SWEEPS", False)
    monkeypatch.setattr(gpu, "HOST_M_SWEEPS", False)
    monkeypatch.setattr(gpu, "WINDOW", 16)
    monkeypatch.setattr(gpu, "BATCH", batch)
    monkeypatch.setattr(gpu, "ROUND_TRIP_SECONDS", round_trip)
    n, k = 120, 3
    X, _ = blobs(n, 2, k, seed=50, spread=2.0)
    eng = GpuEngine(X, np.ones(n), "energy", {"alpha": 1.0})
    _, rows = sweeps_counted(eng, np.random.default_rng(51).integers(0, k, n), k)
    assert rows[0][1]["batches"] >= first and len(rows) >= 3
    for moves, c in rows:
        b, win, moved = c["batches"], c["windows"], int(moves > 0)
        assert c["allocations"] == 0 and c["bytes_allocated"] == 0
        assert c["bytes_to_device"] == 32 * moves + 16 * b
        assert b >= moves / batch and (b == 0) == (moves == 0)
        assert c["syncs"] == b + win + moved
        assert c["launches"] <= 2 * b + win + 1
        assert c["transfers"] <= 3 * b + win + moved + 1
        assert c["bytes_to_host"] <= 8 * (k + 2) * 16 * (2 * b + win + 1) + 8 * k * n
    # the last sweep moves nothing: its windows only (each prefetched while the host
    # decides the one before), one launch, one copy and one synchronisation each
    last = rows[-1][1]
    assert last["windows"] == -(-n // 16) and last["bytes_to_device"] == 0
    assert last["transfers"] == last["launches"] == last["syncs"] == last["windows"]


@pytest.mark.parametrize("batch", [4, 4096])
def test_sweeps_from_the_host_m_ask_the_device_once_per_list(monkeypatch, batch):
    """The sweeps from the host's M (``HOST_M_SWEEPS``): per list of moves one upload
    (4 integers a move, 2 a list), one launch, M back once, two synchronisations;
    nothing else. A sweep in which nothing moves asks nothing of the device; no
    window is fetched and nothing is allocated."""
    import kgroups._engines.gpu as gpu
    monkeypatch.setattr(gpu, "DEVICE_SWEEPS", False)
    monkeypatch.setattr(gpu, "BATCH", batch)
    n, k = 120, 3
    X, _ = blobs(n, 2, k, seed=50, spread=2.0)
    eng = GpuEngine(X, np.ones(n), "energy", {"alpha": 1.0})
    _, rows = sweeps_counted(eng, np.random.default_rng(51).integers(0, k, n), k)
    assert len(rows) >= 3 and rows[0][0] > 0
    for moves, c in rows:
        b = c["batches"]
        assert c["allocations"] == 0 and c["windows"] == 0
        assert b >= moves / batch and (b == 0) == (moves == 0)
        assert c["bytes_to_device"] == 32 * moves + 16 * b
        assert c["launches"] == b and c["syncs"] == 2 * b and c["transfers"] == 2 * b
        assert c["bytes_to_host"] == 8 * k * n * b
    assert rows[-1][0] == 0 and rows[-1][1]["transfers"] == rows[-1][1]["syncs"] == 0


def test_batches_sized_by_the_device_cost(monkeypatch):
    """The pending list is applied once its corrections cost one device round trip:
    the budget falls as the features rise, never below 256."""
    from kgroups._engines.gpu import pending_budget
    assert pending_budget(10) == int(gpu_round_trip() / (1e-9 * 12))
    assert pending_budget(1) > pending_budget(10) > pending_budget(100) >= 256
    assert pending_budget(10**6) == 256
    import kgroups._engines.gpu as gpu  # M's copy back adds its bytes' seconds
    assert pending_budget(10, 8e6) == int((gpu_round_trip() + 8e6 / gpu.HOST_BANDWIDTH)
                                          / (1e-9 * 12))


def gpu_round_trip():
    import kgroups._engines.gpu as gpu
    return gpu.ROUND_TRIP_SECONDS


@pytest.mark.parametrize("classes", [True, False])
def test_restarts_built_in_one_pass(monkeypatch, classes):
    """Three random starts: their M from one pass over the pairs (one build kernel
    launched, the class sums or every start's sums in the pass), equal to one build
    per start and to brute force."""
    import kgroups._engines.gpu as gpu
    if not classes:
        monkeypatch.setattr(gpu, "SIGNATURES_PER_CLUSTER", 0)
    n, k = 70, 3
    X, _ = blobs(n, 3, k, seed=52, spread=2.0)
    w = np.random.default_rng(53).uniform(0.5, 2.0, n)
    starts = np.random.default_rng(54).integers(0, k, (3, n))
    eng = GpuEngine(X, w, "laplacian", {"sigma": 1.5})
    Ms = eng.build_ms(starts, k)
    passes = {name: c for name, c in eng.tally.by_kernel.items()
              if name.startswith("build_")}
    assert passes == ({"build_rows3": 1} if classes else {"build_multi": 1})
    B = brute_B(X, w, "laplacian", {"sigma": 1.5})
    for r in range(3):
        np.testing.assert_allclose(Ms[r], build_m_twin(B, starts[r], k), rtol=1e-12,
                                   atol=1e-12)
        np.testing.assert_allclose(Ms[r], eng.build_m(starts[r], k), rtol=1e-12, atol=1e-12)


def test_restarts_together_equal_runs_apart():
    """n_init = 3 given starts (built and run as one group) end as each start run
    alone: same objective for the best, same labels."""
    n, k = 50, 3
    X, _ = blobs(n, 2, k, seed=55, spread=2.0)
    starts = np.random.default_rng(56).integers(0, k, (3, n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        together = KernelKGroups(k, engine="gpu", init=starts).fit(X)
        apart = [KernelKGroups(k, engine="gpu", init=s).fit(X) for s in starts]
    best = max(apart, key=lambda e: e.objective_)
    np.testing.assert_array_equal(together.labels_, best.labels_)
    assert together.objective_ == pytest.approx(best.objective_, rel=1e-12)
    start_calls = together.engine_stats_["device_calls"]["start"]
    assert start_calls["launches"] <= 2 + 3 + 1  # zero, one pass, one sum per start


def test_lloyd_moves_applied_on_the_device():
    """Kernel k-means applies its changes with the device's batch kernel (no O(n D)
    move on the host) and fetches M once per iteration."""
    n, k = 80, 3
    X, _ = blobs(n, 2, k, seed=57, spread=2.0)
    start = np.random.default_rng(58).integers(0, k, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = KernelKMeans(k, engine="gpu", init=start).fit(X)
        m = KernelKMeans(k, engine="matrix-free", init=start).fit(X)
    np.testing.assert_array_equal(g.labels_, m.labels_)
    sweeps = g.engine_stats_["device_calls"]["sweeps"]
    moved = sum(1 for c in g.n_moves_ if c)
    assert sweeps["batches"] == moved
    assert sweeps["bytes_to_device"] == 32 * sum(g.n_moves_) + 16 * moved
    assert sweeps["allocations"] == 0


def test_every_device_allocation_is_counted_first(monkeypatch):
    """The class sums of restarts (G x n on the device) are taken only when they fit in
    the free memory, else the pass that feeds each start's sums runs; an allocation
    beyond the free memory is refused, before it is made, with the clear error."""
    import kgroups._engines.gpu as gpu
    import kgroups._kernels.device as device
    n, k = 70, 3
    X, _ = blobs(n, 3, k, seed=59, spread=2.0)
    starts = np.random.default_rng(60).integers(0, k, (3, n))
    eng = GpuEngine(X, np.ones(n), "energy", {"alpha": 1.0})
    monkeypatch.setattr(gpu, "device_free_memory", lambda: 8.0 * n * 2 * k)
    Ms = eng.build_ms(starts, k)
    assert "build_multi" in eng.tally.by_kernel and "build_sym" not in eng.tally.by_kernel
    B = brute_B(X, np.ones(n), "energy", {"alpha": 1.0})
    np.testing.assert_allclose(Ms[2], build_m_twin(B, starts[2], k), rtol=1e-12, atol=1e-12)
    allocated = eng.tally.phases["prepare"]["allocations"]
    monkeypatch.setattr(device, "device_free_memory", lambda: 8.0 * n * k * 4)
    with pytest.raises(ValueError, match=r"the runs' M needs 0\.00 GiB of device memory "
                       r"but 0\.00 GiB are free; use engine='matrix-free'"):
        eng.build_ms(np.vstack([starts, starts]), k)
    assert eng.tally.phases["prepare"]["allocations"] == allocated


@pytest.mark.parametrize("batch, round_trip, host_m", [
    (8, 40e-6, True), (64, 1e-9, False), on_a_device(64, 1e-9, True),
    on_a_device(8, 40e-6, False)])
def test_restarts_sweep_in_lockstep_sharing_batches(monkeypatch, batch, round_trip, host_m):
    """Three runs swept together make, sweep by sweep, the moves each makes alone
    (the same M to 1e-12), in fewer batches than the three alone: one launch
    applies every run's pending moves (full lists, or lists sent by their cost with
    decisions going on while a batch is in flight), from the host's M or in windows."""
    import kgroups._engines.gpu as gpu
    monkeypatch.setattr(gpu, "DEVICE_SWEEPS", False)
    monkeypatch.setattr(gpu, "HOST_M_SWEEPS", host_m)
    monkeypatch.setattr(gpu, "WINDOW", 16)
    monkeypatch.setattr(gpu, "BATCH", batch)
    monkeypatch.setattr(gpu, "ROUND_TRIP_SECONDS", round_trip)
    n, k = 60, 3
    X, _ = blobs(n, 2, k, seed=61, spread=2.0)
    starts = np.random.default_rng(62).integers(0, k, (3, n))
    eng, state, alone, states = runs_together_and_apart(
        lambda: GpuEngine(X, np.ones(n), "energy", {"alpha": 1.0}), starts, k)
    for _ in range(3):
        together = eng.sweep(state)
        apart = [int(e.sweep(st)[0]) for e, st in zip(alone, states)]
        assert together.tolist() == apart
        for r in range(3):
            np.testing.assert_array_equal(state.labels[r], states[r].labels[0])
            np.testing.assert_allclose(state.M[r], states[r].M[0], rtol=1e-12, atol=1e-9)
    batches = eng.tally.phases["sweeps"]["batches"]
    apart_batches = sum(e.tally.phases["sweeps"]["batches"] for e in alone)
    assert 0 < batches < 0.75 * apart_batches


def test_more_clusters_than_a_thread_holds_and_too_many_features(monkeypatch):
    """Restarts with more clusters than the multi-start pass holds per thread build one
    pass per start (still exact); data wider than a block's shared memory are refused
    with the limit and the alternative."""
    import kgroups._engines.gpu as gpu
    from kgroups._kernels import cuda as kernels
    monkeypatch.setattr(gpu, "SIGNATURES_PER_CLUSTER", 0)
    monkeypatch.setattr(kernels, "STARTS_LOCAL", 2)
    n, k = 40, 3
    X, _ = blobs(n, 2, k, seed=63, spread=2.0)
    starts = np.random.default_rng(64).integers(0, k, (2, n))
    eng = GpuEngine(X, np.ones(n), "energy", {"alpha": 1.0})
    Ms = eng.build_ms(starts, k)
    assert "build_multi" not in eng.tally.by_kernel and eng.tally.by_kernel["build_rows2"] == 2
    B = brute_B(X, np.ones(n), "energy", {"alpha": 1.0})
    for r in range(2):
        np.testing.assert_allclose(Ms[r], build_m_twin(B, starts[r], k), rtol=1e-12,
                                   atol=1e-12)
    monkeypatch.setattr(gpu, "MAX_FEATURES", 1)
    with pytest.raises(ValueError, match=r"engine='gpu' takes at most 1 features .* got "
                       r"n_features=2; use engine='matrix-free'"):
        KernelKGroups(2, engine="gpu").fit(X)


def test_host_m_pinned_or_not_the_same_fit(monkeypatch):
    """The runs' M on the host in page-locked memory (``PINNED_M``), or in ordinary
    memory where the page-locked allocation is refused: the same labels and moves as
    the matrix-free engine either way."""
    import kgroups._engines.gpu as gpu
    monkeypatch.setattr(gpu, "PINNED_M", True)
    n, k = 80, 3
    X, _ = blobs(n, 2, k, seed=91, spread=2.0)
    start = np.random.default_rng(92).integers(0, k, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = KernelKGroups(k, engine="matrix-free", init=start, dtype="float64").fit(X)
        g = KernelKGroups(k, engine="gpu", init=start).fit(X)
        np.testing.assert_array_equal(g.labels_, m.labels_)
        assert g.n_moves_ == m.n_moves_
        eng = GpuEngine(X, np.ones(n), "energy", {"alpha": 1.0})

        def refused(*args, **kwargs):
            raise MemoryError("page-locked memory refused")

        monkeypatch.setattr(eng._k.cuda, "pinned_array", refused)
        assert type(eng._host_m((1, k, n))) is np.ndarray
