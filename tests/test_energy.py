"""Tests of kgroups._stats.energy: R reference values, brute force, identities, errors.

Reference values come from R's `energy` package (tests/reference/make_reference.R,
output committed as tests/reference/r_reference.json) and from
scipy.stats.energy_distance; brute-force double loops use the formulas of the
DESIGN table, written out here independently of kgroups._semimetrics.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.stats

from kgroups._stats import dispatch
from kgroups._stats import energy as _energy
from kgroups._stats import pairsum
from kgroups._stats.energy import (
    EnergyTestResult,
    between_energy,
    energy_distance,
    energy_test,
    g,
    total_energy,
    within_energy,
)

REF = json.loads((Path(__file__).parent / "reference" / "r_reference.json").read_text())
DATA = {k: np.array(v, dtype=float) for k, v in REF["data"].items()}
RTOL = 1e-10


# ----------------------------------------------------------------- brute force
def rho_bf(x, y, semimetric="energy", alpha=1.0, sigma=1.0, theta=1.0):
    r = math.sqrt(sum((a - b) ** 2 for a, b in zip(np.atleast_1d(x), np.atleast_1d(y))))
    if callable(semimetric):
        return float(semimetric(np.atleast_2d(x), np.atleast_2d(y))[0, 0])
    return {
        "energy": lambda: r**alpha,
        "laplacian": lambda: 2 - 2 * math.exp(-r / (2 * sigma)),
        "gaussian": lambda: 2 - 2 * math.exp(-(r**2) / (2 * sigma**2)),
        "localized": lambda: r**2 * math.exp(-r / 2),
        "sinusoidal": lambda: r**2 * theta * math.sin(r / theta),
    }[semimetric]()


def g_bf(X, Y, wx, wy, **kw):
    tot = 0.0
    for i in range(len(X)):
        for j in range(len(Y)):
            tot += wx[i] * wy[j] * rho_bf(X[i], Y[j], **kw)
    return tot / (sum(wx) * sum(wy))


def wst_bf(X, labels, w, **kw):
    labels = np.asarray(labels)
    ks = list(np.unique(labels))
    parts = [(X[labels == c], w[labels == c]) for c in ks]
    s = [pw.sum() for _, pw in parts]
    W = sum(sj / 2 * g_bf(pX, pX, pw, pw, **kw) for sj, (pX, pw) in zip(s, parts))
    S = 0.0
    for i in range(len(ks)):
        for j in range(i + 1, len(ks)):
            gij = g_bf(parts[i][0], parts[j][0], parts[i][1], parts[j][1], **kw)
            gii = g_bf(parts[i][0], parts[i][0], parts[i][1], parts[i][1], **kw)
            gjj = g_bf(parts[j][0], parts[j][0], parts[j][1], parts[j][1], **kw)
            S += s[i] * s[j] / (2 * sum(s)) * (2 * gij - gii - gjj)
    T = sum(s) / 2 * g_bf(X, X, w, w, **kw)
    return W, S, T


def l1_callable(A, B):
    return np.abs(A[:, None, :] - B[None, :, :]).sum(axis=2)


SEMIMETRICS = [
    dict(semimetric="energy", alpha=1.0),
    dict(semimetric="energy", alpha=0.5),
    dict(semimetric="energy", alpha=2.0),
    dict(semimetric="laplacian", sigma=0.7),
    dict(semimetric="gaussian", sigma=1.3),
    dict(semimetric="localized"),
    dict(semimetric="sinusoidal", theta=2.0),
    dict(semimetric=l1_callable),
]
SEMI_IDS = ["energy1", "energy0.5", "energy2", "laplacian", "gaussian", "localized",
            "sinusoidal", "callable"]


# ----------------------------------------------------------------- R reference
def _samples(names):
    return [DATA[n] for n in names]


@pytest.mark.parametrize("row", REF["edist"], ids=lambda r: f"{'+'.join(r['samples'])}-{r['alpha']}")
def test_edist_matches_r(row):
    samples = _samples(row["samples"])
    got = []
    for i in range(len(samples)):
        for j in range(i + 1, len(samples)):
            n1, n2 = len(samples[i]), len(samples[j])
            e = energy_distance(samples[i], samples[j], alpha=row["alpha"])
            got.append(n1 * n2 / (n1 + n2) * e)
    np.testing.assert_allclose(got, row["value"], rtol=RTOL, atol=0)


@pytest.mark.parametrize("row", REF["etest"], ids=lambda r: f"{'+'.join(r['samples'])}-{r['alpha']}")
def test_etest_statistic_matches_r(row):
    res = energy_test(*_samples(row["samples"]), alpha=row["alpha"], n_permutations=0)
    np.testing.assert_allclose(res.statistic, row["statistic"], rtol=RTOL, atol=0)
    assert math.isnan(res.pvalue) and res.n_permutations == 0


def test_etest_pvalue_same_regime_as_r():
    # R's p-value depends on R's RNG: only compare the regime (information only).
    for row in REF["etest"]:
        res = energy_test(*_samples(row["samples"]), alpha=row["alpha"],
                          n_permutations=199, random_state=0)
        assert (res.pvalue <= 0.01) == (row["pvalue_R199"] <= 0.01), row


def test_between_energy_matches_r_edist():
    # S with the sample labels = sum_{i<j} (n_i + n_j) / (2 n) * edist_ij.
    for row in REF["edist"]:
        samples = _samples(row["samples"])
        sizes = [len(s) for s in samples]
        labels = np.repeat(np.arange(len(samples)), sizes)
        pairs = [(i, j) for i in range(len(sizes)) for j in range(i + 1, len(sizes))]
        n = sum(sizes)
        expected = sum((sizes[i] + sizes[j]) / (2 * n) * e
                       for (i, j), e in zip(pairs, row["value"]))
        got = between_energy(np.vstack([s.reshape(len(s), -1) for s in samples]),
                             labels, alpha=row["alpha"])
        np.testing.assert_allclose(got, expected, rtol=RTOL)


def test_kgroups_W_matches_r():
    row = REF["kgroups"][0]
    X = np.vstack(_samples(row["samples"]))
    np.testing.assert_allclose(within_energy(X, row["labels"]), row["W"], rtol=RTOL)
    np.testing.assert_allclose(row["W"], row["W_by_hand"], rtol=RTOL)


@pytest.mark.parametrize("row", REF["within"])
def test_within_matches_r_by_hand(row):
    X = np.vstack(_samples(row["samples"]))
    got = within_energy(X, row["labels"], alpha=row["alpha"],
                        sample_weight=row["sample_weight"])
    np.testing.assert_allclose(got, row["W"], rtol=RTOL)


def test_two_sample_statistic_relations():
    A, B = DATA["A"], DATA["B"]
    res = energy_test(A, B, n_permutations=0)
    labels = np.repeat([0, 1], [len(A), len(B)])
    n1, n2 = len(A), len(B)
    np.testing.assert_allclose(res.statistic, 2 * between_energy(np.vstack([A, B]), labels),
                               rtol=1e-12)
    np.testing.assert_allclose(res.statistic, n1 * n2 / (n1 + n2) * energy_distance(A, B),
                               rtol=1e-12)


# ----------------------------------------------------------------- scipy, closed forms
def test_matches_scipy_energy_distance_squared_with_weights():
    rng = np.random.default_rng(0)
    u, v = rng.normal(size=13), rng.normal(0.5, 2.0, size=9)
    wu, wv = rng.uniform(0.1, 3.0, 13), rng.integers(1, 5, 9).astype(float)
    ref = scipy.stats.energy_distance(u, v, wu, wv) ** 2
    got = energy_distance(u, v, sample_weight_x=wu, sample_weight_y=wv)
    np.testing.assert_allclose(got, ref, rtol=1e-10)
    np.testing.assert_allclose(energy_distance(u, v), scipy.stats.energy_distance(u, v) ** 2,
                               rtol=1e-10)


def test_alpha_two_is_twice_squared_mean_difference():
    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(20, 3)), rng.normal(1.0, size=(15, 3))
    expected = 2 * np.sum((X.mean(0) - Y.mean(0)) ** 2)
    np.testing.assert_allclose(energy_distance(X, Y, alpha=2.0), expected, rtol=1e-10)


def test_hand_values():
    X = np.array([0.0, 1.0, 10.0, 12.0])
    labels = ["a", "a", "b", "b"]
    assert within_energy(X, labels) == pytest.approx(1.5, rel=1e-14)
    assert between_energy(X, labels) == pytest.approx(9.75, rel=1e-14)
    assert total_energy(X) == pytest.approx(90 / 8, rel=1e-14)
    assert energy_distance([0.0, 1.0], [2.0, 3.0]) == pytest.approx(3.0, rel=1e-14)


# ----------------------------------------------------------------- brute force
@pytest.mark.parametrize("kw", SEMIMETRICS, ids=SEMI_IDS)
def test_brute_force_tiny(kw):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(7, 2))
    Y = rng.normal(0.3, size=(5, 2))
    w = rng.uniform(0.2, 2.0, 7)
    wy = rng.uniform(0.2, 2.0, 5)
    labels = np.array([0, 1, 2, 0, 1, 1, 2])
    W, S, T = wst_bf(X, labels, w, **kw)
    assert within_energy(X, labels, sample_weight=w, **kw) == pytest.approx(W, rel=1e-10)
    assert between_energy(X, labels, sample_weight=w, **kw) == pytest.approx(S, rel=1e-10)
    assert total_energy(X, sample_weight=w, **kw) == pytest.approx(T, rel=1e-10)
    assert g(X, Y, sample_weight_x=w, sample_weight_y=wy, **kw) == pytest.approx(
        g_bf(X, Y, w, wy, **kw), rel=1e-10)
    E = 2 * g_bf(X, Y, w, wy, **kw) - g_bf(X, X, w, w, **kw) - g_bf(Y, Y, wy, wy, **kw)
    got = energy_distance(X, Y, sample_weight_x=w, sample_weight_y=wy, **kw)
    assert got == pytest.approx(E, rel=1e-9, abs=1e-12)


# ----------------------------------------------------------------- identities
@pytest.mark.parametrize("kw", SEMIMETRICS, ids=SEMI_IDS)
def test_w_plus_s_equals_total(kw):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    for trial in range(3):
        k = rng.integers(1, 6)
        labels = rng.integers(0, k, 60)
        w = rng.uniform(0.1, 5.0, 60) if trial else None
        W = within_energy(X, labels, sample_weight=w, **kw)
        S = between_energy(X, labels, sample_weight=w, **kw)
        T = total_energy(X, sample_weight=w, **kw)
        assert W + S == pytest.approx(T, rel=1e-10)


def test_precomputed_dense_and_sparse():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 2))
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1)) ** 0.5
    labels = rng.integers(0, 3, 30)
    w = rng.uniform(0.5, 2.0, 30)
    for f in (within_energy, between_energy):
        ref = f(X, labels, alpha=0.5, sample_weight=w)
        assert f(D, labels, precomputed=True, sample_weight=w) == pytest.approx(ref, rel=1e-10)
        assert f(sp.csr_matrix(D), labels, semimetric="precomputed",
                 sample_weight=w) == pytest.approx(ref, rel=1e-10)
    T = total_energy(X, alpha=0.5, sample_weight=w)
    assert total_energy(D, precomputed=True, sample_weight=w) == pytest.approx(T, rel=1e-10)
    assert g(D, precomputed=True, sample_weight_x=w, sample_weight_y=w) == pytest.approx(
        2 * T / w.sum(), rel=1e-10)


@pytest.mark.parametrize("alpha", [0.1, 0.5, 1.0, 1.5, 1.9])
def test_energy_distance_symmetric_nonnegative(alpha):
    rng = np.random.default_rng(5)
    for _ in range(5):
        X = rng.standard_t(3, size=(rng.integers(1, 30), 4))
        Y = rng.normal(rng.normal(scale=0.3), size=(rng.integers(1, 30), 4))
        wx, wy = rng.uniform(0.1, 2.0, len(X)), rng.uniform(0.1, 2.0, len(Y))
        e_xy = energy_distance(X, Y, alpha=alpha, sample_weight_x=wx, sample_weight_y=wy)
        e_yx = energy_distance(Y, X, alpha=alpha, sample_weight_x=wy, sample_weight_y=wx)
        assert e_xy == pytest.approx(e_yx, rel=1e-12, abs=1e-14)
        assert e_xy > 0
    X = rng.normal(size=(10, 4))
    assert abs(energy_distance(X, X[::-1], alpha=alpha)) < 1e-12


def test_integer_weights_equal_repeated_rows():
    rng = np.random.default_rng(6)
    X, Y = rng.normal(size=(12, 2)), rng.normal(size=(8, 2))
    wx, wy = rng.integers(1, 4, 12), rng.integers(1, 4, 8)
    Xr, Yr = np.repeat(X, wx, axis=0), np.repeat(Y, wy, axis=0)
    labels = rng.integers(0, 3, 12)
    lr = np.repeat(labels, wx)
    for kw in (dict(alpha=0.7), dict(semimetric="gaussian", sigma=0.5)):
        assert energy_distance(X, Y, sample_weight_x=wx, sample_weight_y=wy, **kw) == \
            pytest.approx(energy_distance(Xr, Yr, **kw), rel=1e-10)
        for f in (within_energy, between_energy):
            assert f(X, labels, sample_weight=wx, **kw) == pytest.approx(f(Xr, lr, **kw), rel=1e-10)
        assert g(X, Y, sample_weight_x=wx, sample_weight_y=wy, **kw) == pytest.approx(
            g(Xr, Yr, **kw), rel=1e-10)


def test_one_d_equals_one_column_and_g_same_as_y_none():
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=9), rng.normal(size=6)
    assert energy_distance(x, y) == energy_distance(x[:, None], y[:, None])
    assert g(x) == pytest.approx(g(x, x), rel=1e-12)
    assert within_energy(x, np.arange(9) % 2) == within_energy(x[:, None], np.arange(9) % 2)


def test_blocks_match_single_block_and_stay_small(monkeypatch):
    rng = np.random.default_rng(8)
    X = rng.normal(size=(300, 3))
    labels = np.repeat(np.arange(6), 50)
    w = rng.uniform(0.5, 2.0, 300)
    ref = [f(X, labels, sample_weight=w) for f in (within_energy, between_energy)]
    ref_e = energy_distance(X[:120], X[120:])
    shapes = []
    real = pairsum.pairwise_unchecked

    def spy(A, B, *args, **kw):
        shapes.append(A.shape[0] * B.shape[0])
        return real(A, B, *args, **kw)

    monkeypatch.setattr(pairsum, "pairwise_unchecked", spy)
    monkeypatch.setattr(pairsum, "BLOCK_ELEMENTS", 1000)
    got_w = within_energy(X, labels, sample_weight=w)
    assert max(shapes) <= 1000 and len(shapes) == 6 * 3  # 50 x 50 clusters, 20 rows a block
    got_s = between_energy(X, labels, sample_weight=w)
    np.testing.assert_allclose([got_w, got_s], ref, rtol=1e-12)
    np.testing.assert_allclose(energy_distance(X[:120], X[120:]), ref_e, rtol=1e-12)
    assert max(shapes) <= 1000


# ----------------------------------------------------------------- energy test
def test_energy_test_detects_shift():
    rng = np.random.default_rng(9)
    res = energy_test(rng.normal(size=(40, 2)), rng.normal(0.8, size=(40, 2)),
                      rng.normal(size=(30, 2)), n_permutations=199, random_state=0)
    assert isinstance(res, EnergyTestResult)
    assert res.pvalue == pytest.approx(1 / 200)
    assert res.n_permutations == 199


def test_energy_test_null_pvalues_spread():
    rng = np.random.default_rng(10)
    p = np.array([energy_test(rng.normal(size=20), rng.normal(size=25), n_permutations=99,
                              random_state=s).pvalue for s in range(40)])
    assert np.allclose(p * 100, np.round(p * 100))  # (1 + count) / (1 + R)
    assert 0.3 < p.mean() < 0.7
    assert np.sum(p <= 0.05) <= 8
    assert p.max() > 0.8


def test_energy_test_reproducible_and_order_invariant():
    rng = np.random.default_rng(11)
    a, b, c = rng.normal(size=(10, 2)), rng.normal(size=(12, 2)), rng.normal(size=(7, 2))
    r1 = energy_test(a, b, c, n_permutations=50, random_state=3)
    r2 = energy_test(a, b, c, n_permutations=50, random_state=3)
    assert r1 == r2
    r3 = energy_test(c, a, b, n_permutations=0)
    assert r3.statistic == pytest.approx(r1.statistic, rel=1e-12)


def test_permutation_statistics_match_loop():
    rng = np.random.default_rng(12)
    samples = [rng.normal(size=(6, 2)), rng.normal(size=(5, 2)), rng.normal(size=(4, 2))]
    Z = np.vstack(samples)
    sizes = np.array([6.0, 5.0, 4.0])
    codes = np.repeat([0, 1, 2], [6, 5, 4])
    D = np.sqrt(((Z[:, None] - Z[None]) ** 2).sum(-1))
    got = dispatch.permutation_statistics(D, codes, sizes, 25, np.random.RandomState(0),
                                         _energy._ksample_statistic)
    perm_codes = codes[np.argsort(np.random.RandomState(0).random_sample((25, 15)), axis=1)]
    for b in range(25):
        parts = [Z[perm_codes[b] == j] for j in range(3)]
        expected = energy_test(*parts, n_permutations=0).statistic
        assert got[b] == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("elements", [15 * 3, 15 * 3 * 4, 15 * 3 * 25])
def test_permutation_statistics_whatever_the_batch(monkeypatch, elements):
    """The relabellings come from one stream of uniform keys however many a batch takes
    (one, four, all 25): the same statistics as the loop of the test above (an
    implementation's ``relabel_elements`` bounds a batch)."""
    from kgroups._stats.pairsum import NumpyPairSums
    rng = np.random.default_rng(12)
    Z = rng.normal(size=(15, 2))
    codes = np.repeat([0, 1, 2], [6, 5, 4])
    D = np.sqrt(((Z[:, None] - Z[None]) ** 2).sum(-1))
    args = (D, codes, np.array([6.0, 5.0, 4.0]), 25)
    want = dispatch.permutation_statistics(*args, np.random.RandomState(0),
                                          _energy._ksample_statistic)
    monkeypatch.setattr(NumpyPairSums, "relabel_elements", elements)
    got = dispatch.permutation_statistics(*args, np.random.RandomState(0),
                                         _energy._ksample_statistic)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_pvalue_counts_ties():
    """p = (1 + #{E_b >= E_obs}) / (1 + B) is valid on tied (discrete) data.

    Two Bernoulli(1/2) samples of sizes 8 and 8 under the null: the ">=" p-value
    rejects at most alpha = 0.05 of the time (up to a 3-sigma binomial margin),
    while the strict-inequality convention of R's eqdist.etest (energy.c,
    ksampleEtest: ``if (e0 < e[b]) ek++``) rejects far more often (about 0.18).
    """
    rng = np.random.default_rng(2024)
    n_sets, B, level = 300, 199, 0.05
    ours, strict = np.empty(n_sets), np.empty(n_sets)
    for t in range(n_sets):
        a = rng.integers(0, 2, 8).astype(float)
        b = rng.integers(0, 2, 8).astype(float)
        res = energy_test(a, b, n_permutations=B, random_state=int(rng.integers(2**32)))
        perm = res.permutation_statistics
        assert perm.shape == (B,)
        tol = 1e-12 * abs(res.statistic)
        assert res.pvalue == (1 + np.sum(perm >= res.statistic - tol)) / (1 + B)
        ours[t] = res.pvalue
        strict[t] = (1 + np.sum(perm > res.statistic + tol)) / (1 + B)
    margin = 3 * np.sqrt(level * (1 - level) / n_sets)
    assert np.mean(ours <= level) <= level + margin
    assert np.mean(strict <= level) > 2 * (level + margin)


def test_permutation_statistics_exposed_and_scaled_like_statistic():
    rng = np.random.default_rng(13)
    a, b = rng.normal(size=(9, 2)), rng.normal(size=(7, 2))
    res = energy_test(a, b, n_permutations=40, random_state=5)
    res3 = energy_test(3 * a, 3 * b, n_permutations=40, random_state=5)
    np.testing.assert_allclose(res3.permutation_statistics, 3 * res.permutation_statistics,
                               rtol=1e-12)
    assert res3.pvalue == res.pvalue
    # statistic b is the E statistic of relabelling b (one batch of uniform keys)
    Z, codes = np.vstack([a, b]), np.repeat([0, 1], [9, 7])
    keys = np.random.RandomState(5).random_sample((40, 16))
    for t in range(40):
        lab = codes[np.argsort(keys[t])]
        expected = 9 * 7 / 16 * energy_distance(Z[lab == 0], Z[lab == 1])
        assert res.permutation_statistics[t] == pytest.approx(expected, rel=1e-10)
    assert energy_test(a, b, n_permutations=0).permutation_statistics.shape == (0,)


# ----------------------------------------------------------------- bad input
X_OK = np.arange(12.0).reshape(6, 2)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: energy_distance([[1.0, np.nan]], X_OK), r"X\[0, 1\]=nan"),
        (lambda: energy_distance(X_OK, [[np.inf, 1.0]]), r"Y\[0, 0\]=inf"),
        (lambda: energy_distance(np.zeros((2, 2, 2)), X_OK), r"shape \(2, 2, 2\)"),
        (lambda: energy_distance(X_OK, np.zeros((3, 5))), "X has 2 features but Y has 5"),
        (lambda: energy_distance(np.zeros((0, 2)), X_OK),
         r"energy_distance: X has shape \(0, 2\); expected at least 1 row"),
        (lambda: energy_distance(X_OK, X_OK, alpha=2.5), "alpha=2.5"),
        (lambda: energy_distance(X_OK, X_OK, semimetric="cosine"), "semimetric='cosine'"),
        (lambda: energy_distance(X_OK, X_OK, sample_weight_x=[1, 1, -2, 1, 1, 1]),
         r"sample_weight_x\[2\]=-2\.0; weights should be finite and >= 0"),
        (lambda: energy_distance(X_OK, X_OK, sample_weight_y=[1, 1, 1, 1, 1, -2]),
         r"sample_weight_y\[5\]=-2\.0"),
        (lambda: within_energy(X_OK, [0, 1, 0]), r"labels has shape \(3,\), expected \(6,\)"),
        (lambda: within_energy(X_OK, [0, 1] * 3, sample_weight=[1.0] * 5 + [np.nan]),
         r"sample_weight\[5\]=nan"),
        (lambda: between_energy(X_OK, [0, 1] * 3, sample_weight=[1.0] * 4),
         r"sample_weight has shape \(4,\), expected \(6,\)"),
        (lambda: total_energy(np.ones((3, 4)), precomputed=True), r"got shape \(3, 4\)"),
        (lambda: total_energy(X_OK, semimetric="gaussian", sigma=0), "sigma=0"),
        (lambda: g(X_OK, X_OK, precomputed=True), "Y should be None"),
        (lambda: energy_test(X_OK), "at least 2 samples, got 1"),
        (lambda: energy_test(X_OK, np.zeros((0, 2))), r"samples\[1\] has shape \(0, 2\)"),
        (lambda: energy_test(X_OK, np.zeros((3, 3))),
         r"samples\[0\] has 2 features but samples\[1\] has 3"),
        (lambda: energy_test(X_OK, X_OK, n_permutations=-1), "n_permutations=-1"),
        (lambda: energy_test(X_OK, X_OK, semimetric="precomputed"), "precomputed"),
    ],
)
def test_bad_input_raises(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_precomputed_refusal_names_public_functions_only():
    for call in (lambda: energy_distance(X_OK, X_OK, semimetric="precomputed"),
                 lambda: energy_test(X_OK, X_OK, semimetric="precomputed")):
        with pytest.raises(ValueError) as info:
            call()
        msg = str(info.value)
        assert "within_energy / between_energy / total_energy with precomputed=True" in msg
        assert " g " not in msg and "g /" not in msg


def test_energy_test_refuses_huge_pooled_matrix(monkeypatch):
    monkeypatch.setattr(pairsum, "_MAX_POOLED_BYTES", 8 * 100)
    with pytest.raises(ValueError, match="n=12.*n_permutations=0"):
        energy_test(X_OK, X_OK)
    # the statistic alone is computed by blocks, without the pooled matrix
    assert energy_test(X_OK, X_OK, n_permutations=0).statistic == 0.0
