"""Matrix-free backend (``kgroups._backends.matrix_free``): exact against brute force,
Hartigan optimum, errors, and its memory estimate.
"""

import numpy as np
import pytest

import kgroups._backends._memory as memory
import kgroups._backends.matrix_free as mf_backend
from kgroups import KernelKGroups, pairwise
from kgroups._backends import MatrixFreeEngine
from kgroups._engine._gain import cluster_stats
from kgroups._engine._twins import build_m_twin, sweep_twin
from kgroups._kgroups import kgroups_single

from tests._helpers import SEMIS, blobs, brute_B


@pytest.mark.parametrize("semimetric,params", SEMIS)
def test_matrix_free_build_m_matches_brute_force(semimetric, params):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(700, 3))  # 700 > one tile: crosses tile and cluster edges
    w = rng.uniform(0.5, 2.0, 700)
    labels = rng.integers(0, 5, 700)
    eng = MatrixFreeEngine.from_semimetric(X, w, semimetric, params, n_clusters=5)
    B = brute_B(X, w, semimetric, params)
    M = eng.build_m(labels, 5)
    np.testing.assert_allclose(M, build_m_twin(B, labels, 5), rtol=1e-10, atol=1e-10)
    c = 17
    np.testing.assert_allclose(eng.column(c), B[:, c] / (w * w[c]), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("batch", [1, 3, 64])
def test_matrix_free_sweep_matches_brute_force_twin(monkeypatch, batch):
    """Pending moves (flushed every ``batch``) give the move-at-a-time decisions."""
    monkeypatch.setattr(mf_backend, "BATCH", batch)
    rng = np.random.default_rng(2)
    X, _ = blobs(40, 2, 3, seed=3, spread=2.0)
    w = rng.uniform(0.5, 2.0, 40)
    labels = rng.integers(0, 3, 40)
    eng = MatrixFreeEngine.from_semimetric(X, w, "energy", {}, n_clusters=3)
    B = brute_B(X, w, "energy", {})
    want, want_moves = sweep_twin(B, w, labels, 3)
    got = labels.copy()
    M = eng.build_m(got, 3)
    s, q, cnt = cluster_stats(M, got, w)
    moves = eng.sweep(got, M, s, q, cnt)
    assert want_moves > 5  # the sweep does move points
    assert moves == want_moves
    np.testing.assert_array_equal(got, want)
    # M, s, q are those of the new labels
    np.testing.assert_allclose(M, build_m_twin(B, got, 3), rtol=1e-10, atol=1e-10)
    s2, q2, _ = cluster_stats(build_m_twin(B, got, 3), got, w)
    np.testing.assert_allclose(q, q2, rtol=1e-10)
    np.testing.assert_allclose(s, s2, rtol=1e-12)


def test_kgroups_single_matrix_free_reaches_hartigan_optimum():
    """After convergence no single move lowers W (checked by brute force)."""
    X, _ = blobs(300, 2, 4, seed=17, spread=2.0)
    w = np.ones(300)
    eng = MatrixFreeEngine.from_semimetric(X, w, "energy", {}, n_clusters=4)
    run = kgroups_single(eng, np.random.default_rng(18).integers(0, 4, 300), 4, 200)
    B = brute_B(X, w, "energy", {})
    _, moves = sweep_twin(B, w, run.labels, 4)
    assert run.converged and moves == 0


def test_matrix_free_rejects_callable_and_precomputed():
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(ValueError, match="named semimetric"):
        KernelKGroups(2, semimetric=lambda a, b: pairwise(a, b), engine="matrix-free").fit(X)
    with pytest.raises(ValueError, match="precomputed"):
        KernelKGroups(2, semimetric="precomputed", engine="matrix-free").fit(pairwise(X))


# -- the memory guard counts k ---------------------------------------------------
def test_matrix_free_estimate_counts_the_k_by_n_arrays(monkeypatch):
    """n = 1e6, D = 10, k = 1000, 2 workers: M and one k x n accumulator per worker
    (worker 0's is the sorted build result) are 3 k x n float64 arrays = 24 GB
    (about 22.4 GiB)."""
    import numba
    monkeypatch.setattr(numba, "get_num_threads", lambda: 2)
    got = MatrixFreeEngine.memory_bytes(10**6, 10, n_clusters=1000)
    k_by_n = 3 * 8 * 10**6 * 1000
    assert k_by_n <= got <= k_by_n + 8 * 10**6 * 100  # plus O(n D) for the data
    assert 22 * 2**30 < got < 23 * 2**30
    assert MatrixFreeEngine.memory_bytes(10**6, 10, n_clusters=1) < 2**30


@pytest.mark.parametrize("engine", ["matrix-free", "auto"])
def test_matrix_free_refuses_many_clusters_before_allocating(monkeypatch, engine):
    X, _ = blobs(3000, 10, 3, seed=22)
    monkeypatch.setattr(memory, "available_memory", lambda: 20 * 2**20)  # 20 MiB

    def no_alloc(*args, **kwargs):
        raise AssertionError("the engine was built although it does not fit")

    monkeypatch.setattr(MatrixFreeEngine, "__init__", no_alloc)
    with pytest.raises(ValueError) as err:
        KernelKGroups(1000, engine=engine).fit(X)
    msg = str(err.value)
    assert not isinstance(err.value, MemoryError)
    assert "n_clusters=1000" in msg and "GiB" in msg and "bytes" in msg and "low-rank" in msg
    # k x n float64 arrays dominate: at least 3 x 8 x 3000 x 1000 bytes are named
    need = int(msg.split("(")[1].split(" bytes")[0])
    assert need >= 3 * 8 * 3000 * 1000


def test_matrix_free_fits_with_few_clusters_under_the_same_memory(monkeypatch):
    X, _ = blobs(3000, 10, 3, seed=22)
    monkeypatch.setattr(memory, "available_memory", lambda: 20 * 2**20)
    km = KernelKGroups(3, engine="matrix-free", random_state=0).fit(X)
    assert km.engine_ == "matrix-free" and np.bincount(km.labels_).min() > 0


@pytest.mark.parametrize("driver, multi, room", [("kgroups", 10, True), ("kmeans", 10, True),
                                                  ("kgroups", 3, True), ("kgroups", 10, False)])
def test_restarts_sharing_one_pass_follow_the_dense_trajectories(monkeypatch, driver, multi,
                                                                  room):
    """build_ms (one pass for up to MULTI_STARTS starts, fewer when memory is short)
    gives, start by start, the labels, sweep counts and objective of the dense
    engine from the same start."""
    monkeypatch.setattr(mf_backend, "MULTI_STARTS", multi)
    if not room:
        monkeypatch.setattr(mf_backend, "fits", lambda nbytes: False)
    from kgroups._backends import DenseEngine
    from kgroups._kernel_kmeans import kmeans_single
    run = kgroups_single if driver == "kgroups" else kmeans_single
    X, _ = blobs(600, 4, 5, seed=4, spread=2.5)
    w = np.random.default_rng(5).uniform(0.5, 2.0, X.shape[0])
    mf = MatrixFreeEngine.from_semimetric(X, w, "energy", {"alpha": 1.5}, n_clusters=5, n_init=4)
    de = DenseEngine.from_semimetric(X, w, "energy", {"alpha": 1.5}, n_clusters=5)
    starts = [np.random.default_rng(s).integers(0, 5, X.shape[0]) for s in range(4)]
    for start, M in zip(starts, mf.build_ms(starts, 5)):
        a, b = run(mf, start, 5, 100, M=M), run(de, start, 5, 100)
        np.testing.assert_array_equal(a.labels, b.labels)
        assert a.n_moves == b.n_moves
        assert a.objective == pytest.approx(b.objective, rel=1e-12)


@pytest.mark.parametrize("semimetric, params, weighted, multi", [
    ("energy", {"alpha": 1.0}, False, 10), ("energy", {"alpha": 1.5}, True, 3),
    ("laplacian", {"sigma": 2.0}, True, 10), ("sinusoidal", {"theta": 3.0}, False, 10)])
def test_restarts_in_lockstep_make_each_single_run(monkeypatch, semimetric, params, weighted,
                                                   multi):
    """kgroups_batch (restarts swept together, movers' kernel rows shared): start by
    start, exactly the labels, moves per sweep, sweeps and objective of
    kgroups_single from the same M; runs that stop early drop out while the others
    go on; with tol and max_iter too. Starts: random (most points move in every run)
    and k-means++-like (few shared moves), in groups of ``multi``."""
    from kgroups._kgroups import kgroups_batch
    from kgroups._engine._gain import count_improving_moves
    monkeypatch.setattr(mf_backend, "MULTI_STARTS", multi)
    X, _ = blobs(900, 4, 5, seed=6, spread=2.5)
    w = (np.random.default_rng(7).uniform(0.5, 2.0, X.shape[0]) if weighted
         else np.ones(X.shape[0]))
    mf = MatrixFreeEngine.from_semimetric(X, w, semimetric, params, n_clusters=5, n_init=6)
    rng = np.random.default_rng(8)
    near = np.argmin(((X[:, None] - X[rng.choice(900, 5)]) ** 2).sum(-1), axis=1)
    starts = [rng.integers(0, 5, 900) for _ in range(3)]
    starts += [np.where(rng.random(900) < 0.1, rng.integers(0, 5, 900), near) for _ in range(3)]
    for max_iter, tol in ((100, 0.0), (3, 0.0), (100, 0.02)):
        g0, got = 0, []
        for Ms in mf.build_stacks(starts, 5):
            assert Ms.shape[0] == min(multi, len(starts) - g0)
            group = starts[g0:g0 + Ms.shape[0]]
            want = [kgroups_single(mf, st, 5, max_iter, tol, M=Ms[r].copy())
                    for r, st in enumerate(group)]
            got += kgroups_batch(mf, group, Ms, 5, max_iter, tol)
            for a, b in zip(want, got[g0:]):
                np.testing.assert_array_equal(a.labels, b.labels)
                assert (a.n_moves, a.n_iter, a.converged) == (b.n_moves, b.n_iter, b.converged)
                assert a.objective == b.objective
            g0 += Ms.shape[0]
        assert not mf._runs  # every run's bounds forgotten
        sweeps = [r.n_iter for r in got]
        if max_iter == 100 and tol == 0:
            assert len(set(sweeps)) > 1 and all(r.converged for r in got)
            for r in got:  # Hartigan optima
                M = mf.build_m(r.labels, 5)
                assert count_improving_moves(M, r.labels, w, mf.diag,
                                             *cluster_stats(M, r.labels, w)) == 0
