"""Tests of kgroups.disco: R reference (energy::disco), identities, p-value properties.

R reference: tests/reference/disco_reference.R, output committed as
tests/reference/disco_reference.json (energy 1.7.11).
"""

import json
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from kgroups import between_energy, disco, energy_test, pairwise, total_energy, within_energy
from kgroups._stats import pairsum

REF = json.loads((Path(__file__).parent / "reference" / "disco_reference.json").read_text())
CASES = {c["name"]: c for c in REF["cases"]}


@pytest.mark.parametrize("name", sorted(CASES))
def test_equals_r_disco(name):
    c = CASES[name]
    res = disco(np.array(c["X"]), c["labels"], alpha=c["index"], n_permutations=0)
    assert len(CASES) >= 5
    assert abs(res.statistic - c["statistic"]) <= 1e-10
    for key in ("total", "between", "within"):
        assert abs(getattr(res, key) - c[key]) <= 1e-10 * max(1.0, abs(c[key]))
    assert (res.df_between, res.df_within) == (c["df_between"], c["df_within"])
    assert np.isnan(res.pvalue)


def test_by_hand_and_identities():
    # 0, 1 | 10, 12: T = (1 + 10 + 12 + 9 + 11 + 2) / 4 = 11.25, W = 1/2 + 2/2 = 1.5,
    # S = 9.75, F = (9.75 / 1) / (1.5 / 2) = 13.
    X = np.array([0.0, 1.0, 10.0, 12.0])
    res = disco(X, ["a", "a", "b", "b"], n_permutations=0)
    assert (res.total, res.between, res.within) == pytest.approx((11.25, 9.75, 1.5), rel=1e-14)
    assert res.statistic == pytest.approx(13.0, rel=1e-14)
    rng = np.random.default_rng(0)
    Y = rng.normal(size=(30, 3))
    lab = rng.integers(0, 3, 30)
    r = disco(Y, lab, alpha=0.5, n_permutations=0)
    assert r.within == pytest.approx(within_energy(Y, lab, alpha=0.5), rel=1e-12)
    assert r.between == pytest.approx(between_energy(Y, lab, alpha=0.5), rel=1e-10)
    assert r.total == pytest.approx(total_energy(Y, alpha=0.5), rel=1e-12)
    p = disco(pairwise(Y, alpha=0.5), lab, semimetric="precomputed", n_permutations=0)
    assert p.statistic == pytest.approx(r.statistic, rel=1e-10)


def test_two_groups_f_is_a_function_of_the_energy_test_statistic():
    # k = 2: S = E_n / 2 (energy_test's statistic), F = S (N - 2) / W, and both tests
    # rank relabellings alike (T is fixed), so the same seed gives the same p-value.
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(12, 2)), rng.normal(0.8, 1, size=(15, 2))
    X = np.vstack([a, b])
    lab = np.repeat([0, 1], [12, 15])
    d = disco(X, lab, n_permutations=199, random_state=3)
    e = energy_test(a, b, n_permutations=199, random_state=3)
    assert d.between == pytest.approx(e.statistic / 2, rel=1e-10)
    assert d.pvalue == e.pvalue


def test_pvalue_counts_ties_and_is_seeded():
    # Identical groups: every relabelling ties with F = 0, p = 1 (R's > would give 1/(B+1)).
    X = np.array([0.0, 1.0, 0.0, 1.0])
    res = disco(X, [0, 0, 1, 1], n_permutations=19, random_state=0)
    assert res.statistic == pytest.approx(0.0, abs=1e-14) and res.pvalue == 1.0
    rng = np.random.default_rng(2)
    Y, lab = rng.normal(size=(20, 2)), np.repeat([0, 1], 10)
    r1 = disco(Y, lab, n_permutations=99, random_state=5)
    r2 = disco(Y, lab, n_permutations=99, random_state=5)
    assert r1 == r2 and r1.permutation_statistics.shape == (99,)


def test_permutation_invariance_of_rows():
    rng = np.random.default_rng(4)
    X, lab = rng.normal(size=(25, 3)), rng.integers(0, 3, 25)
    perm = rng.permutation(25)
    a = disco(X, lab, n_permutations=0)
    b = disco(X[perm], lab[perm], n_permutations=0)
    assert a.statistic == pytest.approx(b.statistic, rel=1e-12)


def test_precomputed_dense_sparse_and_raw_agree():
    rng = np.random.default_rng(5)
    Y, lab = rng.normal(size=(40, 2)), rng.integers(0, 3, 40)
    D = pairwise(Y, alpha=0.5)
    for B in (0, 29):
        ref = disco(Y, lab, alpha=0.5, n_permutations=B, random_state=1)
        for A in (D, sp.csr_matrix(D)):
            r = disco(A, lab, semimetric="precomputed", n_permutations=B, random_state=1)
            assert r.statistic == pytest.approx(ref.statistic, rel=1e-10)
            assert r.within == pytest.approx(ref.within, rel=1e-12)
            assert r.pvalue == ref.pvalue or (B == 0 and np.isnan(r.pvalue))


def test_only_permutations_need_the_pooled_matrix(monkeypatch):
    monkeypatch.setattr(pairsum, "_MAX_POOLED_BYTES", 8 * 100)
    X = np.arange(24.0).reshape(12, 2) ** 1.5
    lab = np.arange(12) % 3
    assert disco(X, lab, n_permutations=0).statistic > 0
    with pytest.raises(ValueError, match=r"^disco: .*n=12.*n_permutations=0"):
        disco(X, lab, n_permutations=9)
