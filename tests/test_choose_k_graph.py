"""choose_k with ``semimetric="nearest_neighbors"``: the eigengap of the neighbourhood
graph (kgroups._choose_k.graph)."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs, make_circles, make_moons
from sklearn.metrics import adjusted_rand_score

from kgroups import choose_k
from kgroups._choose_k.constants import COMPONENT_FLOOR
from kgroups._semimetrics.neighbors import NeighborGraphMap
from kgroups._stats.criteria import log_eigengaps
from kgroups.exceptions import KRangeWarning

NN = "nearest_neighbors"


def _rings(n_rings, n=300, seed=0):
    rng = np.random.default_rng(seed)
    parts = []
    for r in range(1, n_rings + 1):
        t = rng.uniform(0, 2 * np.pi, n)
        parts.append(np.c_[np.cos(t), np.sin(t)] * (r + 0.05 * rng.normal(size=(n, 1))))
    return np.vstack(parts)


def the_step(r):
    [step] = r.trace.steps
    assert step.step == "graph eigengap" and step.threshold is None
    return step


@pytest.mark.parametrize("X, k", [(make_circles(600, factor=0.5, noise=0.05,
                                                random_state=0)[0], 2),
                                  (make_moons(600, noise=0.05, random_state=0)[0], 2),
                                  (_rings(3), 3)], ids=["circles", "moons", "three rings"])
def test_shapes_get_their_k_whatever_the_range(X, k):
    answers = set()
    for top in (6, 10, 15):
        r = choose_k(X, range(1, top + 1), semimetric=NN, random_state=0)
        answers.add(r.k)
        assert r.method == "auto" and r.semimetric == NN and not r.at_top
        step = the_step(r)
        assert step.outcome == f"k={k}" and sorted(step.value) == list(range(2, top + 1))
        assert max(step.value, key=step.value.get) == k
    assert answers == {k}
    assert np.bincount(r.labels).size == k


def test_the_rule_is_the_largest_log_ratio_of_the_walks_laplacian():
    X = _rings(2, n=200)
    r = choose_k(X, range(1, 7), semimetric=NN, random_state=0)
    fmap = NeighborGraphMap.fit(X, np.ones(len(X)), n_neighbors=10, n_clusters=7,
                                random_state=0)
    mu = np.clip(1.0 - fmap.eigenvalues, 0, None)
    np.testing.assert_allclose(r.eigenvalues, mu, atol=1e-8)
    gaps = r.eigengap
    assert np.isnan(gaps[0]) and r.k == int(np.nanargmax(gaps)) + 1
    # the gaps from the eigenvalues by hand: log mu_(k+1) - log mu_k, each zero (a
    # component) counted as COMPONENT_FLOOR of the smallest eigenvalue above zero
    zero = mu <= 1e-9 * mu.max()
    assert zero.sum() == 2                                  # the two rings
    m = np.where(zero, COMPONENT_FLOOR * mu[~zero].min(), mu)
    np.testing.assert_allclose(gaps[1:], np.log(m[2:7]) - np.log(m[1:6]), rtol=1e-6)
    assert the_step(r).value == pytest.approx(dict(zip(range(2, 7), gaps[1:])))


def test_log_eigengaps_by_hand():
    mu = np.array([0.0, 0.01, 0.02, 0.5])
    got = log_eigengaps(mu, np.array([1, 2, 3]), COMPONENT_FLOOR)
    assert np.isnan(got[0])
    np.testing.assert_allclose(got[1:], [np.log(2.0), np.log(25.0)])


def test_a_zero_counts_as_a_share_of_the_next_eigenvalue():
    """Two components (two zeros): the gap after them is log(1 / COMPONENT_FLOOR), not
    infinite; a third zero at most 1e-9 of the largest counts as a zero too."""
    mu = np.array([0.0, 0.0, 0.001, 0.002, 0.5])
    got = log_eigengaps(mu, np.arange(1, 5), COMPONENT_FLOOR)
    np.testing.assert_allclose(got[1:], [np.log(1 / COMPONENT_FLOOR), np.log(2.0),
                                         np.log(250.0)])
    assert COMPONENT_FLOOR == 0.2
    np.testing.assert_allclose(log_eigengaps(mu, np.arange(1, 5), 0.5)[1],
                               np.log(2.0))
    tiny = np.array([0.0, 1e-12, 0.01, 1.0])  # read as 0.002, 0.01, 1
    np.testing.assert_allclose(log_eigengaps(tiny, np.array([2, 3]), COMPONENT_FLOOR),
                               [np.log(5.0), np.log(100.0)])


def test_top_of_the_range_warns_and_says_so():
    X = _rings(3, n=200)
    with pytest.warns(KRangeWarning, match="widen k_range") as record:
        r = choose_k(X, range(1, 3), semimetric=NN, random_state=0)
    assert record[0].filename == __file__
    assert r.k == 2 and r.at_top and r.reasoning.endswith("widen k_range.")


def test_a_range_without_two_clusters():
    X = _rings(2, n=100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = choose_k(X, [1], semimetric=NN, random_state=0)
    assert r.k == 1 and np.all(r.labels == 0)
    step = the_step(r)
    assert step.outcome == "k=1" and step.statistic == "k >= 2 in k_range"


def test_components_do_not_outweigh_the_groups_within_them():
    """Three blobs of which two touch: the graph has two components, and a ratio from
    an exact zero would answer 2; a zero counts as a fifth of the next eigenvalue, so
    the gap after the touching pair's own split wins: 3."""
    X, y = make_blobs(600, 2, centers=3, cluster_std=1.0, random_state=1)
    r = choose_k(X, semimetric=NN, random_state=0)
    assert r.k == 3
    assert "(2 component(s))" in the_step(r).statistic
    assert np.sum(r.eigenvalues <= 1e-9 * r.eigenvalues.max()) == 2
    assert adjusted_rand_score(y, r.labels) > 0.95


def test_the_answer_does_not_follow_random_state():
    X = _rings(3)
    rs = [choose_k(X, range(1, 8), semimetric=NN, random_state=s) for s in range(3)]
    assert {r.k for r in rs} == {3}
    for r in rs[1:]:
        np.testing.assert_array_equal(r.labels, rs[0].labels)
        np.testing.assert_allclose(r.eigenvalues, rs[0].eigenvalues)


def test_integer_weights_are_repeated_rows():
    X = make_moons(200, noise=0.05, random_state=3)[0]
    w = np.random.default_rng(0).integers(1, 4, 200)
    a = choose_k(X, range(1, 8), semimetric=NN, sample_weight=w)
    b = choose_k(np.repeat(X, w, axis=0), range(1, 8), semimetric=NN)
    assert a.k == b.k == 2
    assert adjusted_rand_score(np.repeat(a.labels, w), b.labels) == 1.0
