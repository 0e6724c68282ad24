"""The certified float32 pass (``kgroups._kernels.pairs_mixed``) and its bound
(``kgroups._kernels.certify``): every entry of ``M~`` within the proven bound of the
exact one, the own cluster's entries in float64, the Python twin equal to the compiled
pass bit for bit, the pass over own pairs giving exact ``q``, the exact columns."""

import numpy as np
import pytest

from kgroups._engines.matrix_free import MatrixFreeEngine
from kgroups._kernels import certify, pairs_mixed
from kgroups._kernels import pairs_on_the_fly as mfk
from kgroups._kernels.jit import as_python
from tests._twins import build_m_pairs_twin, rho_of_distances


def engine(X, w, name="energy", params=None):
    return MatrixFreeEngine(X, w, name, params or {}, float32=True)


def mixed(eng, labels, k, share, cross=True, n_threads=1, skip=None):
    """The mixed pass of ``labels`` (classes ``k``), columns put back in order."""
    order = np.argsort(labels, kind="stable")
    labs = np.ascontiguousarray(labels[order])
    bounds = np.searchsorted(labs, np.arange(k + 1)).astype(np.int64)
    w = eng.w[order]
    Ms = pairs_mixed.build_m_mixed(
        np.ascontiguousarray(eng.XT[:, order]),
        np.ascontiguousarray(eng._f32["XT32"][:, order]), w, w.astype(np.float32), labs,
        bounds, np.ascontiguousarray(share),
        np.zeros((k, k), dtype=bool) if skip is None else np.ascontiguousarray(skip),
        mfk.accumulators(n_threads, k, len(labels)), cross, *eng._args)
    M = np.empty_like(Ms)
    M[:, order] = Ms
    return M


def exact(eng, labels, k):
    """``M`` one pair at a time in float64 (the twin of the float64 pass)."""
    return build_m_pairs_twin(eng.X, eng.w, labels, k,
                              rho_of_distances(eng.semimetric, eng.params))


def bound(eng, labels, k):
    """``w_i T_l eps`` for the other clusters' entries, the float64 part for the own."""
    f = eng._f32
    T = np.bincount(labels, weights=eng.w, minlength=k)
    err = eng.w[None, :] * (f["eps"] * T[:, None] + f["eps64"] * T[:, None])
    own = labels[None, :] == np.arange(k)[:, None]
    err[own] = (eng.w[None, :] * f["eps64"] * T[:, None])[own]
    return err


