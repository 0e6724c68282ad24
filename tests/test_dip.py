"""Hartigan's dip test (kgroups._stats.dip): hand-worked dips, the properties of
the statistic, the spreading of ties, and the calibration of its p-values on uniform
samples (the least favourable unimodal law) and on bimodal ones."""

import numpy as np
import pytest

from kgroups._stats.dip import (
    DIP_N,
    DIP_QUANTILES,
    DIP_TAILS,
    codes_alone,
    dip,
    dip_pvalue,
    dip_test,
    effective_sample,
    read_to_precision,
    spread_ties,
)


def test_evenly_spaced_points_have_the_smallest_dip():
    """n evenly spaced points: F_n is a staircase around a straight line, 1/(2n) away."""
    for n in (4, 7, 30):
        assert dip(np.arange(n, dtype=float)) == pytest.approx(1.0 / (2 * n), abs=1e-15)


def test_two_tight_groups_by_hand():
    """Three points at 0, 0.1, 0.2 and three at 10, 10.1, 10.2: 0.245, the value of R's
    diptest::dip (Maechler's implementation of AS 217) for these points, just below
    the 1/4 of two point masses of equal weight."""
    assert dip([0.0, 0.1, 0.2, 10.0, 10.1, 10.2]) == pytest.approx(0.245, abs=1e-12)
    # four tight groups of equal weight: a unimodal function can follow two of them
    # on its modal interval, so the dip is about 1/8, half that of two groups
    x = np.concatenate([np.arange(5) * 0.01 + 10.0 * g for g in range(4)])
    assert dip(x) == pytest.approx(0.125, abs=0.002)


def test_dip_is_affine_invariant_and_symmetric():
    x = np.random.default_rng(0).normal(size=300)
    x[:100] += 3.0
    d = dip(x)
    assert dip(5.0 * x - 2.0) == pytest.approx(d, rel=1e-12)
    assert dip(-x) == pytest.approx(d, rel=1e-12)
    assert dip(np.random.default_rng(1).permutation(x)) == d


