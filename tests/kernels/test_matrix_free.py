"""Matrix-free kernels (``kgroups._kernels.pairs_on_the_fly``): parallel against serial, the
symmetric build and batched moves against the pair twin, every kernel on tiny data.
"""

import numpy as np
import pytest

import kgroups._engines.matrix_free as mf_backend
from kgroups._engines.matrix_free import MatrixFreeEngine
from kgroups._kernels import pairs_on_the_fly as mfk
from kgroups._kernels.gain import cluster_stats
from tests._twins import build_m_twin, sweep_twin

from tests._helpers import brute_B, sweep_once, tiny_data


def apply_one(n_workers, eng, w, pend, old, new, n_pend, M):
    """``apply_moves`` on ``n_workers`` workers, on one run's pending list and M."""
    mfk.apply_moves(eng.XT, w, pend[None], old[None], new[None],
                    np.array([n_pend], dtype=np.int64), M[None], *eng._args, n_workers)


def test_parallel_and_serial_matrix_free_kernels_agree():
    from kgroups._kernels import pairs_on_the_fly as mfk
    rng = np.random.default_rng(19)
    X = rng.normal(size=(1200, 3))
    w = rng.uniform(0.5, 2.0, 1200)
    eng = MatrixFreeEngine(X, w, "laplacian", {"sigma": 1.0})
    labels = rng.integers(0, 4, 1200)
    order = np.argsort(labels, kind="stable")
    labs = np.ascontiguousarray(labels[order])
    bounds = np.searchsorted(labs, np.arange(5)).astype(np.int64)
    XTs = np.ascontiguousarray(eng.XT[:, order])
    Ms1 = mfk.build_m_sym(XTs, w[order], labs, bounds, mfk.accumulators(2, 4, 1200),
                          *eng._args)
    Ms2 = mfk.build_m_sym(XTs, w[order], labs, bounds, mfk.accumulators(1, 4, 1200),
                          *eng._args)
    np.testing.assert_allclose(Ms1, Ms2, rtol=1e-12, atol=1e-12)
    M1, M2 = np.empty_like(Ms1), np.empty_like(Ms2)
    M1[:, order], M2[:, order] = Ms1, Ms2
    pend = rng.choice(1200, 50, replace=False).astype(np.int64)
    old, new = labels[pend], (labels[pend] + 1) % 4
    apply_one(2, eng, w, pend, old, new, 50, M1)
    apply_one(1, eng, w, pend, old, new, 50, M2)
    np.testing.assert_allclose(M1, M2, rtol=1e-12, atol=1e-12)
    labels[pend] = new
    np.testing.assert_allclose(M1, eng.build_m(labels, 4), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 9, 530])
