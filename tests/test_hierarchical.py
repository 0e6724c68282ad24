"""Tests of kgroups._hierarchical: R reference, hand-worked cases, properties, sklearn checks.

R reference: tests/reference/energy_hclust_reference.R (energy::energy.hclust, and
hclust(..., "ward.D", members=w) for weights), output committed as
tests/reference/energy_hclust_reference.json.
"""

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.cluster.hierarchy import dendrogram, fcluster, is_valid_linkage, linkage
from scipy.spatial.distance import squareform
from sklearn.utils.estimator_checks import parametrize_with_checks

from kgroups import EnergyHierarchical, energy_hclust, onedim_kgroups, pairwise, within_energy
from tests._twins import energy_hclust_twin
from kgroups.metrics import ari

REF = json.loads((Path(__file__).parent / "reference" /
                  "energy_hclust_reference.json").read_text())
CASES = {c["name"]: c for c in REF["cases"]}


def r_children(merge, n):
    """R's merge matrix (1-based; -i singleton, +j step j) -> children_ (0-based node ids)."""
    m = np.asarray(merge)
    return np.sort(np.where(m < 0, -m - 1, n + m - 1), axis=1)


def r_dist(X, method="euclidean"):
    """R's dist(): features summed in order, then sqrt (bit for bit)."""
    D = np.zeros((X.shape[0], X.shape[0]))
    for f in range(X.shape[1]):
        diff = X[:, f, None] - X[None, :, f]
        D += diff * diff if method == "euclidean" else np.abs(diff)
    return np.sqrt(D) if method == "euclidean" else D


# ----------------------------------------------------------------- R reference
@pytest.mark.parametrize("name", sorted(CASES))
def test_precomputed_equals_r_bit_for_bit(name):
    # Same dissimilarities as R -> the same merges (ties included: iris has three
    # duplicated rows and many tied distances) and the same heights.
    c = CASES[name]
    X = np.array(c["X"])
    D = r_dist(X, c["distance"]) ** c["alpha"]
    h = EnergyHierarchical(semimetric="precomputed").fit(D, sample_weight=c["sample_weight"])
    np.testing.assert_array_equal(h.children_, r_children(c["merge"], len(X)))
    np.testing.assert_allclose(h.distances_, c["height"], rtol=0, atol=1e-10)


TIE_FREE = sorted(n for n, c in CASES.items() if c["distance"] == "euclidean" and n != "iris")


@pytest.mark.parametrize("name", TIE_FREE)
def test_raw_data_equals_r(name):
    # From the data (kgroups.pairwise computes rho): same merges, heights to 1e-10.
    # Not iris: its tied distances differ from R's dist() in the last bit, so ties
    # may break the other way (the precomputed test above covers it).
    assert len(TIE_FREE) >= 5
    c = CASES[name]
    X = np.array(c["X"])
    h = EnergyHierarchical(alpha=c["alpha"]).fit(X, sample_weight=c["sample_weight"])
    np.testing.assert_array_equal(h.children_, r_children(c["merge"], len(X)))
    np.testing.assert_allclose(h.distances_, c["height"], rtol=1e-12, atol=1e-10)


# ----------------------------------------------------------------- by hand
def test_four_points_by_hand():
    # 0, 1, 3, 7: merge {0,1} at rho = 1; e({0,1},{3}) = (2/3)(2*2.5 - 0.5) = 3 < e(3,7) = 4;
    # e({0,1,3},{7}) = (3/4)(2*17/3 - 4/3) = 7.5 (Lance-Williams: (3*25/3 + 2*4 - 3)/4).
    X = np.array([[0.0], [1.0], [3.0], [7.0]])
    h = EnergyHierarchical(n_clusters=2).fit(X)
    assert h.children_.tolist() == [[0, 1], [2, 4], [3, 5]]
    np.testing.assert_allclose(h.distances_, [1.0, 3.0, 7.5], rtol=1e-14)
    assert h.labels_.tolist() == [0, 0, 0, 1] and h.within_energy_ == pytest.approx(2.0)
    assert h.counts_.tolist() == [2, 3, 4] and h.n_leaves_ == 4 and h.n_clusters_ == 2


def test_distance_threshold_cuts_below_it():
    X = np.array([[0.0], [1.0], [3.0], [7.0]])
    assert EnergyHierarchical(None, distance_threshold=3.0).fit(X).n_clusters_ == 3
    assert EnergyHierarchical(None, distance_threshold=3.01).fit(X).labels_.tolist() == [0, 0, 0, 1]
    assert EnergyHierarchical(None, distance_threshold=100).fit(X).n_clusters_ == 1


# ----------------------------------------------------------------- properties
def test_numba_kernel_equals_brute_force_twin():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(14, 2))
    w = rng.uniform(0.5, 3.0, 14)
    for alpha, weights in ((1.0, None), (0.5, w), (2.0, w)):
        h = EnergyHierarchical(alpha=alpha).fit(X, sample_weight=weights)
        rho = pairwise(X, alpha=alpha)
        children, heights = energy_hclust_twin(rho, np.ones(14) if weights is None else w)
        np.testing.assert_array_equal(h.children_, np.sort(children, axis=1))
        np.testing.assert_allclose(h.distances_, heights, rtol=1e-10)


