"""Tests for the exact 1-D two-class algorithm (paper appendix, Algorithm 3)."""

import itertools

import numpy as np
import scipy.sparse
import pytest

from kgroups._onedim import OneDimResult, onedim_kgroups


def _within_energy(x, w, labels):
    """W = sum_j (1 / (2 s_j)) sum_{x,y in C_j} w_x w_y |x - y| (direct, O(n^2))."""
    B = np.outer(w, w) * np.abs(x[:, None] - x[None, :])
    total = 0.0
    for j in np.unique(labels):
        idx = labels == j
        total += B[np.ix_(idx, idx)].sum() / (2 * w[idx].sum())
    return total


def _brute_force(x, w):
    """Minimum of W over ALL partitions into two non-empty groups (2^(n-1) - 1 of them)."""
    n = x.size
    masks = np.array(list(itertools.product([0, 1], repeat=n - 1)), dtype=bool)[1:]
    Z = np.hstack([np.zeros((masks.shape[0], 1), dtype=bool), masks])  # point 0 in group 0
    B = np.outer(w, w) * np.abs(x[:, None] - x[None, :])
    energies = []
    for z in Z:
        a, b = ~z, z
        energies.append(B[np.ix_(a, a)].sum() / (2 * w[a].sum())
                        + B[np.ix_(b, b)].sum() / (2 * w[b].sum()))
    energies = np.array(energies)
    return energies.min(), Z[energies <= energies.min() * (1 + 1e-12) + 1e-300]


def _is_contiguous(x, z):
    """True when one group's values all lie below the other's."""
    return x[~z].max() <= x[z].min() or x[z].max() <= x[~z].min()


def _paper_eq67(x, labels):
    """Paper eq. (67): W = sum_j sum_l (2 l - 1 - n_j) / n_j * x_(l) (unit weights)."""
    total = 0.0
    for j in np.unique(labels):
        xs = np.sort(x[labels == j])
        nj = xs.size
        ell = np.arange(1, nj + 1)
        total += np.sum((2 * ell - 1 - nj) / nj * xs)
    return total


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("n", [2, 3, 5, 8, 10])
def test_brute_force_all_partitions(seed, n):
    rng = np.random.default_rng(1000 * n + seed)
    if seed % 3 == 0:
        x = rng.integers(0, 4, size=n).astype(float)  # many ties
        if np.ptp(x) == 0:
            x[0] += 1.0
    elif seed % 3 == 1:
        x = rng.lognormal(size=n)
    else:
        x = np.concatenate([rng.normal(0, 1, n // 2), rng.normal(3, 1, n - n // 2)])
    w = rng.uniform(0.2, 3.0, size=n) if seed % 2 else np.ones(n)
    res = onedim_kgroups(x, sample_weight=w)
    best, argbest = _brute_force(x, w)
    # the global optimum over all partitions is a contiguous split of the sorted data
    assert all(_is_contiguous(x, z) for z in argbest)
    assert res.within_energy == pytest.approx(best, rel=1e-12, abs=1e-14)
    assert _within_energy(x, w, res.labels) == pytest.approx(best, rel=1e-12, abs=1e-14)
    # tied points share a label; group 0 is the left group; threshold separates
    assert np.all(x[res.labels == 0] < res.threshold + 1e-12)
    assert np.all(x[res.labels == 1] > res.threshold - 1e-12)
    assert x[res.labels == 0].max() < x[res.labels == 1].min()


def test_every_split_against_direct_n200():
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.lognormal(0, 1, 120), rng.lognormal(2, 0.5, 80)])
    rng.shuffle(x)
    n = x.size
    xs = np.sort(x)
    B = np.abs(xs[:, None] - xs[None, :])
    direct = np.array([B[:m, :m].sum() / (2 * m) + B[m:, m:].sum() / (2 * (n - m))
                       for m in range(1, n)])
    m = int(np.argmin(direct)) + 1
    res = onedim_kgroups(x)
    assert res.within_energy == pytest.approx(direct.min(), rel=1e-12)
    assert int(np.sum(res.labels == 0)) == m
    assert res.threshold == pytest.approx((xs[m - 1] + xs[m]) / 2, rel=1e-15)
    assert res.within_energy == pytest.approx(_paper_eq67(x, res.labels), rel=1e-12)
    # all splits, through the private scan
    from kgroups._onedim import _split_energies

    np.testing.assert_allclose(_split_energies(xs, np.ones(n)), direct, rtol=1e-12)


def test_paper_g_formula_weighted_and_unweighted():
    # g(C,C) = (2/s^2) sum_l w_l (S_{l-1} + S_l - s) x_(l); unit weights: (2/n^2) sum (2l-1-n) x_(l)
    rng = np.random.default_rng(11)
    x = np.sort(rng.normal(size=30))
    for w in (np.ones(30), rng.uniform(0.1, 2.0, 30)):
        s = w.sum()
        S = np.cumsum(w)
        closed = 2 / s**2 * np.sum(w * (S - w + S - s) * x)
        direct = np.sum(np.outer(w, w) * np.abs(x[:, None] - x[None, :])) / s**2
        assert closed == pytest.approx(direct, rel=1e-12)
    ell = np.arange(1, 31)
    assert 2 / 900 * np.sum((2 * ell - 1 - 30) * x) == pytest.approx(
        np.abs(x[:, None] - x[None, :]).mean(), rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_integer_weights_equal_repeated_points(seed):
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.normal(0, 1, 25), rng.normal(2.5, 1, 15)])
    w = rng.integers(1, 5, size=x.size)
    res_w = onedim_kgroups(x, sample_weight=w)
    res_r = onedim_kgroups(np.repeat(x, w))
    assert res_w.within_energy == pytest.approx(res_r.within_energy, rel=1e-12)
    assert res_w.threshold == res_r.threshold
    np.testing.assert_array_equal(np.repeat(res_w.labels, w), res_r.labels)


