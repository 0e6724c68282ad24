"""Tests for kgroups.metrics (paper eqs. 55 and 63)."""

import itertools

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

from kgroups import metrics
from kgroups.metrics import accuracy, ari, nmi, overlap


def _accuracy_brute_force(t, p):
    """Max over injective maps of predicted clusters to true classes (k! loop)."""
    classes, clusters = np.unique(t), np.unique(p)
    best = 0
    # pad the shorter side with dummies so every matching is a permutation
    size = max(classes.size, clusters.size)
    cls = list(classes) + [None] * (size - classes.size)
    for perm in itertools.permutations(range(size)):
        hits = 0
        for b, a in enumerate(perm):
            if b < clusters.size and cls[a] is not None:
                hits += np.sum((p == clusters[b]) & (t == cls[a]))
        best = max(best, hits)
    return best / t.size


def test_hand_worked():
    # classes {0,1,2}; best match 0->1, 1->0, 2->2 gives 5 of 6 right
    t = [0, 0, 1, 1, 2, 2]
    p = [1, 1, 0, 0, 0, 2]
    assert accuracy(t, p) == pytest.approx(5 / 6, abs=1e-15)
    assert overlap(t, p) == pytest.approx(1.5 * (5 / 6 - 1 / 3), abs=1e-15)


def test_perfect_under_relabelling_and_strings():
    t = np.array(["a", "b", "c", "a", "b", "c"])
    p = np.array([7, 3, 5, 7, 3, 5])
    assert accuracy(t, p) == 1.0
    assert overlap(t, p) == 1.0


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k_true,k_pred", [(2, 2), (3, 3), (4, 4), (3, 5), (5, 2), (4, 1)])
def test_against_permutation_brute_force(seed, k_true, k_pred):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, k_true, size=40)
    p = rng.integers(0, k_pred, size=40)
    assert accuracy(t, p) == pytest.approx(_accuracy_brute_force(t, p), abs=1e-15)


def test_more_clusters_than_classes():
    # an extra predicted cluster cannot be matched: its points are errors
    t = [0, 0, 0, 1, 1, 1]
    p = [0, 0, 2, 1, 1, 1]
    assert accuracy(t, p) == pytest.approx(5 / 6, abs=1e-15)
    # a single predicted cluster matches only the largest class
    assert accuracy([0, 0, 0, 1], [4, 4, 4, 4]) == pytest.approx(0.75, abs=1e-15)


def test_overlap_chance_level_is_zero():
    # balanced 2 classes, a clustering that splits each class in half
    t = [0, 0, 1, 1]
    p = [0, 1, 0, 1]
    assert accuracy(t, p) == 0.5
    assert overlap(t, p) == pytest.approx(0.0, abs=1e-15)


def test_overlap_matches_formula_random():
    rng = np.random.default_rng(3)
    t = rng.integers(0, 4, size=100)
    p = rng.integers(0, 4, size=100)
    k = np.unique(t).size
    assert k == 4
    assert overlap(t, p) == pytest.approx(k / (k - 1) * (accuracy(t, p) - 1 / k), abs=1e-14)


def test_nmi_ari_match_scikit_learn_one_name_each():
    assert metrics.__all__ == ["accuracy", "overlap", "nmi", "ari"]
    assert not hasattr(metrics, "normalized_mutual_info_score")
    assert not hasattr(metrics, "adjusted_rand_score")
    t = [0, 0, 1, 1]
    assert nmi(t, [1, 1, 0, 0]) == pytest.approx(1.0)
    assert ari(t, [0, 1, 0, 1]) == pytest.approx(-0.5)
    rng = np.random.default_rng(4)
    a, b = rng.integers(0, 4, 50), rng.integers(0, 3, 50)
    names = np.array(["x", "y", "z", "w"])[a]
    assert nmi(names, b) == pytest.approx(normalized_mutual_info_score(a, b), abs=1e-14)
    assert ari(names, b) == pytest.approx(adjusted_rand_score(a, b), abs=1e-14)


@pytest.mark.parametrize("func", [accuracy, overlap, nmi, ari])
def test_errors(func):
    name = func.__name__
    with pytest.raises(ValueError, match=rf"{name}: labels_pred has shape \(2,\), expected \(3,\)"):
        func([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match=rf"{name}: labels_true should be a non-empty 1-D"):
        func([], [])
    with pytest.raises(ValueError, match=r"labels_pred has shape \(2, 2\)"):
        func([0, 1], [[0, 1], [1, 0]])
    with pytest.raises(ValueError, match=rf"{name}: labels_true=0 should be array-like"):
        func(0, [0])
    with pytest.raises(ValueError, match=r"labels_pred contains NaN"):
        func([0, 1, 1], [0.0, np.nan, 1.0])


def test_overlap_single_class():
    with pytest.raises(ValueError, match="k=1"):
        overlap([2, 2, 2], [0, 1, 0])


@pytest.mark.parametrize("seed", range(3))
def test_weighted_ari_is_the_ari_of_the_repeated_rows(seed):
    rng = np.random.default_rng(seed)
    t, p = rng.integers(0, 3, 30), rng.integers(0, 4, 30)
    w = rng.integers(1, 5, 30)
    expected = adjusted_rand_score(np.repeat(t, w), np.repeat(p, w))
    assert ari(t, p, sample_weight=w) == pytest.approx(expected, abs=1e-12)
    assert ari(t, p, sample_weight=np.ones(30)) == pytest.approx(ari(t, p), abs=1e-12)
    # a zero weight leaves the point out
    w0 = np.where(np.arange(30) == 4, 0, w)
    keep = np.arange(30) != 4
    assert ari(t, p, sample_weight=w0) == pytest.approx(
        adjusted_rand_score(np.repeat(t[keep], w[keep]), np.repeat(p[keep], w[keep])), abs=1e-12)


def test_ari_refuses_bad_weights_by_name():
    with pytest.raises(ValueError, match="ari: sample_weight"):
        ari([0, 1, 1], [0, 1, 0], sample_weight=[1, -1, 1])
    with pytest.raises(ValueError, match="ari: sample_weight"):
        ari([0, 1, 1], [0, 1, 0], sample_weight=[1, 1])
