"""``noise="auto"`` (``kgroups._noise_auto``): the points beyond Tukey's far-out fence of
their cluster's costs of belonging are set aside, and only they."""

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from kgroups import KernelKGroups, KernelKMeans
from kgroups._noise_auto import FENCE, belonging_costs, weighted_quartiles


def blob_and_strays(seed=0, n=600, strays=10):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(0, 1, (n, 2)), rng.uniform(-60, 60, (strays, 2))])
    X[n:] += np.sign(X[n:]) * 15                   # at least 15 standard deviations out
    return X, np.r_[np.zeros(n, int), -np.ones(strays, int)]


def test_far_strays_are_set_aside_and_the_cluster_kept():
    X, y = blob_and_strays()
    est = KernelKGroups(1, noise="auto", random_state=0).fit(X)
    aside = est.labels_ == -1
    assert aside[y == -1].all()                    # every stray
    assert aside[y == 0].sum() <= 3                # at most the blob's rim, by the fence
    assert est.n_noise_ == aside.sum() and f"{est.n_noise_} of {len(X)}" in est.noise_reasoning_
    assert "far-out fence" in est.noise_reasoning_
    assert (est.predict(np.array([[0.0, 0.0], [80.0, -80.0]])) == [0, -1]).all()


def test_clean_clusters_lose_almost_nothing():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(c, 1, (300, 3)) for c in (0, 7, 14)])
    est = KernelKGroups(3, noise="auto", random_state=0).fit(X)
    assert est.n_noise_ <= 3 and est.noise_share_ <= 0.01


def test_background_far_from_the_blobs_is_set_aside_not_the_blobs():
    """Four blobs in a 10 % uniform background: what is set aside is background (the
    background inside a blob's extent stays in it), and the blobs are found."""
    rng = np.random.default_rng(2)
    C = np.array([[0, 0], [10, 0], [0, 10], [10, 10]])
    X = np.vstack([*(rng.normal(c, 1, (200, 2)) for c in C), rng.uniform(-6, 16, (80, 2))])
    y = np.r_[np.repeat(np.arange(4), 200), -np.ones(80, int)]
    est = KernelKGroups(4, noise="auto", random_state=0).fit(X)
    aside = est.labels_ == -1
    assert aside.sum() >= 20 and (y[aside] == -1).mean() >= 0.95
    keep = y >= 0
    assert adjusted_rand_score(y[keep], est.labels_[keep]) == 1.0


def test_a_tight_far_group_is_a_cluster_with_k_chosen():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (600, 2)), rng.normal(40, 0.1, (5, 2))])
    est = KernelKGroups("auto", semimetric="auto", noise="auto", random_state=0).fit(X)
    assert est.n_clusters_ == 2 and (est.labels_[-5:] >= 0).all()
    assert len(set(est.labels_[-5:])) == 1 and est.labels_[-1] not in est.labels_[:600]


def test_a_small_blob_apart_is_a_cluster_with_k_chosen():
    """30 points 8 standard deviations from a blob of 1,000: each lies far out of one
    cluster fitted to all, but together they are a component of the neighbourhood graph
    that holds no other row, a group apart, not strays: the choice keeps them and finds
    k = 2 (left out, the rest was one cluster and the 30 were set aside)."""
    rng = np.random.default_rng(6)
    X = np.vstack([rng.normal(0, 1, (1000, 2)), rng.normal(8, 0.7, (30, 2))])
    est = KernelKGroups("auto", semimetric="auto", noise="auto", random_state=0).fit(X)
    assert est.n_clusters_ == 2 and est.n_noise_ <= 3
    small = est.labels_[1000:]
    assert (small >= 0).sum() >= 28 and len(set(small[small >= 0])) == 1
    assert small.max() not in est.labels_[:1000]
    assert est.n_clusters_choice_.trace.steps[0].value == 0      # none left out


def test_a_group_apart_is_one_of_every_flagged_row():
    """``apart_from_the_rest``: the flagged rows of a component with no other row, not
    the flagged rows joined to the rest (strays of a background)."""
    from kgroups._semimetrics.neighbors import apart_from_the_rest

    rng = np.random.default_rng(7)
    X = np.vstack([rng.normal(0, 1, (300, 2)), rng.normal(12, 0.5, (20, 2)),
                   rng.uniform(-5, 5, (15, 2))])
    flagged = np.r_[np.zeros(300, bool), np.ones(35, bool)]
    apart = apart_from_the_rest(X, flagged, 10)
    assert apart[300:320].all() and not apart[320:].any() and not apart[:300].any()
    assert not apart_from_the_rest(X, np.zeros(335, bool), 10).any()


def test_integer_weights_are_repeated_rows():
    """Weighted quartiles: the fence of weighted points is that of their repeated rows,
    so the same points are set aside."""
    X, _ = blob_and_strays(n=120, strays=4)
    w = np.r_[np.random.default_rng(3).integers(1, 4, 120), np.ones(4, int)]
    a = KernelKGroups(1, noise="auto", random_state=0).fit(X, sample_weight=w)
    b = KernelKGroups(1, noise="auto", random_state=0).fit(np.repeat(X, w, axis=0))
    np.testing.assert_array_equal(np.repeat(a.labels_ == -1, w), b.labels_ == -1)
    assert a.noise_weight_ == pytest.approx(b.noise_weight_)