def test_ties_do_not_depend_on_order():
    rng = np.random.default_rng(5)
    x = rng.integers(0, 6, size=60).astype(float)
    res = onedim_kgroups(x)
    for v in np.unique(x):
        assert np.unique(res.labels[x == v]).size == 1
    perm = rng.permutation(x.size)
    res_p = onedim_kgroups(x[perm])
    np.testing.assert_array_equal(res_p.labels, res.labels[perm])
    assert res_p.within_energy == pytest.approx(res.within_energy, rel=1e-13)


def test_all_equal_and_two_points():
    res = onedim_kgroups([3.0, 3.0, 3.0])
    assert res.within_energy == 0.0
    assert res.labels.tolist() == [0, 1, 1]
    res = onedim_kgroups([2.0, -1.0])
    assert res.labels.tolist() == [1, 0]
    assert res.threshold == 0.5
    assert res.within_energy == 0.0


def test_shift_invariance_far_from_origin():
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.normal(0, 1, 300), rng.normal(4, 1, 300)])
    res = onedim_kgroups(x)
    res_far = onedim_kgroups(x + 1e8)
    np.testing.assert_array_equal(res.labels, res_far.labels)
    assert res_far.within_energy == pytest.approx(res.within_energy, rel=1e-6)


def test_separated_groups_and_column_input():
    rng = np.random.default_rng(9)
    x = np.concatenate([rng.normal(0, 0.5, 50), rng.normal(10, 0.5, 70)])
    res = onedim_kgroups(x[:, None])
    assert isinstance(res, OneDimResult)
    np.testing.assert_array_equal(res.labels, np.r_[np.zeros(50), np.ones(70)])
    assert res.labels.shape == (120,)


def test_errors():
    with pytest.raises(ValueError, match=r"onedim_kgroups: x has shape \(1, 1\); expected at least 2"):
        onedim_kgroups([1.0])
    with pytest.raises(ValueError, match=r"onedim_kgroups: x contains NaN.*x\[1, 0\]=nan"):
        onedim_kgroups([1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match=r"x\[0, 0\]=inf"):
        onedim_kgroups([np.inf, 2.0])
    with pytest.raises(ValueError, match=r"onedim_kgroups: x should have shape.*got shape \(4, 2\)"):
        onedim_kgroups(np.zeros((4, 2)))
    with pytest.raises(ValueError, match=r"sample_weight has shape \(2,\), expected \(3,\)"):
        onedim_kgroups([1.0, 2.0, 3.0], sample_weight=[1.0, 1.0])
    with pytest.raises(ValueError, match=r"onedim_kgroups: sample_weight\[1\]=0.0"):
        onedim_kgroups([1.0, 2.0, 3.0], sample_weight=[1.0, 0.0, 1.0])
    with pytest.raises(ValueError, match=r"onedim_kgroups: x is a scipy.sparse matrix"):
        onedim_kgroups(scipy.sparse.csr_matrix(np.ones((4, 1))))


def test_extreme_magnitudes_scale_exactly():
    # W(c x) = c W(x) and W with weights c w is c W(w); labels do not change
    x = np.array([0.0, 1.0, 2.0, 10.0, 11.0, 13.0])
    ref = onedim_kgroups(x)
    for c in (2.0**600, 2.0**-600):
        res = onedim_kgroups(x * c)
        np.testing.assert_array_equal(res.labels, ref.labels)
        assert res.within_energy == pytest.approx(c * ref.within_energy, rel=1e-14)
        assert res.threshold == pytest.approx(c * ref.threshold, rel=1e-14)
        res_w = onedim_kgroups(x, sample_weight=np.full(6, c))
        assert res_w.within_energy == pytest.approx(c * ref.within_energy, rel=1e-14)
    big = onedim_kgroups(np.array([-1.7e308, -1.6e308, 1.6e308, 1.7e308]))
    assert big.labels.tolist() == [0, 0, 1, 1] and np.isfinite(big.within_energy)
    assert big.threshold == 0.0
