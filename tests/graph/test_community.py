"""Community detection: the paper's tables (small versions), engines, edge cases."""

import warnings

import networkx as nx
import numpy as np
import pytest

from kgroups import KernelKGroups
from kgroups.datasets._real import load_drosophila, load_network
from kgroups.graph import (
    CommunityKGroups,
    GraphInputWarning,
    bethe_hessian,
    bethe_spectral,
    detect_communities,
    girvan_newman_benchmark,
    stochastic_block_model,
)
from kgroups.metrics import overlap


@pytest.mark.parametrize("name, k, paper", [("karate", 2, 1.00), ("dolphins", 2, 1.00),
                                            ("football", 12, 0.90), ("polbooks", 3, 0.75)])
def test_table_iv(name, k, paper):
    # TPAMI Table IV, k-groups column; the paper's runs used w = 1.
    G, y = load_network(name)
    res = detect_communities(G, k, weights="none", random_state=0)
    assert overlap(y, res.labels) >= paper - 0.005
    assert overlap(y, res.labels) >= overlap(y, res.bethe_labels) - 1e-12


@pytest.mark.parametrize("side, perf, cov", [("left", 0.67, 0.84), ("right", 0.66, 0.83)])
def test_table_v(side, perf, cov):
    # TPAMI Table V, k-groups rows (k estimated = 2; sizes {116, 93} / {112, 101}).
    A, _, _ = load_drosophila(side)
    res = detect_communities(A, weights="none", random_state=0)
    assert res.n_clusters == 2
    assert round(res.performance, 2) >= perf and round(res.coverage, 2) >= cov
    assert sorted(np.bincount(res.labels).tolist()) == ([93, 116] if side == "left" else [101, 112])


def test_table_i_small():
    # TPAMI Table I at lambda = 1.8 (paper: Bethe 0.943, k-groups 0.960), 24 graphs.
    ov_b, ov_k = [], []
    for s in range(24):
        A, y = girvan_newman_benchmark(1.8, balanced=False, random_state=s)
        res = detect_communities(A, 4, weights="none", random_state=s)
        ov_b.append(overlap(y, res.bethe_labels))
        ov_k.append(overlap(y, res.labels))
    assert np.mean(ov_k) >= np.mean(ov_b)
    assert abs(np.mean(ov_k) - 0.960) < 0.03


def test_objective_rises_from_bethe_and_matches_dense_engine():
    A, y = stochastic_block_model(500, 3, 12.0, 1.5, random_state=4)
    assert A.sum(1).min() > 0   # no isolated node: every weight d_i > 0
    cd = CommunityKGroups(3, weights="degree", random_state=1).fit(A)
    H = bethe_hessian(A).toarray()
    d = np.asarray(A.sum(1)).ravel()
    # same run with the dense engine on the precomputed Gram matrix -H_r
    ref = KernelKGroups(3, kernel="precomputed", init=cd.bethe_labels_, engine="dense")
    ref.fit(-H, sample_weight=d)
    np.testing.assert_array_equal(cd.labels_, ref.labels_)
    assert cd.objective_ == pytest.approx(ref.objective_, rel=1e-12)
    Bw = -H * np.outer(d, d)
    q0 = sum(Bw[np.ix_(cd.bethe_labels_ == c, cd.bethe_labels_ == c)].sum()
             / d[cd.bethe_labels_ == c].sum() for c in range(3))
    assert cd.objective_ > q0 and cd.n_iter_ > 1


