"""The matrix-free engine's symmetric pass (``kgroups._kernels.pairs_sym``) against the
pair-at-a-time twin: every number of dimensions (the passes of four, two and one
dimension, the energy distance's fused loop and the other semimetrics' path), panels
and tiles crossed, short cluster segments, rows of a block in different clusters,
weights, near-duplicates far from the origin, serial and parallel workers."""

import numpy as np
import pytest

from kgroups._engines.matrix_free import MatrixFreeEngine
from kgroups._kernels import pairs_on_the_fly as mfk
from kgroups._kernels import pairs_sym
from tests._twins import build_m_pairs_twin, rho_of_distances


def sorted_pass(eng, w, labels, k, fn, n_threads):
    order = np.argsort(labels, kind="stable")
    labs = np.ascontiguousarray(labels[order])
    bounds = np.searchsorted(labs, np.arange(k + 1)).astype(np.int64)
    Ms = fn(np.ascontiguousarray(eng.XT[:, order]), w[order], labs, bounds,
            mfk.accumulators(n_threads, k, len(labels)), *eng._args)
    M = np.empty_like(Ms)
    M[:, order] = Ms
    return M


def twin(eng, w, labels, k, name, params):
    return build_m_pairs_twin(eng.X, w, labels, k, rho_of_distances(name, params))


@pytest.mark.parametrize("D", [1, 2, 3, 4, 5, 6, 7, 10, 12, 19])
@pytest.mark.parametrize("name, params", [("energy", {}), ("energy", {"alpha": 0.5}),
                                          ("gaussian", {"sigma": 1.5})])
def test_every_dimension_count_matches_pair_twin(D, name, params):
    rng = np.random.default_rng(D)
    n, k = 3 * pairs_sym.PANEL + 2 * pairs_sym.TILE // 3 + 1, 4  # panels, tiles, n % 4 == 1
    X = rng.normal(3.0, 1.0, size=(n, D))
    w = rng.uniform(0.5, 2.0, n)
    labels = rng.integers(0, k, n)
    eng = MatrixFreeEngine(X, w, name, params)
    want = twin(eng, w, labels, k, name, params)
    scale = np.abs(want).max()
    for fn, n_threads in ((mfk.build_m_sym, 1), (mfk.build_m_sym, 2),
                          (mfk.build_m_sym, 3)):
        got = sorted_pass(eng, w, labels, k, fn, n_threads)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13 * scale)


def test_short_segments_and_blocks_across_clusters():
    """Many small clusters: a tile holds several, the four rows of a block often
    belong to two, and a row's buffer is flushed many times per tile."""
    rng = np.random.default_rng(3)
    n, k = 1500, 97
    X = rng.normal(size=(n, 6))
    w = rng.uniform(0.5, 2.0, n)
    labels = rng.integers(0, k, n)
    labels[labels == 5] = 6  # an empty cluster
    eng = MatrixFreeEngine(X, w, "energy", {})
    want = twin(eng, w, labels, k, "energy", {})
    got = sorted_pass(eng, w, labels, k, mfk.build_m_sym, 2)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13 * np.abs(want).max())
    assert not got[5].any()


def test_near_duplicates_far_from_the_origin_are_exact():
    """Squared distances by differences: pairs 1e-7 apart at 1e4 from the centre
    (where |x|^2 + |y|^2 - 2 x.y loses every digit) have their exact distances."""
    rng = np.random.default_rng(4)
    base = rng.normal(size=(40, 3)) * 1e4
    X = np.vstack([base, base + 1e-7 * rng.normal(size=(40, 3)), [[0.0, 0.0, 0.0]] * 40])
    w = np.ones(len(X))
    labels = rng.integers(0, 2, len(X))
    eng = MatrixFreeEngine(X, w, "energy", {"alpha": 1.0})
    got = sorted_pass(eng, w, labels, 2, mfk.build_m_sym, 1)
    want = twin(eng, w, labels, 2, "energy", {})
    np.testing.assert_allclose(got, want, rtol=1e-13)
    # the part of M from the near-duplicate partner alone is recovered to 1e-6 relative
    one = np.zeros(len(X), dtype=np.int64)
    one[40] = 1  # cluster 1 is the partner of point 0
    M1 = sorted_pass(eng, w, one, 2, mfk.build_m_sym, 1)
    d = np.sqrt(((eng.X[0] - eng.X[40]) ** 2).sum())
    assert d < 1e-6
    assert M1[1, 0] == pytest.approx(-0.5 * d, rel=1e-6)


@pytest.mark.parametrize("D, name, params", [(10, "energy", {}), (3, "gaussian", {"sigma": 1.0})])
def test_compiled_and_python_give_the_same_bits(D, name, params):
    """The order of every addition is the loops': the pass run as Python (panels,
    the fused loop, the row side's partial sums) equals the compiled one bit for bit."""
    from kgroups import config_context

    rng = np.random.default_rng(7)
    n, k = pairs_sym.PANEL + 70, 3
    X = rng.normal(size=(n, D))
    w = rng.uniform(0.5, 2.0, n)
    labels = rng.integers(0, k, n)
    eng = MatrixFreeEngine(X, w, name, params)
    compiled = sorted_pass(eng, w, labels, k, mfk.build_m_sym, 1)
    with config_context(kernels="python"):
        python = sorted_pass(eng, w, labels, k, mfk.build_m_sym, 1)
    np.testing.assert_array_equal(python, compiled)


@pytest.mark.parametrize("first", [True, False])
def test_a_pass_of_eight_dimensions_is_two_passes_of_four_bit_for_bit(first):
    """``diff_dims8`` adds the same terms in the same order as two ``diff_dims`` passes
    of four: the squared distances, so ``M``, do not depend on how the dimensions are
    cut into passes."""
    rng = np.random.default_rng(8)
    XT = np.ascontiguousarray(rng.normal(size=(11, 301)) * rng.uniform(1e-3, 1e3, (11, 1)))
    idx = np.array([3, 0, 200, 7])
    start = rng.random((4, 64)) * 10 if not first else np.zeros((4, 64))
    eight, fours = start.copy(), start.copy()
    pairs_sym.diff_dims8(XT, idx, 100, 164, 2, first, eight)
    pairs_sym.diff_dims(XT, idx, 100, 164, 2, 4, first, fours)
    pairs_sym.diff_dims(XT, idx, 100, 164, 6, 4, False, fours)
    assert np.array_equal(eight, fours)
