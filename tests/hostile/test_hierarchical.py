"""Hostile inputs to EnergyHierarchical, energy_hclust and disco.

Each bad input raises a ValueError (kgroups' InvalidParameterError, or the memory
check's ValueError) whose message names the callable or parameter and the value.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from kgroups import EnergyHierarchical, disco, energy_hclust
from kgroups import _memory

X = np.random.default_rng(0).normal(size=(10, 2))


@pytest.mark.parametrize("params, match", [
    ({"n_clusters": 0}, r"EnergyHierarchical: n_clusters=0 should be None or an integer >= 1"),
    ({"n_clusters": 2.5}, r"n_clusters=2.5"),
    ({"n_clusters": 11}, r"n_samples=10 should be >= n_clusters=11"),
    ({"n_clusters": None}, r"exactly one of n_clusters=None and distance_threshold=None"),
    ({"n_clusters": 2, "distance_threshold": 1.0}, r"exactly one of n_clusters=2"),
    ({"n_clusters": None, "distance_threshold": -1.0}, r"distance_threshold=-1.0"),
    ({"n_clusters": None, "distance_threshold": float("nan")}, r"distance_threshold=nan"),
    ({"alpha": 0.0}, r"alpha=0.0 should be a number in \(0, 2\]"),
    ({"alpha": 2.5}, r"alpha=2.5"),
    ({"semimetric": "cosine"}, r"semimetric='cosine'"),
    ({"sigma": -1.0, "semimetric": "gaussian"}, r"sigma=-1.0"),
])
def test_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        EnergyHierarchical(**params).fit(X)


@pytest.mark.parametrize("data, kw, match", [
    (np.array([[0.0, np.nan], [1.0, 2.0]]), {}, r"NaN"),
    (np.array([[1.0, 2.0]]), {}, r"1 sample"),
    (X, {"sample_weight": -np.ones(10)}, r"sample_weight\[0\]=-1.0"),
    (X, {"sample_weight": np.ones(9)}, r"sample_weight has shape \(9,\), expected \(10,\)"),
    (np.array([["a", "b"], ["c", "d"]]), {},
     r"X\[0, 0\]='a' is not one: column 0 of X holds text"),
])
def test_bad_data(data, kw, match):
    with pytest.raises(ValueError, match=match):
        EnergyHierarchical(1).fit(data, **kw)


def test_bad_precomputed_matrices():
    D = np.abs(X[:, :1] - X[:, :1].T)
    bad = D.copy()
    bad[0, 1] += 1.0
    with pytest.raises(ValueError, match=r"symmetric.*X\[\d, \d\]"):
        EnergyHierarchical(2, semimetric="precomputed").fit(bad)
    neg = -D
    with pytest.raises(ValueError, match=r"non-negative"):
        EnergyHierarchical(2, semimetric="precomputed").fit(neg)
    with pytest.raises(ValueError, match=r"square"):
        EnergyHierarchical(2, semimetric="precomputed").fit(D[:, :5])
    ok = EnergyHierarchical(2, semimetric="precomputed").fit(sp.csr_matrix(D))
    assert ok.labels_.shape == (10,)


def test_memory_is_checked_before_allocation(monkeypatch):
    monkeypatch.setattr(_memory, "available_memory", lambda: 1000)
    with pytest.raises(ValueError, match=r"EnergyHierarchical for n_samples=10.*GiB.*use a "
                                         r"subsample"):
        EnergyHierarchical(2).fit(X)
    with pytest.raises(ValueError, match=r"disco for n_samples=10 \(the pooled"):
        disco(X, np.arange(10) % 2, n_permutations=99)  # permutations need the n x n matrix
    assert disco(X, np.arange(10) % 2, n_permutations=0).total > 0  # blocked sums: no n x n


def test_callable_semimetric_returning_nan():
    with pytest.raises(ValueError, match=r"EnergyHierarchical: pairwise: the callable .* "
                                         r"returned nan"):
        EnergyHierarchical(2, semimetric=lambda A, B: np.full((len(A), len(B)), np.nan)).fit(X)


def test_function_forms():
    with pytest.raises(ValueError, match=r"energy_hclust: n_clusters=-1"):
        energy_hclust(X, -1)
    with pytest.raises(ValueError, match=r"energy_hclust: unexpected parameter\(s\) \['k'\]"):
        energy_hclust(X, 2, k=3)


@pytest.mark.parametrize("labels, kw, match", [
    (np.zeros(10), {}, r"disco: labels has 1 distinct value \(0\.0\); DISCO compares"),
    (np.arange(10), {}, r"n_samples=10 should be > the number of groups k=10"),
    (np.arange(9) % 2, {}, r"labels has shape \(9,\), expected \(10,\)"),
    ([0, 1] * 4 + [None, 1], {}, r"None or NaN"),
    (np.arange(10) % 2, {"n_permutations": -1}, r"disco: n_permutations=-1"),
    (np.arange(10) % 2, {"alpha": 3.0}, r"disco: alpha=3.0"),
    (np.arange(10) % 2, {"random_state": "x"}, r"random_state='x'"),
])
def test_disco_bad_inputs(labels, kw, match):
    with pytest.raises(ValueError, match=match):
        disco(X, labels, **kw)


def test_disco_constant_groups_and_bad_data():
    with pytest.raises(ValueError, match=r"within-group dispersion is 0"):
        disco(np.array([0.0, 0.0, 1.0, 1.0]), [0, 0, 1, 1], n_permutations=0)
    with pytest.raises(ValueError, match=r"disco: X contains NaN"):
        disco(np.array([0.0, np.nan, 1.0, 1.0]), [0, 0, 1, 1])