def test_unimodal_samples_have_small_dips_and_bimodal_large():
    rng = np.random.default_rng(2)
    for n in (100, 1000):
        assert np.sqrt(n) * dip(rng.normal(size=n)) < 0.6
        two = np.concatenate([rng.normal(size=n // 2), rng.normal(size=n // 2) + 6.0])
        assert np.sqrt(n) * dip(two) > 0.9         # past every quantile of the table


def test_ties_are_spread_not_read_as_modes():
    x = [0.0, 1.0, 1.0, 2.0]
    np.testing.assert_allclose(spread_ties(x), [0.0, 0.75, 1.25, 2.0])
    # integer scores of a unimodal law (binomial): as a staircase they would look
    # far from unimodal; spread over their rounding intervals they do not
    scores = np.random.default_rng(3).binomial(10, 0.4, size=500).astype(float)
    assert dip_test(scores)[1] > 0.05
    assert spread_ties([3.0, 1.0, 2.0]).tolist() == [1.0, 2.0, 3.0]    # no ties: sorted
    assert dip([1.0, 1.0, 1.0, 1.0]) == 0.0 and dip([0.0, 1.0, 2.0]) == 0.0


def test_rounded_columns_are_read_to_their_precision_and_codes_kept():
    """Each column of repeated values on steps of at most ``max_step`` standard deviations
    is spread over its rounding cells (a cell's points cover it evenly); binary codes, a
    column of wider steps and a continuous column stay as they are."""
    rng = np.random.default_rng(4)
    n = 4000
    X = np.c_[np.round(rng.normal(size=n) * 4) / 2,            # steps of 1/2: sd 2
              rng.integers(0, 2, n),                            # binary
              3.0 * rng.integers(0, 3, n),                      # 3 levels, steps 3 > sd
              rng.normal(size=n)]                               # continuous, no ties
    T = read_to_precision(X, seed=7)
    assert np.array_equal(T[:, 1:], X[:, 1:])
    d = T[:, 0] - X[:, 0]
    assert np.abs(d).max() <= 0.25 and np.unique(T[:, 0]).size == n
    cell = X[:, 0] == 0.0                                       # the modal cell: ~400 points
    assert np.histogram(d[cell], bins=4, range=(-0.25, 0.25))[0].min() > 0.15 * cell.sum()
    assert np.array_equal(read_to_precision(X, seed=7), T)      # seeded: the same draws
    assert read_to_precision(X[:, 3:], seed=7) is not X and np.shares_memory(
        read_to_precision(X[:, 3:], seed=7), X)                 # nothing spread: no copy
    # steps above max_step standard deviations: kept
    assert np.array_equal(read_to_precision(X, seed=7, max_step=0.2)[:, 0], X[:, 0])


def test_codes_alone_are_those_no_regression_on_the_others_explains():
    """``codes_alone`` against a brute-force least-squares regression of each code on the
    other columns (intercept included) and its F test: a code that a column follows is
    not alone, independent codes are, one-hot codes predict each other exactly; weights
    are copies of rows."""
    from scipy.stats import f as f_law

    rng = np.random.default_rng(8)
    n = 300
    b = rng.integers(0, 2, (n, 4)).astype(float)
    X = np.c_[b, b[:, 0] + rng.normal(0.0, 1.0, n), rng.normal(size=n)]

    def p_value(j):
        A = np.c_[np.ones(n), np.delete(X, j, axis=1)]
        res = X[:, j] - A @ np.linalg.lstsq(A, X[:, j], rcond=None)[0]
        r2 = 1.0 - res @ res / ((X[:, j] - X[:, j].mean()) ** 2).sum()
        q = A.shape[1] - 1
        return f_law.sf(r2 / q / ((1.0 - r2) / (n - q - 1)), q, n - q - 1)

    codes = [0, 1, 2, 3]
    brute = [j for j in codes if p_value(j) >= 0.01 / 4]
    assert brute == codes_alone(X, codes, level=0.01) == [1, 2, 3]
    assert p_value(0) < 1e-6 and min(p_value(j) for j in (1, 2, 3)) > 0.01
    one_hot = np.eye(3)[rng.integers(0, 3, n)]
    assert codes_alone(np.c_[one_hot, rng.normal(size=n)], [0, 1, 2]) == []
    assert codes_alone(np.c_[b[:, :1], np.ones(n)], [0]) == [0]        # nothing else varies
    assert codes_alone(b[:4], [0, 1, 2, 3]) == []                     # no degree of freedom
    reps = rng.integers(1, 4, n)
    assert codes_alone(X, codes, reps.astype(float)) == codes_alone(
        np.repeat(X, reps, axis=0), codes, None) == [1, 2, 3]


def test_independent_codes_are_read_to_their_precision_and_related_ones_kept():
    """Ten independent fair bits: the line of a 2-cluster fit lies near one bit, whose two
    levels the dip reads as two modes whatever the other bits do; they are unrelated to
    the others, so read to their precision (a flat pair of cells each) the projection is
    one mode. A bit that another column follows keeps its atoms (its levels are groups of
    rows that differ elsewhere too), and so does every code where no level is given."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, (300, 10)).astype(float)
    line = np.r_[1.0, np.full(9, 0.05)]
    assert dip_test(X @ line)[1] < 0.005                          # read as they are: modes
    T = read_to_precision(X, seed=0, level=0.01)
    assert dip_test(T @ line)[1] > 0.05 and np.abs(T - X).max() <= 0.5
    assert np.array_equal(read_to_precision(X, seed=0), X)        # no level: codes kept
    Y = np.c_[X, 4.0 * X[:, 0] + rng.normal(size=300)]
    T = read_to_precision(Y, seed=0, level=0.01)
    assert np.array_equal(T[:, [0, 10]], Y[:, [0, 10]]) and np.all(T[:, 1:10] != Y[:, 1:10])


def test_rounded_unimodal_data_are_unimodal_read_to_their_precision():
    """A 2-D Gaussian rounded to half its standard deviation: the distances from its
    mean are a comb the dip rejects; read to the precision, they are one mode."""
    X = np.round(np.random.default_rng(5).normal(size=(2000, 2)) / 0.5) * 0.5

    def radial(A):
        return dip_test(np.linalg.norm(A - A.mean(axis=0), axis=1))[1]

    assert radial(X) < 0.001 and radial(read_to_precision(X, seed=0)) > 0.05


def test_quantile_table_is_ordered():
    q = np.asarray(DIP_QUANTILES)
    assert q.shape == (len(DIP_N), len(DIP_TAILS))
    assert np.all(np.diff(q, axis=1) > 0)             # rarer tails, larger dips
    assert np.all(np.diff(DIP_N) > 0) and np.all(np.diff(DIP_TAILS) < 0)


def test_pvalues_are_calibrated_on_uniform_samples():
    """The uniform is the null: about 5 % of uniform samples reach p < 0.05 (400
    samples of 60 points: 20 expected, 95 % of draws between 11 and 29)."""
    rng = np.random.default_rng(4)
    p = np.array([dip_test(rng.random(60))[1] for _ in range(400)])
    assert 8 <= np.sum(p < 0.05) <= 32
    assert np.sum(p < 0.002) <= 4


def test_pvalue_interpolates_the_table():
    n = DIP_N[4]
    for j, tail in enumerate(DIP_TAILS[1:], start=1):
        d = DIP_QUANTILES[4][j] / np.sqrt(n)
        assert dip_pvalue(d, n) == pytest.approx(tail, rel=1e-9)
    assert dip_pvalue(0.0, n) == 1.0 and dip_pvalue(0.25, n) == DIP_TAILS[-1]
    # the quantiles of sqrt(n) dip grow with n: the same sqrt(n) dip is rarer at small n
    p = [dip_pvalue(0.62 / np.sqrt(n), n) for n in (200, 300, 500)]
    assert p[0] < p[1] < p[2] and 0.005 < p[0] and p[2] < 0.02


def test_bimodal_samples_are_rejected():
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.normal(size=60), rng.normal(size=30) + 5.0])
    assert dip_test(x)[1] < 0.001
    assert dip_test(rng.normal(size=90))[1] > 0.05


def test_values_one_ulp_apart_are_one_tie():
    """Runs of ties a few ulps apart (distances rounded two ways) spread into values
    that coincided, and the dip divided by zero: they are one tie, and the dip is that
    of the sample with each run at one value; an affine map does not change it."""
    def ulps(a, k):
        for _ in range(k):
            a = np.nextafter(a, np.inf)
        return a

    a = -3.163567342850098
    x = np.r_[np.repeat([ulps(a, j) for j in range(5)], [4, 7, 19, 2, 3]),
              np.linspace(-3.0, 3.0, 60), np.repeat([ulps(3.1, j) for j in range(3)], [10, 12, 2])]
    merged = np.r_[np.full(35, a), np.linspace(-3.0, 3.0, 60), np.full(24, 3.1)]
    assert dip(x) == pytest.approx(dip(merged), abs=1e-12)
    assert dip_test(x)[1] == dip_test(merged)[1] < 0.01
    assert dip(1e6 + 3.0 * x) == pytest.approx(dip(x), abs=1e-9)


def test_effective_sample_is_the_weighted_law_at_kish_s_size():
    """The effective sample has (sum w)^2 / sum w^2 points (Kish), does not change when
    every weight is scaled, and its distribution function is within 1 / (2m) of the
    weighted one at every value; equal weights give the sample itself, and the dip
    test of equal weights is the unweighted test."""
    rng = np.random.default_rng(5)
    x, w = rng.normal(size=300), rng.integers(1, 6, 300).astype(float)
    s = effective_sample(x, w)
    m = round(w.sum() ** 2 / (w @ w))
    assert s.size == m and np.array_equal(s, effective_sample(x, 7.0 * w))
    for v in np.sort(x):
        assert abs(np.mean(s <= v) - w[x <= v].sum() / w.sum()) <= 0.5 / m + 1e-12
    assert np.array_equal(effective_sample(x, np.full(300, 4.0)), np.sort(x))
    assert dip_test(x, np.full(300, 4.0)) == dip_test(x)
    assert dip_test(x, w)[1] == dip_pvalue(dip(s), m)
