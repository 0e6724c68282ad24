"""choose_k with ``semimetric="nearest_neighbors"``: the eigengap of the neighbourhood
graph (kgroups._choose_k.graph)."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_circles, make_moons

from kgroups import choose_k
from kgroups._choose_k.graph import log_eigengaps
from kgroups._choose_k.result import KRangeWarning
from kgroups._semimetrics.neighbors import NeighborGraphMap

NN = "nearest_neighbors"


def _rings(n_rings, n=300, seed=0):
    rng = np.random.default_rng(seed)
    parts = []
    for r in range(1, n_rings + 1):
        t = rng.uniform(0, 2 * np.pi, n)
        parts.append(np.c_[np.cos(t), np.sin(t)] * (r + 0.05 * rng.normal(size=(n, 1))))
    return np.vstack(parts)


@pytest.mark.parametrize("X, k", [(make_circles(600, factor=0.5, noise=0.05,
                                                random_state=0)[0], 2),
                                  (make_moons(600, noise=0.05, random_state=0)[0], 2),
                                  (_rings(3), 3)], ids=["circles", "moons", "three rings"])
def test_shapes_get_their_k_whatever_the_range(X, k):
    answers = set()
    for top in (6, 10, 15):
        r = choose_k(X, range(1, top + 1), semimetric=NN, random_state=0)
        answers.add(r.k)
        assert r.method == "graph eigengap" and not r.at_top
        assert f"k={k}" in r.reasoning
    assert answers == {k}
    assert np.bincount(r.labels).size == k


def test_the_rule_is_the_largest_log_ratio_of_the_walks_laplacian():
    X = _rings(2, n=200)
    r = choose_k(X, range(1, 7), semimetric=NN, random_state=0)
    fmap = NeighborGraphMap.fit(X, np.ones(len(X)), n_neighbors=10, n_clusters=7,
                                random_state=0)
    mu = np.clip(1.0 - fmap.eigenvalues, 0, None)
    np.testing.assert_allclose(r.eigenvalues, mu, atol=1e-10)
    gaps = r.eigengap
    assert np.isnan(gaps[0]) and r.k == int(np.nanargmax(gaps)) + 1


def test_log_eigengaps_by_hand():
    mu = np.array([0.0, 0.01, 0.02, 0.5])
    got = log_eigengaps(mu, np.array([1, 2, 3]))
    assert np.isnan(got[0])
    np.testing.assert_allclose(got[1:], [np.log(2.0), np.log(25.0)])


def test_top_of_the_range_warns_and_says_so():
    X = _rings(3, n=200)
    with pytest.warns(KRangeWarning, match="widen k_range"):
        r = choose_k(X, range(1, 3), semimetric=NN, random_state=0)
    assert r.k == 2 and r.at_top and "widen k_range" in r.reasoning


def test_a_range_without_two_clusters():
    X = _rings(2, n=100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = choose_k(X, [1], semimetric=NN, random_state=0)
    assert r.k == 1 and "k >= 2" in r.reasoning


def test_components_do_not_outweigh_the_groups_within_them():
    """Three blobs of which two touch: the graph has two components, and a ratio from
    an exact zero would answer 2; a zero counts as a fifth of the next eigenvalue, so
    the gap after the touching pair's own split wins: 3."""
    from sklearn.datasets import make_blobs
    from sklearn.metrics import adjusted_rand_score

    X, y = make_blobs(600, 2, centers=3, cluster_std=1.0, random_state=1)
    r = choose_k(X, semimetric="nearest_neighbors", random_state=0)
    assert r.k == 3
    assert "(2 component(s))" in r.reasoning
    assert adjusted_rand_score(y, r.labels) > 0.95