def test_costs_are_the_fall_of_w_by_brute_force():
    """c_i is the fall of the within energy when point i is set aside, per unit weight
    (a point alone in its cluster: inf)."""
    from kgroups import within_energy

    rng = np.random.default_rng(4)
    X, w = rng.normal(size=(9, 2)), rng.uniform(0.5, 2.0, 9)
    labels = np.array([0, 0, 0, 0, 1, 1, 1, 1, 2])
    from kgroups._kernels.gain import cluster_stats
    est = KernelKGroups(3, engine="dense")
    eng = est._prepare(X, w)[2]
    M = eng.build_m(labels, 3)
    s, q, _ = cluster_stats(M, labels, eng.w)
    costs = belonging_costs(M, labels, eng.w, eng.diag, s, q)
    W = within_energy(X, labels, sample_weight=w)
    for i in range(8):
        keep = np.arange(9) != i
        drop = W - within_energy(X[keep], labels[keep], sample_weight=w[keep])
        assert costs[i] * eng.w[i] * est._wscale == pytest.approx(drop, rel=1e-9)
    assert costs[8] == np.inf


def test_weighted_quartiles_of_unit_weights_and_repeats():
    x = np.array([3.0, 1.0, 2.0, 5.0])
    assert weighted_quartiles(x, np.array([1.0, 1.0, 1.0, 1.0])) == (1.0, 3.0)
    assert weighted_quartiles(x, np.array([1.0, 2.0, 1.0, 1.0])) == \
        weighted_quartiles(np.array([3.0, 1.0, 1.0, 2.0, 5.0]), np.ones(5))
    assert FENCE == 3.0


def test_kernel_k_means_takes_auto_too():
    X, y = blob_and_strays(n=300, strays=5)
    est = KernelKMeans(1, noise="auto", random_state=0).fit(X)
    assert (est.labels_[y == -1] == -1).all() and est.n_noise_ <= 8


def test_strays_that_a_fit_gives_clusters_of_their_own_are_set_aside():
    """Three blobs of 10 points and two far strays, k = 3: the fit that sets nothing aside
    gives each stray a cluster (a point alone has no cost of belonging); judged by the
    cost of joining the cluster nearest to it, each is set aside, and the three blobs are
    the clusters."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.5, (10, 2)) for c in ([0, 0], [5, 0], [0, 5])]
                  + [np.array([[60.0, -50.0], [-45.0, 70.0]])])
    y = np.repeat([0, 1, 2], 10)
    est = KernelKGroups(3, noise="auto", random_state=0).fit(X)
    assert est.labels_[-2:].tolist() == [-1, -1] and est.n_noise_ == 2
    assert adjusted_rand_score(y, est.labels_[:30]) == 1.0


def moons_and_strays():
    """Two moons whose neighbourhood graph falls into its two components (every point
    at its cluster's mean in the graph's embedding), and three far strays."""
    from sklearn.datasets import make_moons

    X, y = make_moons(600, noise=0.05, random_state=0)
    return np.vstack([X, [[4.0, 3.0], [-3.0, -2.5], [0.5, 4.0]]]), np.r_[y, -1, -1, -1]


def test_a_share_with_the_graph_sets_aside_the_dearest_points_in_the_input_space():
    """noise=s with semimetric='nearest_neighbors' set nothing aside where the graph's
    embedding puts every point at its cluster's mean (W = 0: no point's removal lowers
    it). The points set aside are the share's dearest by the energy costs of belonging in
    the input space, for the graph's partition: the strays first, then the moons' tips."""
    X, y = moons_and_strays()
    est = KernelKGroups(2, semimetric="nearest_neighbors", noise=0.01, random_state=0).fit(X)
    aside = est.labels_ == -1
    assert est.n_noise_ == int(0.01 * len(X)) == aside.sum()          # floor(6.03)
    assert aside[y == -1].all() and est.noise_threshold_ == np.inf
    assert adjusted_rand_score(y[~aside & (y >= 0)], est.labels_[~aside & (y >= 0)]) == 1.0
    assert "points of largest cost of belonging" in est.noise_reasoning_
    auto = KernelKGroups(2, semimetric="nearest_neighbors", noise="auto", random_state=0).fit(X)
    assert np.flatnonzero(auto.labels_ == -1).tolist() == [600, 601, 602]


def test_semimetric_auto_at_k_compares_the_kept_points():
    """KernelKGroups(k, semimetric='auto', noise=...) crashed inside scipy: the graph's
    candidate labels -1 reached the normalised cut. Both partitions are compared on the
    points the graph's fit kept; the fit runs and sets the strays aside."""
    X, y = moons_and_strays()
    for noise in ("auto", 0.01):
        est = KernelKGroups(2, semimetric="auto", noise=noise, random_state=0).fit(X)
        assert est.semimetric_ == "nearest_neighbors"
        assert (est.labels_[y == -1] == -1).all()
        assert set(est.semimetric_choice_.normalized_cut) == {"energy", "nearest_neighbors"}
    rng = np.random.default_rng(0)
    B = np.vstack([rng.normal(c, 1.0, (200, 2)) for c in ((0, 0), (10, 0), (0, 10))])
    B = np.vstack([B, rng.uniform(-15, 25, (40, 2))])
    est = KernelKGroups(3, semimetric="auto", noise="auto", random_state=0).fit(B)
    assert est.n_noise_ > 0 and est.labels_.min() == -1
