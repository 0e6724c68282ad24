"""Matrix-free backend (``kgroups._engines.matrix_free``): exact against brute force,
Hartigan optimum, errors, and its memory estimate.
"""

import warnings

import numpy as np
import pytest

import kgroups._memory as memory
import kgroups._engines.matrix_free as mf_backend
from kgroups import KernelKGroups, pairwise
from kgroups._engines.matrix_free import MatrixFreeEngine
from kgroups._kernels.gain import cluster_stats
from tests._twins import build_m_twin, sweep_twin

from tests._helpers import SEMIS, blobs, brute_B, single_run, sweep_once


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
    state, moves = sweep_once(eng, labels, 3)
    got, M, s, q = state.labels[0], state.M[0], state.s[0], state.q[0]
    assert want_moves > 5  # the sweep does move points
    assert moves == want_moves
    np.testing.assert_array_equal(got, want)
    # M, s, q are those of the new labels
    np.testing.assert_allclose(M, build_m_twin(B, got, 3), rtol=1e-10, atol=1e-10)
    s2, q2, _ = cluster_stats(build_m_twin(B, got, 3), got, w)
    np.testing.assert_allclose(q, q2, rtol=1e-10)
    np.testing.assert_allclose(s, s2, rtol=1e-12)


def test_a_matrix_free_run_reaches_hartigan_optimum():
    """After convergence no single move lowers W (checked by brute force)."""
    X, _ = blobs(300, 2, 4, seed=17, spread=2.0)
    w = np.ones(300)
    eng = MatrixFreeEngine.from_semimetric(X, w, "energy", {}, n_clusters=4)
    run = single_run(eng, np.random.default_rng(18).integers(0, 4, 300), 4, 200)
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
    """6,000 points: engine='auto' takes the matrix-free engine there (the dense one
    below 5,000), and refuses before allocating what does not fit."""
    X, _ = blobs(6000, 10, 3, seed=22)
    monkeypatch.setattr(memory, "available_memory", lambda: 20 * 2**20)  # 20 MiB

    def no_alloc(*args, **kwargs):
        raise AssertionError("the engine was built although it does not fit")

    monkeypatch.setattr(MatrixFreeEngine, "__init__", no_alloc)
    with pytest.raises(ValueError) as err:
        KernelKGroups(1000, engine=engine).fit(X)
    msg = str(err.value)
    assert not isinstance(err.value, MemoryError)
    assert "n_clusters=1000" in msg and "GiB" in msg and "bytes" in msg and "low-rank" in msg
    # k x n float64 arrays dominate: at least 3 x 8 x 6000 x 1000 bytes are named
    need = int(msg.split("(")[1].split(" bytes")[0])
    assert need >= 3 * 8 * 6000 * 1000


def test_matrix_free_fits_with_few_clusters_under_the_same_memory(monkeypatch):
    X, _ = blobs(3000, 10, 3, seed=22)
    monkeypatch.setattr(memory, "available_memory", lambda: 20 * 2**20)
    km = KernelKGroups(3, engine="matrix-free", random_state=0).fit(X)
    assert km.engine_ == "matrix-free" and np.bincount(km.labels_).min() > 0


@pytest.mark.parametrize("rule, multi, room", [("hartigan", 10, True), ("lloyd", 10, True),
                                                ("hartigan", 3, True), ("hartigan", 10, False)])
def test_restarts_sharing_one_pass_follow_the_dense_trajectories(monkeypatch, rule, multi,
                                                                  room):
    """Restarts run in groups (up to MULTI_STARTS, fewer when memory is short) whose M
    one pass builds give, start by start, the labels, sweep counts and objective of the
    dense engine from the same start, under both move rules."""
    from kgroups._engines.dense import DenseEngine
    from kgroups._driver import run_starts
    monkeypatch.setattr(mf_backend, "MULTI_STARTS", multi)
    if not room:
        monkeypatch.setattr(mf_backend, "fits", lambda nbytes: False)
    X, _ = blobs(600, 4, 5, seed=4, spread=2.5)
    w = np.random.default_rng(5).uniform(0.5, 2.0, X.shape[0])
    mf = MatrixFreeEngine.from_semimetric(X, w, "energy", {"alpha": 1.5}, n_clusters=5, n_init=4)
    de = DenseEngine.from_semimetric(X, w, "energy", {"alpha": 1.5}, n_clusters=5)
    starts = [np.random.default_rng(s).integers(0, 5, X.shape[0]) for s in range(4)]
    assert mf.group_size(starts, 5) == (min(multi, 4) if room else 1)
    state = mf.start(starts, 5, rule)  # the whole group at once
    for it in range(100):
        if not state.active.any():
            break
        moved = mf.sweep(state)
        for r in np.flatnonzero(state.active):
            state.n_moves[r].append(int(moved[r]))
            if moved[r] == 0:
                state.active[r], state.converged[r] = False, True
    for r, a in enumerate(mf.finish(state)):
        b = single_run(de, starts[r], 5, rule=rule)
        np.testing.assert_array_equal(a.labels, b.labels)
        assert a.n_moves == b.n_moves
        assert a.objective == pytest.approx(b.objective, rel=1e-12)
    best = run_starts(mf, starts, 5, rule=rule)
    want = max((single_run(de, st, 5, rule=rule) for st in starts), key=lambda r: r.objective)
    np.testing.assert_array_equal(best.labels, want.labels)