def test_symmetric_build_matches_pair_twin(n):
    """Each pair once, rows in blocks of 4 (n % 4 != 0), panels and tiles, duplicates,
    any number of workers: all give the brute-force M."""
    from kgroups._kernels import pairs_on_the_fly as mfk
    from tests._twins import build_m_pairs_twin
    rng = np.random.default_rng(20)
    X = rng.normal(5.0, 1.0, size=(n, 3))  # off-centre before centring
    X[n // 2] = X[0]  # an exact duplicate pair
    w = rng.uniform(0.5, 2.0, n)
    labels = rng.integers(0, 3, n)
    eng = MatrixFreeEngine(X, w, "energy", {"alpha": 0.5})
    want = build_m_pairs_twin(eng.X, w, labels, 3, lambda r: r ** 0.5)
    np.testing.assert_allclose(want, build_m_twin(brute_B(X, w, "energy", {"alpha": 0.5}),
                                                  labels, 3), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(eng.build_m(labels, 3), want, rtol=1e-11, atol=1e-12)
    order = np.argsort(labels, kind="stable")
    labs = np.ascontiguousarray(labels[order])
    bounds = np.searchsorted(labs, np.arange(4)).astype(np.int64)
    XTs = np.ascontiguousarray(eng.XT[:, order])
    for fn, n_threads in ((mfk.build_m_sym, 3), (mfk.build_m_sym, 2)):
        Ms = fn(XTs, w[order], labs, bounds, mfk.accumulators(n_threads, 3, len(labels)),
                *eng._args)
        np.testing.assert_allclose(Ms, want[:, order], rtol=1e-11, atol=1e-12)


def test_apply_moves_matches_pair_twin_with_duplicates():
    """Moves applied four at a time (7 movers), a mover duplicated in the data."""
    from kgroups._kernels import pairs_on_the_fly as mfk
    from tests._twins import build_m_pairs_twin
    rng = np.random.default_rng(21)
    X = rng.normal(size=(600, 2))
    X[5] = X[100]
    w = rng.uniform(0.5, 2.0, 600)
    labels = rng.integers(0, 3, 600)
    eng = MatrixFreeEngine(X, w, "gaussian", {"sigma": 0.7})
    rho = lambda r: 2 - 2 * np.exp(-r**2 / (2 * 0.7**2))  # noqa: E731
    M = eng.build_m(labels, 3)
    pend = np.array([5, 100, 0, 599, 300, 301, 7], dtype=np.int64)
    old, new = labels[pend], (labels[pend] + 2) % 3
    apply_one(1, eng, w, pend, old, new, 7, M)
    labels[pend] = new
    np.testing.assert_allclose(M, build_m_pairs_twin(eng.X, w, labels, 3, rho),
                               rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("batch", [1, 4])
def test_tiny_matrix_free_kernels(monkeypatch, batch):
    """Tiles (gram4, finish_row), the symmetric build's row side, decide and apply
    (sweep with pending moves), and one kernel column."""
    from kgroups._kernels import pairs_on_the_fly as mfk
    monkeypatch.setattr(mf_backend, "BATCH", batch)
    X, w, labels = tiny_data()
    B = brute_B(X, w, "energy", {"alpha": 0.5})
    eng = MatrixFreeEngine.from_semimetric(X, w, "energy", {"alpha": 0.5}, n_clusters=3)
    np.testing.assert_allclose(eng.build_m(labels, 3), build_m_twin(B, labels, 3),
                               rtol=1e-10, atol=1e-12)
    order = np.argsort(labels, kind="stable")
    labs = np.ascontiguousarray(labels[order])
    bounds = np.searchsorted(labs, np.arange(4)).astype(np.int64)
    Ms = mfk.build_m_sym(np.ascontiguousarray(eng.XT[:, order]), w[order], labs, bounds,
                         mfk.accumulators(2, 3, len(labels)), *eng._args)
    np.testing.assert_allclose(Ms, build_m_twin(B, labels, 3)[:, order], rtol=1e-10,
                               atol=1e-12)
    want, want_moves = sweep_twin(B, w, labels, 3)
    state, moves = sweep_once(eng, labels, 3)
    got, M = state.labels[0], state.M[0]
    assert moves == want_moves > 0
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(M, build_m_twin(B, got, 3), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(eng.column(2), B[:, 2] / (w * w[2]), rtol=1e-10, atol=1e-12)
    from kgroups._kernels import pairs_sym
    out = np.arange(4 * 9, dtype=np.float64).reshape(4, 9) / 8.0
    ws = np.linspace(0.5, 1.5, 12)
    buf = np.zeros((4, 16))
    pairs_sym.row_side(buf, 3, 4, ws, 5, 12, out, 2)  # columns 5..11, rho from out[:, 2:]
    np.testing.assert_allclose(buf[:3, 4:11], out[:3, 2:9] * ws[5:12], rtol=1e-15)
    assert not buf[3].any() and not buf[:, :4].any() and not buf[:, 11:].any()
    S = np.zeros((2, 20))
    pairs_sym.flush_rows(buf, 3, 4, 11, S, 1, 10)  # rows 10..12 met all of cluster 1
    np.testing.assert_allclose(S[1, 10:13], out[:3, 2:9] @ ws[5:12], rtol=1e-15)
    assert not buf.any() and not S[0].any()


@pytest.mark.parametrize("n", [1, 3, 5, 530])
def test_multi_start_build_matches_pair_twin(n):
    """One pass for R starting partitions gives each start's brute-force M
    (blocks of 4 rows, tiles of 512, duplicates, serial and parallel workers)."""
    from kgroups._kernels import pairs_on_the_fly as mfk
    from tests._twins import build_m_pairs_twin
    rng = np.random.default_rng(21)
    X = rng.normal(5.0, 1.0, size=(n, 3))
    X[n // 2] = X[0]
    w = rng.uniform(0.5, 2.0, n)
    labs = np.ascontiguousarray(rng.integers(0, 3, size=(4, n)))
    eng = MatrixFreeEngine(X, w, "energy", {"alpha": 0.5})
    want = np.vstack([build_m_pairs_twin(eng.X, w, lab, 3, lambda r: r ** 0.5) for lab in labs])
    for n_threads in (3, 2, 1):
        got = mfk.build_m_multi(eng.XT, w, labs, 3, mfk.accumulators(n_threads, 12, n),
                                *eng._args)
        np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-12)


def test_tiny_build_m_multi():
    """A tiny case of the multi-start build (runs as plain Python in make test-python)."""
    from kgroups._kernels import pairs_on_the_fly as mfk
    X = np.array([[0.0], [1.0], [3.0], [3.0], [7.0]])
    w = np.array([1.0, 2.0, 1.0, 1.0, 0.5])
    labs = np.array([[0, 0, 1, 1, 1], [1, 0, 1, 0, 0]])
    eng = MatrixFreeEngine(X, w, "energy", {})
    D = np.abs(X - X.T)
    for r in range(2):
        Z = np.eye(2)[labs[r]]
        want = -0.5 * (Z.T @ (w[:, None] * D * w[None, :]))  # M[l, i] by hand
        got = mfk.build_m_multi(eng.XT, w, labs, 2, mfk.accumulators(1, 4, 5),
                                *eng._args)[2 * r:2 * r + 2]
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


def test_tiny_bounded_sweeps_follow_brute_force_to_the_optimum():
    """Sweep after sweep on one M (the bounds persist and skip points from the second
    sweep on), the labels and move counts of the brute-force sweep, which scores
    every move by recomputing Q; at the end no single move raises Q."""
    from kgroups._kernels.gain import count_improving_moves
    X, w, labels = tiny_data(n=40, k=3, seed=31)
    X[:20] += 1.5  # two loose groups: moves over several sweeps
    B = brute_B(X, w, "energy", {"alpha": 1.0})
    eng = MatrixFreeEngine.from_semimetric(X, w, "energy", {"alpha": 1.0}, n_clusters=3)
    want = labels.copy()
    state = eng.start([labels], 3, "hartigan")
    got = state.labels[0]
    sweeps = 0
    while True:
        want, want_moves = sweep_twin(B, w, want, 3)
        assert eng.sweep(state)[0] == want_moves
        np.testing.assert_array_equal(got, want)
        sweeps += 1
        if want_moves == 0:
            break
    assert sweeps >= 3
    M = eng.build_m(got, 3)
    s, q, cnt = cluster_stats(M, got, w)
    assert count_improving_moves(M, got, w, eng.diag, s, q, cnt) == 0


@pytest.mark.parametrize("semimetric, params", [("energy", {"alpha": 1.0}),
                                                ("energy", {"alpha": 0.5}),
                                                ("gaussian", {"sigma": 2.0})])
def test_bounded_sweeps_skip_points_and_move_the_same(monkeypatch, semimetric, params):
    """Overlapping clusters, weights: sweeps that skip the points their bounds prove
    still make, sweep by sweep, the moves of sweeps that evaluate every point, and
    the bounds do prove most points still once the moves thin out."""
    from kgroups._kernels.bounds import proven_still, smallest
    from tests._helpers import blobs
    X, _ = blobs(1500, 4, 5, seed=8, spread=2.5)
    w = np.random.default_rng(9).uniform(0.5, 2.0, X.shape[0])
    start = np.random.default_rng(10).integers(0, 5, X.shape[0])
    runs = {}
    for bounded in (True, False):
        if not bounded:
            monkeypatch.setattr(mf_backend, "NEGATIVE_TYPE", ())
        eng = MatrixFreeEngine.from_semimetric(X, w, semimetric, params, n_clusters=5)
        state = eng.start([start], 5, "hartigan")
        labels, s = state.labels[0], state.s[0]
        trail, still = [], []
        for _ in range(200):
            moves = eng.sweep(state)[0]
            trail.append((moves, labels.copy()))
            b = state.bounds
            up, lo, own, all_, drift = b.up[0], b.lo[0], b.own[0], b.all[0], b.drift[0]
            s_min = smallest(s)
            still.append(np.mean([proven_still(
                w[i], s[labels[i]], s_min, up[i] + drift[labels[i]] - own[i],
                lo[i] - (drift[5] - all_[i])) for i in range(X.shape[0])]))
            if moves == 0:
                break
        runs[bounded] = (trail, still)
    (a, still), (b, _) = runs[True], runs[False]
    assert len(a) == len(b) >= 5 and sum(m for m, _ in a) > 100
    for (ma, la), (mb, lb) in zip(a, b):
        assert ma == mb
        np.testing.assert_array_equal(la, lb)
    assert max(still) > 0.5  # the bounds do skip (else this test would prove nothing)


def test_restarts_that_share_labels_are_summed_by_class(monkeypatch):
    """Starts that differ in a few labels make few classes: one pass sums the classes
    (signatures) and each start's M is its own build's, up to rounding; with the
    class limit lowered the same starts take the per-start pass."""
    rng = np.random.default_rng(11)
    X = tiny_data(n=700, d=3, k=4, seed=12)[0]
    w = rng.uniform(0.5, 2.0, X.shape[0])
    base = rng.integers(0, 4, X.shape[0])
    starts = []
    for r in range(5):
        lab = base.copy()
        flip = rng.choice(X.shape[0], 30, replace=False)
        lab[flip] = rng.integers(0, 4, 30)
        starts.append(lab)
    from kgroups._engines.engine import signatures
    sig, classes = signatures(starts, 4)
    tuples = np.stack(starts, axis=1)
    assert classes.shape[0] == np.unique(tuples, axis=0).shape[0] < 4 * 32
    np.testing.assert_array_equal(classes[sig], tuples)  # each point's class has its labels
    eng = MatrixFreeEngine(X, w, "energy", {"alpha": 1.5})
    for cap in (32, 1):
        monkeypatch.setattr(mf_backend, "SIGNATURES_PER_CLUSTER", cap)
        for start, M in zip(starts, eng.build_ms(starts, 4)):
            np.testing.assert_allclose(M, eng.build_m(start, 4), rtol=1e-11, atol=1e-9)


@pytest.mark.parametrize("semimetric, params", [("energy", {"alpha": 1.0}),
                                                ("gaussian", {"sigma": 1.5})])
def test_tiny_refreshed_bounds_hold_and_are_tight(semimetric, params):
    """The bounds each sweep starts from (refresh_bounds, on one and two workers, with
    the matrix-free engine's terms):
    ``up`` is at least the distance to the own cluster's mean and ``lo`` at most
    the distance to the nearest other mean, each within the bounds' slack of it;
    the distances come from the brute-force B (feature-space means, weights)."""
    from kgroups._kernels.bounds import refresh_bounds
    X, w, labels = tiny_data(n=60, k=4, seed=33)
    B = brute_B(X, w, semimetric, params)  # B[i, y] = -w_i w_y rho / 2
    Kw = B / w[:, None]  # w_y K(x_i, x_y)
    k = 4
    d = np.empty((X.shape[0], k))
    for l in range(k):
        inl = labels == l
        s_l = w[inl].sum()
        # ||phi_i - mu_l||^2 = K_ii - 2 sum_y w_y K_iy / s_l + sum w_a w_b K_ab / s_l^2
        d[:, l] = np.sqrt(-2 * Kw[:, inl].sum(1) / s_l + B[np.ix_(inl, inl)].sum() / s_l ** 2)
    own = d[np.arange(X.shape[0]), labels]
    other = np.where(np.arange(k)[None, :] == labels[:, None], np.inf, d).min(1)
    eng = MatrixFreeEngine.from_semimetric(X, w, semimetric, params, n_clusters=k)
    M = eng.build_m(labels, k)
    s, q, cnt = cluster_stats(M, labels, w)
    drift = np.arange(k + 1, dtype=np.float64)
    zero = np.zeros(X.shape[0])
    for n_workers in (1, 2):
        up, lo, snap_own, snap_all = (np.full(X.shape[0], np.nan) for _ in range(4))
        refresh_bounds(M, labels, w, s, zero, zero, q / s ** 2, abs(q) / s ** 2, up, lo,
                       snap_own, snap_all, drift, n_workers)
        assert np.all(up >= own) and np.all(lo <= other)
        np.testing.assert_allclose(up, own, rtol=1e-7)
        np.testing.assert_allclose(lo, other, rtol=1e-7)
        np.testing.assert_array_equal(snap_own, drift[labels])
        np.testing.assert_array_equal(snap_all, np.full(X.shape[0], drift[k]))


@pytest.mark.parametrize("semimetric, params", [
    ("energy", {"alpha": 1.0}), ("energy", {"alpha": 0.5}), ("energy", {"alpha": 2.0}),
    ("laplacian", {"sigma": 1.5}), ("gaussian", {"sigma": 1.5}), ("localized", {}),
    ("sinusoidal", {"theta": 3.0})])
def test_tiny_applied_moves_give_the_brute_force_m(semimetric, params):
    """Every semimetric's path through apply_moves (the energy distance's square root
    in the loop of the last dimensions, the others' rho after it), both
    compilations: M after a batch of moves is the brute-force M of the new labels."""
    from kgroups._kernels import pairs_on_the_fly as mfk
    X, w, labels = tiny_data(n=40, k=3, seed=35)
    eng = MatrixFreeEngine.from_semimetric(X, w, semimetric, params, n_clusters=3)
    pend = np.array([0, 39, 7, 20, 21, 3], dtype=np.int64)  # 0 and 39 are duplicates
    old, new = labels[pend], (labels[pend] + 1) % 3
    moved = labels.copy()
    moved[pend] = new
    want = build_m_twin(brute_B(X, w, semimetric, params), moved, 3)
    for n_workers in (1, 2):
        M = eng.build_m(labels, 3)
        apply_one(n_workers, eng, w, pend, old, new, pend.size, M)
        np.testing.assert_allclose(M, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("semimetric, params", [
    ("energy", {"alpha": 1.0}), ("energy", {"alpha": 0.5}), ("gaussian", {"sigma": 1.5}),
    ("sinusoidal", {"theta": 3.0})])
def test_tiny_batch_of_runs_applies_each_run_as_alone(semimetric, params):
    """apply_moves on runs in lockstep: points pending in one run, in several, in
    all, a run with none; each run's M equals, bit for bit, the M that apply_moves
    makes from that run's list alone (each entry formed in the loop that adds it
    there, once for several runs here: same entries, same order of additions), and the
    brute-force M of its new labels; both compilations."""
    from kgroups._kernels import pairs_on_the_fly as mfk
    X, w, labels = tiny_data(n=40, k=3, seed=36)
    eng = MatrixFreeEngine.from_semimetric(X, w, semimetric, params, n_clusters=3)
    lists = [[0, 3, 7, 20, 39], [3, 5, 20, 21], [], [1, 3, 7, 38, 39]]  # 0, 39 duplicates
    starts = [labels, (labels + 1) % 3, labels[::-1].copy(), (labels * 2) % 3]
    pend = np.zeros((4, 8), dtype=np.int64)
    old, new = np.zeros_like(pend), np.zeros_like(pend)
    n_pend = np.array([len(p) for p in lists], dtype=np.int64)
    for r, p in enumerate(lists):
        pend[r, :len(p)] = p
        old[r, :len(p)] = starts[r][p]
        new[r, :len(p)] = (starts[r][p] + 1 + r % 2) % 3
    for n_workers in (1, 2):
        Ms = np.stack([eng.build_m(st, 3) for st in starts])
        mfk.apply_moves(eng.XT, w, pend, old, new, n_pend, Ms, *eng._args, n_workers)
        for r, st in enumerate(starts):
            M = eng.build_m(st, 3)
            apply_one(n_workers, eng, w, pend[r], old[r], new[r], n_pend[r], M)
            np.testing.assert_array_equal(Ms[r], M)
            moved = st.copy()
            moved[pend[r, :n_pend[r]]] = new[r, :n_pend[r]]
            np.testing.assert_allclose(M, build_m_twin(brute_B(X, w, semimetric, params),
                                                       moved, 3), rtol=1e-10, atol=1e-10)


def test_tiny_union_of_pending_lists():
    from kgroups._kernels import pairs_on_the_fly as mfk
    pend = np.array([[2, 5, 9, 0], [5, 6, 0, 0], [1, 2, 9, 11]], dtype=np.int64)
    pts, ptr, who = mfk.union_movers(pend, np.array([3, 2, 4], dtype=np.int64))
    assert pts.tolist() == [1, 2, 5, 6, 9, 11]
    groups = [[(int(u) // 4, int(u) % 4) for u in who[a:b]] for a, b in zip(ptr, ptr[1:])]
    assert groups == [[(2, 0)], [(0, 0), (2, 1)], [(0, 1), (1, 0)], [(1, 1)],
                      [(0, 2), (2, 2)], [(2, 3)]]
    pts, ptr, who = mfk.union_movers(pend, np.zeros(3, dtype=np.int64))
    assert pts.size == 0 and ptr.tolist() == [0]


def _rho_brute(d2, code, alpha, sigma, theta):
    """The named semimetrics from their table (TPAMI eqs. 52-54), in NumPy."""
    r = np.sqrt(d2)
    return [r ** alpha, 2 - 2 * np.exp(-r / (2 * sigma)), 2 - 2 * np.exp(-d2 / (2 * sigma ** 2)),
            d2 * np.exp(-r / 2), d2 * theta * np.sin(r / theta)][code]


@pytest.mark.parametrize("code, alpha", [(0, 1.0), (0, 0.5), (0, 1.3), (0, 2.0), (1, 1.0),
                                         (2, 1.0), (3, 1.0), (4, 1.0)])
def test_cross_cluster_sums_brute_on_tiny_data(code, alpha):
    """predict's sums, sum_{y in C_l} w_y rho(x, y) for new rows x, against the brute sums
    over every pair, a cluster left empty; the same bits on one worker and on two, and
    with more training rows than a tile."""
    rng = np.random.default_rng(code * 10 + int(alpha * 10))
    for n in (37, 1100):
        X, Xn = rng.normal(size=(n, 3)), rng.normal(size=(9, 3))
        w, lab = rng.uniform(0.5, 2.0, n), np.sort(rng.choice([0, 1, 3], n))  # 2: empty
        bounds = np.searchsorted(lab, np.arange(5)).astype(np.int64)
        args = (code, alpha, 0.7, 1.9)
        got = mfk.cross_cluster_sums(Xn, np.ascontiguousarray(X.T), w, bounds, *args, 1)
        rho = _rho_brute(((Xn[:, None] - X[None]) ** 2).sum(-1), *args)
        want = np.stack([(rho * w)[:, lab == l].sum(1) for l in range(4)], axis=1)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        assert (got[:, 2] == 0).all()
        two = mfk.cross_cluster_sums(Xn, np.ascontiguousarray(X.T), w, bounds, *args, 2)
        np.testing.assert_array_equal(two, got)


def test_predict_sums_from_a_block_where_the_sorted_copy_does_not_fit(monkeypatch):
    """predict holds a copy of the training rows sorted by cluster; where it would not fit
    in memory its sums come from blocks of pairwise values instead: the same labels."""
    from kgroups import KernelKGroups

    rng = np.random.default_rng(4)
    X, Z = rng.normal(size=(300, 3)), rng.normal(size=(200, 3))
    est = KernelKGroups(3, engine="matrix-free", random_state=0).fit(X)
    assert not est._predictor.from_blocks
    pair_by_pair = est.predict(Z)
    monkeypatch.setattr("kgroups._engines.engine.fits", lambda nbytes: False)
    est = KernelKGroups(3, engine="matrix-free", random_state=0).fit(X)
    assert est._predictor.from_blocks
    np.testing.assert_array_equal(est.predict(Z), pair_by_pair)


def test_predict_sums_from_blocks_from_many_columns(monkeypatch):
    """From PREDICT_BLAS_MIN_D columns on, predict's sums come from blocks of values (a
    BLAS product) rather than pair by pair: the same labels and transform on wide data
    either way."""
    from kgroups import KernelKGroups
    from kgroups._engines import engine

    rng = np.random.default_rng(5)
    D = engine.PREDICT_BLAS_MIN_D
    X = np.vstack([rng.normal(c, 1.0, size=(120, D)) for c in (0.0, 0.6, 1.2)])
    Z = rng.normal(0.6, 1.0, size=(150, D))
    est = KernelKGroups(3, engine="matrix-free", random_state=0).fit(X)
    assert est._predictor.from_blocks
    blocks, dist = est.predict(Z), est.transform(Z)
    monkeypatch.setattr(engine, "PREDICT_BLAS_MIN_D", D + 1)
    est = KernelKGroups(3, engine="matrix-free", random_state=0).fit(X)
    assert not est._predictor.from_blocks
    np.testing.assert_array_equal(est.predict(Z), blocks)
    np.testing.assert_allclose(est.transform(Z), dist, rtol=1e-9)


def test_cross_cluster_sums_past_one_block_of_rows_and_on_narrow_tiles():
    """predict's pass takes CROSS_ROWS new rows per tile, and tiles of fewer columns on
    wide data: against the brute sums with rows past several blocks (one left over) and
    columns past several tiles, the same bits on one worker and on three."""
    rng = np.random.default_rng(9)
    D = 300   # tiles of cross_width(300) columns
    width = mfk.cross_width(D)
    assert width < mfk.TILE
    n, b = 5 * width + 7, 3 * mfk.CROSS_ROWS + 5
    X, Xn = rng.normal(size=(n, D)), rng.normal(size=(b, D))
    w, lab = rng.uniform(0.5, 2.0, n), np.sort(rng.choice(3, n))
    bounds = np.searchsorted(lab, np.arange(4)).astype(np.int64)
    got = mfk.cross_cluster_sums(Xn, np.ascontiguousarray(X.T), w, bounds, 0, 1.0, 1.0, 1.0, 1)
    rho = np.sqrt(((Xn[:, None] - X[None]) ** 2).sum(-1))
    want = np.stack([(rho * w)[:, lab == l].sum(1) for l in range(3)], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    three = mfk.cross_cluster_sums(Xn, np.ascontiguousarray(X.T), w, bounds, 0, 1.0, 1.0,
                                   1.0, 3)
    np.testing.assert_array_equal(three, got)
