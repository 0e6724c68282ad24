"""Step 4 of choose_k's default (kgroups._choose_k.shapes): when the neighbourhood
graph's groups are shapes that energy partitions cannot draw, the energy partition
that agrees best with them; otherwise the point rule's answer stands."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_circles, make_moons
from sklearn.metrics import adjusted_rand_score

from kgroups import choose_k
from kgroups._choose_k import KRangeWarning
from kgroups._choose_k.shapes import AGREE_MIN, BALANCE, DRAWN, weighted_ari


def purity(labels, truth):
    """Share of the points whose cluster's majority class is their own."""
    return sum(np.bincount(truth[labels == c]).max() for c in np.unique(labels)) / len(labels)


# --------------------------------------------------------------------------- the index
@pytest.mark.parametrize("seed", range(4))
def test_weighted_ari_is_the_ari_of_the_repeated_rows(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, 3, 40), rng.integers(0, 4, 40)
    b[:20] = a[:20]                                       # some agreement
    w = rng.integers(1, 5, 40)
    expected = adjusted_rand_score(np.repeat(a, w), np.repeat(b, w))
    assert weighted_ari(a, b, w.astype(float)) == pytest.approx(expected, abs=1e-12)
    assert weighted_ari(a, b, np.ones(40)) == pytest.approx(adjusted_rand_score(a, b),
                                                            abs=1e-12)


def test_weighted_ari_of_equal_and_of_one_cluster_partitions():
    a = np.array([0, 0, 1, 1, 2])
    assert weighted_ari(a, (a + 1) % 3, np.arange(1.0, 6.0)) == pytest.approx(1.0)
    one = np.zeros(5, dtype=np.int64)
    assert weighted_ari(one, one, np.ones(5)) == 1.0