@pytest.mark.parametrize("semimetric, params, weighted, multi", [
    ("energy", {"alpha": 1.0}, False, 10), ("energy", {"alpha": 1.5}, True, 3),
    ("laplacian", {"sigma": 2.0}, True, 10), ("sinusoidal", {"theta": 3.0}, False, 10)])
def test_restarts_in_lockstep_make_each_single_run(monkeypatch, semimetric, params, weighted,
                                                   multi):
    """Restarts swept together (movers' kernel rows shared): start by start, exactly
    the labels, moves per sweep, sweeps and objective of the same start run alone;
    runs that stop early drop out while the others go on; with tol and max_iter too.
    Starts: random (most points move in every run) and k-means++-like (few shared
    moves), in groups of ``multi``."""
    from kgroups._driver import run_starts
    from kgroups._kernels.gain import count_improving_moves
    monkeypatch.setattr(mf_backend, "MULTI_STARTS", multi)
    X, _ = blobs(900, 4, 5, seed=6, spread=2.5)
    w = (np.random.default_rng(7).uniform(0.5, 2.0, X.shape[0]) if weighted
         else np.ones(X.shape[0]))
    mf = MatrixFreeEngine.from_semimetric(X, w, semimetric, params, n_clusters=5, n_init=6)
    rng = np.random.default_rng(8)
    near = np.argmin(((X[:, None] - X[rng.choice(900, 5)]) ** 2).sum(-1), axis=1)
    starts = [rng.integers(0, 5, 900) for _ in range(3)]
    starts += [np.where(rng.random(900) < 0.1, rng.integers(0, 5, 900), near) for _ in range(3)]
    groups, built, finished = [], [], []

    def start(starts, k, rule, f=mf.start):
        groups.append(len(starts))
        return f(starts, k, rule)

    def build_ms(starts, k, f=mf.build_ms):
        Ms = f(starts, k)
        built.extend(M.copy() for M in Ms)
        return Ms

    def finish(state, f=mf.finish):
        finished.extend(f(state))
        return finished[-state.n_runs:]

    for max_iter, tol in ((100, 0.0), (3, 0.0), (100, 0.02)):
        groups.clear()
        built.clear()
        finished.clear()
        with monkeypatch.context() as m, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # max_iter=3 stops runs on purpose
            m.setattr(mf, "start", start)
            m.setattr(mf, "build_ms", build_ms)
            m.setattr(mf, "finish", finish)
            run_starts(mf, starts, 5, max_iter=max_iter, tol=tol)
        assert groups == [min(multi, 6 - g) for g in range(0, 6, multi)]
        for start_r, M, b in zip(starts, built, finished):
            with monkeypatch.context() as m:  # alone (a group of one), from the same M
                m.setattr(mf, "build_ms", lambda starts, k, M=M: M[None].copy())
                a = single_run(mf, start_r, 5, max_iter, tol)
            np.testing.assert_array_equal(a.labels, b.labels)
            assert (a.n_moves, a.n_iter, a.converged) == (b.n_moves, b.n_iter, b.converged)
            assert a.objective == b.objective
        sweeps = [r.n_iter for r in finished]
        if max_iter == 100 and tol == 0:
            assert len(set(sweeps)) > 1 and all(r.converged for r in finished)
            for r in finished:  # Hartigan optima
                M = mf.build_m(r.labels, 5)
                assert count_improving_moves(M, r.labels, w, mf.diag,
                                             *cluster_stats(M, r.labels, w)) == 0