def hostile(n, D, seed):
    """Far from the origin, near-duplicates, one wide and one narrow feature."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D)) * np.geomspace(1e-3, 50.0, D) + 1e4
    X[5] = X[4] + 1e-7
    X[6] = X[4]
    return X


@pytest.mark.parametrize("D", [1, 2, 3, 5, 10, 19])
@pytest.mark.parametrize("name, params", [("energy", {}), ("energy", {"alpha": 0.5}),
                                          ("energy", {"alpha": 2.0}),
                                          ("energy", {"alpha": 0.3}),
                                          ("gaussian", {"sigma": 40.0})])
def test_every_entry_within_the_bound_own_entries_float64(D, name, params):
    n, k = 2 * pairs_mixed.PANEL + 2 * pairs_mixed.TILE // 3 + 3, 4
    X = hostile(n, D, D)
    w = np.random.default_rng(1).uniform(0.5, 2.0, n)
    labels = np.random.default_rng(2).integers(0, k, n)
    eng = engine(X, w, name, params)
    want = exact(eng, labels, k)
    got = mixed(eng, labels, k, np.eye(k, dtype=bool))
    err = np.abs(got - want)
    assert (err <= bound(eng, labels, k)).all()
    own = labels[None, :] == np.arange(k)[:, None]
    scale = np.abs(want).max()
    assert err[own].max() <= 1e-12 * scale
    # the float32 pairs are float32: not all within float64's rounding
    assert err[~own].max() > 1e-10 * scale or name == "gaussian"


def test_all_float64_share_equals_the_float64_pass():
    rng = np.random.default_rng(3)
    n, k = 1500, 5
    X = rng.normal(size=(n, 7))
    w = rng.uniform(0.5, 2.0, n)
    labels = rng.integers(0, k, n)
    eng = engine(X, w)
    got = mixed(eng, labels, k, np.ones((k, k), dtype=bool), n_threads=2)
    np.testing.assert_allclose(got, exact(eng, labels, k), rtol=1e-12, atol=0)


@pytest.mark.parametrize("D, name, params", [(6, "energy", {}), (5, "energy", {}),
                                             (4, "energy", {"alpha": 0.5}),
                                             (3, "gaussian", {"sigma": 1.0}),
                                             (2, "energy", {"alpha": 1.3})])
def test_python_twin_equals_compiled_bit_for_bit(D, name, params):
    """Small classes (a tile holds several, blocks straddle two), so that every path
    runs: float32 runs, float64 runs, the spill of the row side, mixed blocks."""
    rng = np.random.default_rng(D)
    n, k = 3 * pairs_mixed.PANEL + 5, 9
    X = rng.normal(size=(n, D)) * 3.0
    w = rng.uniform(0.5, 2.0, n)
    labels = rng.integers(0, k, n)
    share = rng.random((k, k)) < 0.3
    share = share | share.T | np.eye(k, dtype=bool)
    eng = engine(X, w, name, params)
    compiled = mixed(eng, labels, k, share)
    with as_python():
        python = mixed(eng, labels, k, share)
    np.testing.assert_array_equal(compiled, python)


def test_spill_keeps_the_bound_over_many_tiles():
    """One large cluster against another: the row side's float32 positions are
    spilled every SPILL_TILES tiles; the sums stay within the bound."""
    rng = np.random.default_rng(5)
    n = 2 * pairs_mixed.PANEL + (pairs_mixed.SPILL_TILES + 3) * pairs_mixed.TILE
    X = rng.normal(size=(n, 4)) + 1e3
    labels = (np.arange(n) >= pairs_mixed.PANEL).astype(np.int64)
    eng = engine(X, np.ones(n))
    err = np.abs(mixed(eng, labels, 2, np.eye(2, dtype=bool), n_threads=2)
                 - exact(eng, labels, 2))
    assert (err <= bound(eng, labels, 2)).all()


def test_own_pairs_only_give_exact_q():
    rng = np.random.default_rng(6)
    n, k = 900, 6
    X = rng.normal(size=(n, 5)) * 10.0
    w = rng.uniform(0.5, 2.0, n)
    labels = rng.integers(0, k, n)
    eng = engine(X, w)
    got = mixed(eng, labels, k, np.eye(k, dtype=bool), cross=False)
    want = exact(eng, labels, k)
    q_got = np.array([got[l, labels == l].sum() for l in range(k)])
    q_want = np.array([want[l, labels == l].sum() for l in range(k)])
    np.testing.assert_allclose(q_got, q_want, rtol=1e-13)


@pytest.mark.parametrize("n_threads", [1, 2])
def test_exact_columns(n_threads):
    rng = np.random.default_rng(7)
    n, k = 1300, 5
    X = rng.normal(size=(n, 3)) + 100.0
    w = rng.uniform(0.5, 2.0, n)
    labels = rng.integers(0, k, n)
    eng = engine(X, w)
    pts = np.array([0, 17, 1299], dtype=np.int64)
    got = certify.exact_columns(eng.X, eng.XT, w, labels, pts, np.zeros((n_threads, 3, k)),
                                *eng._args)
    np.testing.assert_allclose(got, exact(eng, labels, k)[:, pts], rtol=1e-13)


def test_own_q_takes_the_exact_columns_of_the_points_given():
    M = np.arange(12, dtype=float).reshape(3, 4)
    labels = np.array([0, 1, 1, 2])
    C = np.full((3, 1), 100.0)
    q = certify.own_q(M, labels, np.ones(4), np.array([2]), C)
    np.testing.assert_array_equal(q, [0.0, 5.0 + 100.0, 11.0])


def test_pass_errors_refuse_what_float32_cannot_hold():
    eps, eps64 = certify.pass_errors("energy", {}, [1.0, 2.0], 3.0, 1000)
    assert 0 < eps64 < 1e-5 * eps < 1e-3
    assert certify.pass_errors("energy", {}, [1e16], 1e16, 10)[0] == np.inf


def test_tiny_mixed_pass_and_certified_decisions_as_python():
    """A tiny case for ``make test-python`` (NUMBA_DISABLE_JIT=1): the mixed pass
    within its bound, the own entries in float64, the exact columns."""
    rng = np.random.default_rng(9)
    n, k = 70, 3
    X = rng.normal(size=(n, 3)) + 50.0
    w = rng.uniform(0.5, 2.0, n)
    labels = rng.integers(0, k, n)
    eng = engine(X, w)
    want = exact(eng, labels, k)
    got = mixed(eng, labels, k, np.eye(k, dtype=bool))
    assert (np.abs(got - want) <= bound(eng, labels, k)).all()
    cols = certify.exact_columns(eng.X, eng.XT, w, labels, np.arange(n), np.zeros((1, n, k)),
                                 *eng._args)
    np.testing.assert_allclose(cols, want, rtol=1e-13)


def left_out_case(n, seed, k=5):
    """``n`` points in ``k`` classes, the engine, and the class pairs (0, 2) and (1, 4)
    marked to be left out of the sums."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6)) * 3.0
    labels = rng.integers(0, k, n)
    skip = np.zeros((k, k), dtype=bool)
    skip[0, 2] = skip[2, 0] = skip[1, 4] = skip[4, 1] = True
    return engine(X, np.ones(n)), labels, skip