def test_isolated_nodes_and_components():
    A, y = stochastic_block_model(400, 2, 3.0, 1.7, random_state=2)
    deg = np.asarray(A.sum(1)).ravel()
    assert np.any(deg == 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        cd = CommunityKGroups(2, weights="degree", random_state=0).fit(A)
    iso = np.flatnonzero(deg == 0)
    np.testing.assert_array_equal(cd.isolated_, iso)
    big = np.bincount(np.delete(cd.labels_, iso)).argmax()
    assert np.all(cd.labels_[iso] == big)
    assert cd.labels_.shape == (400,)
    # two disjoint cliques: two communities, exactly
    G = nx.disjoint_union(nx.complete_graph(8), nx.complete_graph(9))
    G.add_node(99)
    res = detect_communities(G, random_state=0)
    assert res.n_clusters == 2
    # the isolated node 99 joins the larger community (the 9-clique)
    assert overlap(np.r_[np.zeros(8), np.ones(9), 1], res.labels) == 1.0


def test_inputs_and_inits():
    G, y = load_network("karate")
    D = G.to_directed()
    with pytest.warns(GraphInputWarning, match="directed"):
        res_d = detect_communities(D, 2, random_state=0)
    res = detect_communities(G, 2, random_state=0)
    np.testing.assert_array_equal(res.labels, res_d.labels)
    # random starts work on dense, well separated graphs (not on sparse ones: paper s. 5.2)
    A, yA = stochastic_block_model(300, 2, 20.0, 3.0, random_state=0)
    rnd = CommunityKGroups(2, init="random", n_init=3, random_state=0).fit(A)
    assert rnd.bethe_labels_ is None and overlap(yA, rnd.labels_) >= 0.95
    given = CommunityKGroups(init=res.labels).fit(G)
    np.testing.assert_array_equal(given.labels_, res.labels)   # a fixed point
    assert given.n_clusters_ == 2


def test_weights_and_spectral_consistency():
    A, y = stochastic_block_model(600, 4, 8.0, 2.0, random_state=7)
    cd = CommunityKGroups(weights="degree", random_state=3).fit(A)
    assert cd.n_clusters_ == 4
    assert overlap(y, cd.labels_) >= overlap(y, cd.bethe_labels_) - 0.01
    # the start is the Bethe Hessian clustering itself (same seed stream: one draw for k-means)
    assert overlap(cd.bethe_labels_, bethe_spectral(A, 4, random_state=3)) > 0.9


def test_errors():
    G, _ = load_network("karate")
    for kw, msg in ((dict(weights="deg"), "weights="), (dict(init="kmeans"), "init="),
                    (dict(n_clusters=0), "n_clusters="), (dict(n_clusters=2.5), "n_clusters="),
                    (dict(max_iter=0), "max_iter="), (dict(tol=1.5), "tol=")):
        with pytest.raises(ValueError, match=msg):
            CommunityKGroups(**kw).fit(G)
    with pytest.raises(ValueError, match="init labels have shape"):
        CommunityKGroups(init=np.zeros(5, int)).fit(G)
    with pytest.raises(ValueError, match=r"init labels should lie in \[0, 1\]"):
        CommunityKGroups(2, init=np.arange(34) % 3).fit(G)
    with pytest.raises(ValueError, match="no edges"):
        CommunityKGroups(2).fit(nx.empty_graph(4))
    with pytest.raises(ValueError, match="at most the number of non-isolated nodes"):
        CommunityKGroups(5).fit(nx.Graph([(0, 1), (1, 2)]))


# --------------------------------------------------------------- k = 1 and edge weights
def test_no_community_structure_gives_one_community():
    with pytest.warns(UserWarning, match=r"^detect_communities: no community structure "
                      r"detected at r=1.39: the Bethe Hessian has 0 negative eigenvalue\(s\), "
                      r"so k = 1"):
        res = detect_communities(nx.path_graph(30), random_state=0)
    assert res.n_clusters == 1 and res.labels.tolist() == [0] * 30
    assert np.isfinite(res.objective) and res.coverage == 1.0


def test_equal_edge_weights_give_the_unweighted_labels():
    G, _ = load_network("football")   # no weights: results pinned by test_table_iv
    Gw = G.copy()
    nx.set_edge_attributes(Gw, 2.5, "w")
    a = CommunityKGroups(12, random_state=0).fit(G)
    b = CommunityKGroups(12, weight="w", random_state=0).fit(Gw)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.objective_ == b.objective_ and a.r_ == b.r_


def test_weighted_detection_uses_the_weights():
    import scipy.sparse as sp

    # two groups with the same edge density inside and across, heavier edges inside
    rng = np.random.default_rng(1)
    n = 1000
    y = np.repeat([0, 1], n // 2)
    u, v = rng.integers(0, n, 10 * n), rng.integers(0, n, 10 * n)
    keep = u < v
    u, v = u[keep], v[keep]
    _, first = np.unique(u * n + v, return_index=True)
    u, v = u[first], v[first]
    w = np.where(y[u] == y[v], 5.0, 1.0)
    W = sp.coo_matrix((w, (u, v)), shape=(n, n)).tocsr()
    W = (W + W.T).tocsr()
    res = detect_communities(W, weight="weight", random_state=0)
    assert res.n_clusters == 2
    assert overlap(y, res.labels) > 0.85
    assert overlap(y, res.labels) >= overlap(y, res.bethe_labels) - 1e-12
    # the default reads the weights too; weight=None sees the edges only: one community
    assert CommunityKGroups().get_params()["weight"] == "weight"
    np.testing.assert_array_equal(detect_communities(W, random_state=0).labels, res.labels)
    with pytest.warns(UserWarning) as rec:
        assert detect_communities(W, weight=None, random_state=0).n_clusters == 1
    text = " ".join(str(r.message) for r in rec)
    assert "collapsed" not in text and "1 negative eigenvalue(s), so k = 1" in text


def test_number_of_communities_is_n_clusters():
    G = nx.barbell_graph(5, 0)
    res = detect_communities(G, n_clusters=2, random_state=0)
    assert res.n_clusters == 2 and res.labels.tolist() == [0] * 5 + [1] * 5
    with pytest.raises(ValueError, match=r"^detect_communities: k=2 is spelled n_clusters=2 "
                       r"\(the number of clusters is n_clusters across kgroups\)$"):
        detect_communities(G, k=2)
    with pytest.raises(ValueError, match=r"^detect_communities: n_clusters=11 should be at "
                       r"most the number of"):
        detect_communities(G, 11)