def test_weights_equal_repeated_rows():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(12, 3))
    w = rng.integers(1, 4, 12)
    h = EnergyHierarchical(n_clusters=3).fit(X, sample_weight=w)
    r = EnergyHierarchical(n_clusters=3).fit(np.repeat(X, w, axis=0))
    extra = int(w.sum()) - 12  # the copies merge first, at height 0
    np.testing.assert_allclose(r.distances_[:extra], 0.0, atol=1e-12)
    np.testing.assert_allclose(r.distances_[extra:], h.distances_, rtol=1e-10)
    assert ari(np.repeat(h.labels_, w), r.labels_) == 1.0
    assert r.within_energy_ == pytest.approx(h.within_energy_, rel=1e-10)


@pytest.mark.parametrize("big", [1e100, 1e160, 1e300])
def test_weights_far_apart_keep_every_product(big):
    """One weight far above the others: they are divided by a power of two that keeps
    the products of two of them normal (divided by the largest, those of the small ones
    fell to 0 and W with them); W is that of within_energy, as at a weight of 1e100."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (20, 2)), rng.normal(6, 1, (20, 2))])
    w = np.r_[big, np.ones(39)]
    h = EnergyHierarchical(2).fit(X, sample_weight=w)
    assert np.bincount(h.labels_).tolist() == [20, 20]
    assert h.within_energy_ == pytest.approx(within_energy(X, h.labels_, sample_weight=w),
                                             rel=1e-12)
    o = onedim_kgroups(X[:, 0], sample_weight=w)
    assert o.within_energy == pytest.approx(within_energy(X[:, :1], o.labels, sample_weight=w),
                                            rel=1e-12)


def test_heights_are_twice_the_increase_of_w():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(25, 2))
    w = rng.uniform(0.5, 2.0, 25)
    for k in (1, 2, 5, 24):
        h = EnergyHierarchical(k, alpha=0.7).fit(X, sample_weight=w)
        assert h.within_energy_ == pytest.approx(
            within_energy(X, h.labels_, alpha=0.7, sample_weight=w), rel=1e-10)
    assert np.all(np.diff(h.distances_) >= -1e-12)  # monotone


def test_row_permutation_invariance():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 3))
    perm = rng.permutation(30)
    a = EnergyHierarchical(4).fit(X)
    b = EnergyHierarchical(4).fit(X[perm])
    np.testing.assert_allclose(a.distances_, b.distances_, rtol=1e-12)
    assert ari(a.labels_[perm], b.labels_) == 1.0


def test_scipy_ward_on_sqrt_rho_has_squared_heights():
    # scipy's ward recursion acts on the squares of its input: linkage(sqrt(rho))
    # gives heights whose squares are ours; alpha = 2 is scipy's ward on X itself.
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3))
    for alpha in (1.0, 0.5):
        h = EnergyHierarchical(alpha=alpha).fit(X)
        Z = linkage(squareform(np.sqrt(pairwise(X, alpha=alpha)), checks=False), "ward")
        np.testing.assert_allclose(Z[:, 2] ** 2, h.distances_, rtol=1e-9)
        np.testing.assert_array_equal(np.sort(Z[:, :2], axis=1), h.children_)
    h2 = EnergyHierarchical(alpha=2.0).fit(X)
    np.testing.assert_allclose(linkage(X, "ward")[:, 2] ** 2, h2.distances_, rtol=1e-9)


def test_to_linkage_draws_and_cuts_like_labels():
    rng = np.random.default_rng(6)
    X = np.vstack([rng.normal(0, 1, (15, 2)), rng.normal(8, 1, (15, 2))])
    h = EnergyHierarchical(2).fit(X)
    Z = h.to_linkage()
    assert is_valid_linkage(Z) and Z.shape == (29, 4)
    assert len(dendrogram(Z, no_plot=True)["leaves"]) == 30
    assert ari(fcluster(Z, 2, "maxclust"), h.labels_) == 1.0


def test_function_form_and_semimetrics():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(20, 2))
    res = energy_hclust(X, 3, alpha=0.5)
    est = EnergyHierarchical(3, alpha=0.5).fit(X)
    np.testing.assert_array_equal(res.labels, est.labels_)
    np.testing.assert_array_equal(res.linkage, est.to_linkage())
    assert res.n_clusters == 3 and res.within_energy == est.within_energy_
    g = EnergyHierarchical(3, semimetric="gaussian", sigma=2.0).fit(X)
    gp = EnergyHierarchical(3, semimetric="precomputed").fit(
        pairwise(X, semimetric="gaussian", sigma=2.0))
    np.testing.assert_allclose(g.distances_, gp.distances_, rtol=1e-10)
    c = EnergyHierarchical(3, semimetric=lambda A, B: pairwise(A, B, alpha=0.5)).fit(X)
    np.testing.assert_allclose(c.distances_, est.distances_, rtol=1e-10)


def test_extreme_magnitudes_are_rescaled():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(12, 2))
    a = EnergyHierarchical(2).fit(X)
    b = EnergyHierarchical(2).fit(X * 2.0**400)
    np.testing.assert_array_equal(a.children_, b.children_)
    np.testing.assert_allclose(b.distances_ / 2.0**400, a.distances_, rtol=1e-12)


# Zero weights are refused by design (as for KernelKGroups, tests/test_base.py).
EXPECTED_FAILED = {"check_sample_weight_equivalence_on_dense_data":
                   "zero sample weights are rejected with a ValueError by design"}


@parametrize_with_checks([EnergyHierarchical(n_clusters=3)],
                         expected_failed_checks=lambda est: EXPECTED_FAILED)
def test_sklearn_compatible(estimator, check):
    check(estimator)