@pytest.mark.parametrize("n_threads", [1, 2])
def test_pairs_left_out_are_not_summed(n_threads):
    """The pairs of the classes ``skip`` marks are left out of the sums, and every other
    entry is within the bound."""
    n, k = 3 * pairs_mixed.PANEL + 2 * pairs_mixed.TILE + 7, 5
    eng, labels, skip = left_out_case(n, 9, k)
    got = mixed(eng, labels, k, np.eye(k, dtype=bool), n_threads=n_threads, skip=skip)
    want = exact(eng, labels, k)
    out = skip[labels].T
    kept = ~out
    assert (np.abs(got - want)[kept] <= bound(eng, labels, k)[kept]).all()
    # every pair of a block of four rows (sorted by label) that straddles two classes
    # is summed (the engine overwrites those entries): the other points' left-out sums
    # hold at most their pairs with those few rows
    order = np.argsort(labels, kind="stable")
    straddle = np.zeros(n, dtype=bool)
    for a0 in range(0, n, 4):
        rows = order[a0:a0 + 4]
        straddle[rows] = labels[rows].min() != labels[rows].max()
    some = out & ~straddle[None, :]
    assert some.sum() > 0.9 * out.sum()
    assert (np.abs(got[some]) <= 0.05 * np.abs(want[some])).all()


def test_pairs_left_out_as_python_are_the_compiled_sums():
    """The twin leaves out the same pairs: as Python, one call covers every panel, as
    one worker does, and gives the compiled pass's sums bit for bit (the panels of a
    tile and the next tile's first)."""
    k = 5
    eng, labels, skip = left_out_case(pairs_mixed.TILE + pairs_mixed.PANEL + 7, 10, k)
    got = mixed(eng, labels, k, np.eye(k, dtype=bool), skip=skip)
    with as_python():
        python = mixed(eng, labels, k, np.eye(k, dtype=bool), skip=skip)
    np.testing.assert_array_equal(got, python)


@pytest.mark.parametrize("parallel", [False, True])
def test_moves_applied_with_exact_columns(parallel):
    """``apply_moves_exact`` adds to ``M`` what ``apply_moves`` adds, bit for bit, and
    gives the movers it is asked for their exact columns for the labels after the
    moves (two runs, a point moved in both)."""
    rng = np.random.default_rng(12)
    n, k, R, cap = 1300, 4, 2, 8
    X = rng.normal(size=(n, 5)) * 2.0
    w = rng.uniform(0.5, 2.0, n)
    eng = engine(X, w)
    labels = rng.integers(0, k, (R, n))
    pend = np.zeros((R, cap), dtype=np.int64)
    old, new = np.zeros_like(pend), np.zeros_like(pend)
    n_pend = np.array([5, 3])
    for r, pts in enumerate(([3, 40, 41, 700, 1299], [40, 41, 900])):
        pend[r, :len(pts)] = pts
        for t, p in enumerate(pts):
            old[r, t], new[r, t] = labels[r, p], (labels[r, p] + 1 + t % (k - 1)) % k
    moved = labels.copy()
    for r in range(R):
        for t in range(n_pend[r]):
            moved[r, pend[r, t]] = new[r, t]
    need = np.zeros((R, cap), dtype=bool)
    need[0, :5] = need[1, :2] = True
    M0 = rng.normal(size=(R, k, n))
    want, got = M0.copy(), M0.copy()
    mfk.apply_moves(eng.XT, w, pend, old, new, n_pend, want, *eng._args, 2 if parallel else 1)
    acc = np.zeros((2 if parallel else 1, R * cap, 4, k))
    certify.apply_moves_exact(eng.XT, w, moved, pend, old, new, n_pend, need, got, acc,
                              *eng._args)
    np.testing.assert_array_equal(got, want)
    cols = acc.sum(axis=(0, 2))
    for r in range(R):
        ref = exact(eng, moved[r], k)
        for t in range(n_pend[r]):
            e, p = r * cap + t, pend[r, t]
            if not need[r, t]:
                assert not cols[e].any()
                continue
            scale = np.abs(ref[:, p]).max()
            np.testing.assert_allclose(cols[e], ref[:, p], rtol=1e-12, atol=1e-12 * scale)


@pytest.mark.parametrize("n_threads", [1, 2])
def test_pairs_left_out_over_many_tiles(n_threads):
    """Clusters of many tiles, some ending inside a tile that every row class of a
    panel leaves out (so that tile is skipped), blocks of four rows straddling two
    clusters: the own entries stay the float64 sums and the kept ones within the
    bound, whatever panel a worker ran before."""
    rng = np.random.default_rng(14)
    k = 8
    sizes = rng.integers(150, 900, k)
    labels = np.repeat(np.arange(k), sizes)
    labels = labels[rng.permutation(labels.size)]
    n = labels.size
    centres = rng.normal(0, 30, (k, 6))
    X = centres[labels] + rng.normal(size=(n, 6))
    skip = ~np.eye(k, dtype=bool)
    skip[1, 5] = skip[5, 1] = skip[2, 3] = skip[3, 2] = False
    eng = engine(X, np.ones(n))
    got = mixed(eng, labels, k, np.eye(k, dtype=bool), n_threads=n_threads, skip=skip)
    want = exact(eng, labels, k)
    own = labels[None, :] == np.arange(k)[:, None]
    np.testing.assert_allclose(got[own], want[own], rtol=1e-12)
    kept = ~skip[:, labels]
    assert (np.abs(got - want)[kept] <= bound(eng, labels, k)[kept]).all()