# --------------------------------------------------------------------------- shapes
@pytest.mark.parametrize("ks", [range(1, 16), range(1, 21), range(1, 31), range(2, 16)])
def test_two_rings_get_energy_pieces_within_the_rings_whatever_the_range(ks):
    """Two concentric rings: every energy partition of 2 clusters cuts across them
    (the graph's groups are the rings); the answer is the energy partition that agrees
    best with them, whose pieces each lie within one ring, one k for every range that
    holds it, well below its top (the point rule alone follows the arcs' silhouette to
    the end of the range)."""
    X, y = make_circles(600, factor=0.5, noise=0.05, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", KRangeWarning)
        r = choose_k(X, ks, random_state=0)
    assert r.method == "silhouette+split" and r.graph_k == 2
    assert 6 <= r.k <= 12 and not r.at_top
    assert purity(r.labels, y) > 0.98
    agree = r.graph_agreement[np.flatnonzero(r.k_values == r.k)[0]]
    assert agree == np.nanmax(r.graph_agreement) and agree >= AGREE_MIN
    assert "KernelKGroups(2, semimetric='nearest_neighbors')" in r.reasoning
    alone = choose_k(X, ks, method="silhouette+split", random_state=0)
    assert alone.graph_k is None and alone.k > r.k


def test_two_rings_answer_at_the_top_of_a_short_range_warns():
    X, _ = make_circles(600, factor=0.5, noise=0.05, random_state=1)
    with pytest.warns(KRangeWarning, match="widen k_range") as record:
        r = choose_k(X, range(1, 8), random_state=0)
    assert r.k == 7 and r.at_top and "k may be larger than the range allows" in r.reasoning
    assert record[0].filename == __file__                 # points at the caller's line


def test_moons_get_pieces_that_follow_each_moon():
    """Two moons: the graph's groups are the moons, the answer the energy partition
    that agrees best with them (the ARI with the moons themselves alike)."""
    X, y = make_moons(1000, noise=0.05, random_state=2)
    r = choose_k(X, range(1, 16), random_state=0)
    assert r.graph_k == 2 and r.graph_agreement is not None and 3 <= r.k <= 8
    assert purity(r.labels, y) > 0.93             # the tips reach into the other moon
    assert adjusted_rand_score(y, r.labels) > np.nanmax(r.graph_agreement) - 0.1


# --------------------------------------------------------------------------- not shapes
def blobs(rng, centres, sd, n_per):
    return np.vstack([rng.normal(c, sd, (n_per, 2)) for c in centres])


def test_blobs_that_the_energy_fit_finds_keep_the_point_rule():
    X = blobs(np.random.default_rng(3), [[0, 0], [5, 0], [0, 5], [5, 5], [10, 0], [10, 5]],
              0.5, 60)
    r = choose_k(X, range(1, 16), random_state=0)
    assert r.k == 6 and r.graph_k == 6 and r.graph_agreement is None
    assert f">= {DRAWN:g}); the point rule's k stands" in r.reasoning


def test_a_graph_that_sets_apart_a_small_part_keeps_the_point_rule():
    """Three blobs and a far group of 12 points (2 % of the weight): the graph's
    smallest group is below BALANCE / k_g of the weight."""
    rng = np.random.default_rng(3)
    X = np.vstack([blobs(rng, [[0, 0], [5, 0], [0, 5]], 0.5, 200),
                   rng.normal([30, 30], 0.3, (12, 2))])
    r = choose_k(X, range(1, 16), random_state=0)
    assert r.k == 4 and r.graph_agreement is None
    assert f"below {BALANCE:g} / {r.graph_k}" in r.reasoning


def test_only_the_default_with_the_energy_semimetric_looks_at_the_graph():
    X, _ = make_circles(400, factor=0.5, noise=0.05, random_state=1)
    for kw in ({"method": "silhouette+split"}, {"semimetric": "gaussian", "sigma": 0.5}):
        with warnings.catch_warnings():               # the arcs' silhouette still rising
            warnings.simplefilter("ignore", KRangeWarning)
            r = choose_k(X, range(1, 11), random_state=0, **kw)
        assert r.graph_k is None and "neighbourhood graph" not in r.reasoning


def test_weights_are_repeated_rows():
    """Integer weights give the answer of the data with those rows repeated."""
    X, _ = make_circles(300, factor=0.5, noise=0.05, random_state=2)
    w = np.random.default_rng(0).integers(1, 3, 300)
    a = choose_k(X, range(1, 16), sample_weight=w, random_state=0)
    assert a.graph_k == 2 and a.graph_agreement is not None and 5 <= a.k <= 13


def test_plot_draws_the_agreement_and_its_least_value():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, _ = make_circles(600, factor=0.5, noise=0.05, random_state=1)
    r = choose_k(X, range(1, 16), random_state=0)
    assert r.criteria == ["silhouette", "split", "graph_agreement"]
    axes = r.plot()
    assert axes[2].get_title() == "graph agreement"
    assert f"least {AGREE_MIN:g}" in axes[2].get_legend_handles_labels()[1]
    plt.close("all")


def test_blobs_of_which_pairs_touch_keep_the_point_rule():
    """Four Gaussian blobs (sd 1.5, centres at least 8 apart in [-10, 10]^2, a draw of
    the synthetic study) of which two pairs touch: the graph's eigengap counts its
    components as a fifth of the next eigenvalue, so that it sees the four blobs, not
    the two pairs, and the energy fit of four clusters finds them: the point rule's 4
    stands."""
    rng = np.random.default_rng(1017)
    while True:
        c = rng.uniform(-10, 10, (4, 2))
        if np.linalg.norm(c[:, None] - c[None], axis=2)[np.triu_indices(4, 1)].min() >= 8:
            break
    X = np.vstack([rng.normal(c[j], 1.5, (50, 2)) for j in range(4)])
    r = choose_k(X, range(1, 11), random_state=1)
    assert r.k == 4 and r.graph_k == 4 and r.graph_agreement is None
    assert "which the energy fit of 4 clusters finds" in r.reasoning
